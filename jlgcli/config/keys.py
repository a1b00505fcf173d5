"""The configuration keys (seed 000 F-001, seed 001 §12.2): names, bounds, defaults.

Plain data (each key a ``jlgcli.config.spec.KeySpec``), no pydantic: ``jlgcli config
get`` must stay fast (pydantic costs ≈ 150 ms to import here). This table is the one
description of the keys: every file, variable and flag value is parsed by it, and the
README's config reference is generated from it.
"""

from __future__ import annotations

from jlgcli.config.backend_ids import BUILTIN_BACKENDS, SPECIAL_BACKENDS
from jlgcli.config.spec import KeySpec

COMPLETION_MODES = ("marker", "json", "rebound")
# How rebound scripts are isolated: the best level here, only a full one, or one level.
ISOLATION_CHOICES = ("best", "strict", "bubblewrap", "unshare", "unprivileged-user", "none")
PERMISSION_LEVELS = ("read-only", "edit", "full")


MINUTE_MS = 60_000
DAY_MS = 24 * 60 * MINUTE_MS

KEYS: tuple[KeySpec, ...] = (
    KeySpec(
        "backend",
        "backend",
        "auto",
        f"Backend to run: {', '.join((*BUILTIN_BACKENDS, *SPECIAL_BACKENDS))}, "
        "a custom command backend, or auto (first available).",
        "codex",
        flag="--backend",
    ),
    KeySpec(
        "maxIterations",
        "int",
        20,
        "Most iterations a loop runs before stopping (exit 4).",
        "10",
        minimum=1,
        maximum=1000,
        flag="--max-iterations",
    ),
    KeySpec(
        "timeoutMs",
        "duration",
        30 * MINUTE_MS,
        "Total time a run or loop may take (exit 75).",
        "30m",
        minimum=1000,
        maximum=7 * DAY_MS,
        flag="--timeout",
    ),
    KeySpec(
        "iterationTimeoutMs",
        "duration",
        0,
        "Most time one backend call may take; 0 means only the total timeout applies.",
        "10m",
        minimum=0,
        maximum=7 * DAY_MS,
        flag="--iteration-timeout",
    ),
    KeySpec(
        "idleTimeoutMs",
        "duration",
        10 * MINUTE_MS,
        "Stop a backend call that prints nothing for this long; 0 disables it.",
        "5m",
        minimum=0,
        maximum=7 * DAY_MS,
        flag="--idle-timeout",
    ),
    KeySpec(
        "permissions",
        "choice",
        "edit",
        "What the agent may do: read-only, edit (files in the project; no shell, no network) "
        "or full (shell, network). Each backend's flags: docs/backends.md.",
        "read-only",
        choices=PERMISSION_LEVELS,
        flag="--permissions",
    ),
    KeySpec(
        "completionMode",
        "choice",
        "marker",
        "How the model signals completion: a final "
        "DONE line, a JSON status object, or rebound replies.",
        "json",
        choices=COMPLETION_MODES,
        flag="--completion",
    ),
    KeySpec(
        "noProgressLimit",
        "int",
        3,
        "Stop after this many consecutive iterations with "
        "identical or near-identical output (exit 5).",
        "3",
        minimum=1,
        maximum=100,
        flag="--no-progress-limit",
    ),
    KeySpec(
        "verbosity",
        "int",
        1,
        "0 quiet (summary only; run still prints its final answer), 1 normal (stream the "
        "assistant), "
        "2 verbose (progress details), 3 debug.",
        "2",
        minimum=0,
        maximum=3,
        flag="--verbosity",
    ),
    KeySpec(
        "artifacts",
        "bool",
        False,
        "Write .jlgcli/runs/RUN_ID/ with the transcript, meta and result.",
        "true",
        flag="--artifacts",
    ),
    KeySpec(
        "transcript",
        "bool",
        True,
        "Keep each run's redacted transcript (the newest 20 MB) in its run folder, "
        "for jlgcli runs log; artifacts keeps it whole.",
        "false",
        flag="--transcript",
    ),
    KeySpec(
        "artifactsDir",
        "path",
        ".jlgcli/runs",
        "Where run artifacts go, relative to the project root.",
        "build/jlgcli-runs",
        flag="--artifacts-dir",
    ),
    KeySpec(
        "fallback",
        "backends",
        [],
        "Backends to go on with when the current one is out of quota or rate-limited "
        "past the time left.",
        "codex,gemini",
        flag="--fallback",
    ),
    KeySpec(
        "gates",
        "commands",
        [],
        "Commands that must exit 0 before a loop's done is accepted (no shell); from a "
        "project file they run once it is trusted.",
        '["pytest -q"]',
        flag="--gate",
    ),
    KeySpec(
        "maxCostUsd",
        "money",
        0.0,
        "Stop a loop once the cost the backend reports reaches this many dollars (exit 4); "
        "0: no limit.",
        "2.5",
        flag="--max-cost",
    ),
    KeySpec(
        "maxPromptBytes",
        "int",
        4 * 1024 * 1024,
        "Largest prompt file (or stdin) read, in bytes; a larger one stops with exit 66 "
        "before it is read whole. 4 MiB: about a 1M-token context, the largest an agent "
        "CLI takes.",
        "1000000",
        minimum=1024,
        maximum=1024 * 1024 * 1024,
        flag="maxPromptBytes",  # no run/loop flag: set in a config file or JLGCLI_MAX_PROMPT_BYTES
    ),
    KeySpec(
        "notify",
        "targets",
        [],
        "Where to say that a run ended or waits long on a rate limit: desktop, "
        "webhook:URL; from a project file once it is trusted.",
        '["desktop"]',
        flag="--notify",
    ),
    KeySpec(
        "notifyLimitWaitMs",
        "duration",
        5 * MINUTE_MS,
        "A rate-limit wait at least this long is notified (see notify).",
        "10m",
        minimum=0,
        maximum=DAY_MS,
        flag="notifyLimitWaitMs",  # no run/loop flag: a config file or JLGCLI_NOTIFY_LIMIT_WAIT_MS
    ),
    KeySpec(
        "reboundIsolation",
        "choice",
        "best",
        "How rebound scripts are isolated: best (the strongest level here, named), strict "
        "(refuse to run a script without capabilities dropped, an empty home and no "
        "network), or one level. See docs/rebound.md.",
        "strict",
        choices=ISOLATION_CHOICES,
        flag="reboundIsolation",  # config or JLGCLI_REBOUND_ISOLATION; in a project: trusted
    ),
    KeySpec(
        "reboundNetwork",
        "bool",
        False,
        "Let rebound scripts reach the network (default: a network namespace with "
        "loopback only). In a project file it needs jlgcli config trust.",
        "true",
        flag="reboundNetwork",  # config or JLGCLI_REBOUND_NETWORK; in a project: trusted
    ),
)

KEY_NAMES: tuple[str, ...] = tuple(spec.name for spec in KEYS)
_BY_NAME = {spec.name: spec for spec in KEYS}
_BY_LOWER = {spec.name.lower(): spec for spec in KEYS}


def lookup_key(name: str) -> KeySpec | None:
    """The key called ``name`` (exact, or case-insensitively), or ``None``."""
    return _BY_NAME.get(name) or _BY_LOWER.get(name.lower())


def unknown_key_message(name: str) -> str:
    """``unknown config key 'foo' (did you mean …?); valid keys: …``."""
    import difflib  # only on a miss

    lowered = {k.lower(): k for k in KEY_NAMES}
    match = difflib.get_close_matches(name.lower(), tuple(lowered), n=1, cutoff=0.6)
    hint = f" (did you mean '{lowered[match[0]]}'?)" if match else ""
    return f"unknown config key '{name}'{hint}; valid keys: {', '.join(KEY_NAMES)}"


def reference_table() -> str:
    """The README's config reference (Markdown), generated so it cannot drift from ``KEYS``."""
    lines = [
        "| key | default | accepted | env var | what it does |",
        "| --- | --- | --- | --- | --- |",
    ]
    for spec in KEYS:
        default = spec.display(spec.default)
        accepted = spec.accepted() if spec.kind != "backend" else "a backend id or auto"
        accepted = accepted.replace("|", "\\|")
        lines.append(
            f"| `{spec.name}` | `{default}` | {accepted} | `{spec.env_var}` | {spec.description} |"
        )
    return "\n".join(lines)
