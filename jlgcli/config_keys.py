"""The configuration keys (seed 000 F-001, seed 001 §12.2): names, bounds, defaults, parsing.

Plain data and small parsers, no pydantic: ``jlgcli config get`` must stay
fast (pydantic costs ≈ 150 ms to import here). ``jlgcli.settings.Settings`` is
the pydantic model of the same keys used by the runner; a test checks that the
two agree, and the README's config reference is generated from this table.
"""

from __future__ import annotations

from collections.abc import Callable

from jlgcli.backends.ids import BUILTIN_BACKENDS, SPECIAL_BACKENDS
from jlgcli.durations import (
    DurationError,
    DurationOutOfRangeError,
    format_duration_setting,
    parse_duration_ms,
)
from jlgcli.input_limits import clipped

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

COMPLETION_MODES = ("marker", "json", "rebound")
# How rebound scripts are isolated: the best level here, only a full one, or one level.
ISOLATION_CHOICES = ("best", "strict", "bubblewrap", "unshare", "unprivileged-user", "none")
PERMISSION_LEVELS = ("read-only", "edit", "full")


class ValueProblemError(ValueError):
    """A value that does not fit its key; the message names the accepted values."""


class KeySpec:
    """One configuration key (a plain class: ``dataclasses`` imports ``inspect``, ~5 ms)."""

    __slots__ = (
        "choices",
        "default",
        "description",
        "example",
        "flag",
        "kind",
        "maximum",
        "minimum",
        "name",
    )

    def __init__(
        self,
        name: str,
        kind: str,  # "backend" | "int" | "duration" | "choice" | "bool" | "path" | "backends"
        # | "commands" | "money" | "targets"
        default: Any,
        description: str,
        example: str,
        *,
        flag: str,
        minimum: int | None = None,
        maximum: int | None = None,
        choices: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        self.kind = kind
        self.default = default
        self.description = description
        self.example = example
        self.flag = flag  # the run/loop flag that sets it, named in usage errors
        self.minimum = minimum
        self.maximum = maximum
        self.choices = choices

    def __repr__(self) -> str:
        return f"KeySpec({self.name!r}, {self.kind!r})"

    def display(self, value: Any) -> str:
        """``value`` as people write it: ``30m`` for a duration, ``true``/``false``."""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, list):
            return ", ".join(value) if self.kind == "backends" else " ; ".join(value) or "none"
        if self.kind == "money":
            return f"{value:g}" if value else "0 (no limit)"
        if self.kind == "duration" and isinstance(value, int):
            return format_duration_setting(value)
        return str(value)

    @property
    def env_var(self) -> str:
        """``maxIterations`` → ``JLGCLI_MAX_ITERATIONS``."""
        snake = "".join(f"_{c}" if c.isupper() else c for c in self.name)
        return "JLGCLI_" + snake.upper()

    def accepted(self) -> str:
        """The accepted values, in words, for error messages."""
        if self.kind == "duration":
            lower = format_duration_setting(self.minimum or 0)
            upper = format_duration_setting(self.maximum) if self.maximum is not None else "any"
            return f"{lower} to {upper}"
        if self.kind == "int":
            upper = f"{self.maximum}" if self.maximum is not None else "no limit"
            return f"{self.minimum} to {upper}"
        if self.choices:
            return " | ".join(self.choices)
        if self.kind == "bool":
            return "true | false"
        if self.kind == "backends":
            return "backend ids, comma-separated"
        if self.kind == "commands":
            return "a command, or a JSON list of commands"
        if self.kind == "money":
            return "dollars, 0 for no limit"
        if self.kind == "targets":
            return "desktop or webhook:URL, or a JSON list of them"
        return "a path"

    def parse(self, raw: Any, *, custom_backends: tuple[str, ...] = ()) -> Any:
        """The typed value of ``raw`` (from a flag, env var, file or ``config set``)."""
        return _PARSERS[self.kind](self, raw, custom_backends)


def _parse_int(spec: KeySpec, raw: Any, _custom: tuple[str, ...]) -> int:
    if isinstance(raw, bool):
        raise ValueProblemError(f"expected a whole number ({spec.accepted()})")
    try:
        value = int(str(raw).strip()) if not isinstance(raw, int) else raw
    except ValueError:  # also past Python's 4,300 digits
        text = str(raw).strip().lstrip("+-")
        if text.isdigit():
            raise ValueProblemError(_out_of_range(spec, raw)) from None
        message = f"'{clipped(raw)}' is not a whole number; accepted: {spec.accepted()}"
        raise ValueProblemError(message) from None
    return _bounded(spec, value)


def _parse_duration(spec: KeySpec, raw: Any, _custom: tuple[str, ...]) -> int:
    try:
        value = parse_duration_ms(raw)
    except DurationOutOfRangeError:
        raise ValueProblemError(_out_of_range(spec, raw)) from None
    except DurationError as exc:
        raise ValueProblemError(str(exc)) from None
    return _bounded(spec, value)


def _bounded(spec: KeySpec, value: int) -> int:
    if (spec.minimum is not None and value < spec.minimum) or (
        spec.maximum is not None and value > spec.maximum
    ):
        raise ValueProblemError(_out_of_range(spec, spec.display(value)))
    return value


def _out_of_range(spec: KeySpec, shown: object) -> str:
    return f"{clipped(shown)} is out of range; accepted: {spec.accepted()}"


def _parse_choice(spec: KeySpec, raw: Any, _custom: tuple[str, ...]) -> str:
    value = str(raw).strip()
    if value not in spec.choices:
        raise ValueProblemError(f"'{value}' is not one of {spec.accepted()}")
    return value


def _parse_backend(spec: KeySpec, raw: Any, custom: tuple[str, ...]) -> str:
    from jlgcli.backends.ids import known_backend_ids

    known = known_backend_ids(custom)
    value = str(raw).strip()
    if value not in known:
        raise ValueProblemError(
            f"'{value}' is not a known backend{_closest(value, known)}; known: {', '.join(known)}"
        )
    return value


def _parse_bool(spec: KeySpec, raw: Any, _custom: tuple[str, ...]) -> bool:
    if isinstance(raw, bool):
        return raw
    value = str(raw).strip().lower()
    if value in ("true", "1", "yes", "on"):
        return True
    if value in ("false", "0", "no", "off"):
        return False
    raise ValueProblemError(f"'{raw}' is not a boolean; accepted: {spec.accepted()}")


def _parse_path(spec: KeySpec, raw: Any, _custom: tuple[str, ...]) -> str:
    value = str(raw).strip()
    if not value or "\x00" in value:
        raise ValueProblemError("expected a non-empty path")
    return value


def _parse_backends(spec: KeySpec, raw: Any, custom: tuple[str, ...]) -> list[str]:
    items = raw if isinstance(raw, list) else str(raw).split(",")
    names = [str(item).strip() for item in items if str(item).strip()]
    return [_parse_backend(spec, name, custom) for name in names]


def _parse_commands(spec: KeySpec, raw: Any, _custom: tuple[str, ...]) -> list[str]:
    if isinstance(raw, str) and raw.strip().startswith("["):
        import json

        try:
            raw = json.loads(raw)
        except ValueError:
            raise ValueProblemError("a list of commands must be valid JSON") from None
    items = raw if isinstance(raw, list) else [raw]
    if not all(isinstance(item, str) for item in items):
        raise ValueProblemError("expected a command (a string) or a list of commands")
    return [item.strip() for item in items if item.strip()]


def _parse_money(spec: KeySpec, raw: Any, _custom: tuple[str, ...]) -> float:
    try:
        value = float(str(raw).strip().lstrip("$")) if not isinstance(raw, bool) else -1.0
    except ValueError:
        value = -1.0
    if value == float("inf"):  # 1e400, or 400 digits: a number, too large for a float
        raise ValueProblemError(_out_of_range(spec, raw))
    if not value >= 0:  # also refuses NaN
        raise ValueProblemError(f"'{clipped(raw)}' is not an amount of dollars ({spec.accepted()})")
    return value


def notify_target_problem(target: str) -> str | None:
    """Why ``target`` is not a notification target (``desktop``, ``webhook:http(s)://…``)."""
    if target == "desktop":
        return None
    if not target.startswith("webhook:"):
        return f"'{target}' is not a notification target (desktop or webhook:URL)"
    url = target[len("webhook:") :]
    scheme, _, rest = url.partition("://")
    if scheme.lower() not in ("http", "https") or not rest.split("/", 1)[0]:
        return f"'{url}' is not an http:// or https:// address"
    if any(ord(char) < 33 or ord(char) == 127 for char in url):
        return f"'{url}' holds spaces or control characters"
    return None


def _parse_targets(spec: KeySpec, raw: Any, _custom: tuple[str, ...]) -> list[str]:
    items = _parse_commands(spec, raw, _custom)  # one target, or a JSON list of them
    for item in items:
        if problem := notify_target_problem(item):
            raise ValueProblemError(problem)
    return items


_PARSERS: dict[str, Callable[[KeySpec, Any, tuple[str, ...]], Any]] = {
    "int": _parse_int,
    "duration": _parse_duration,
    "choice": _parse_choice,
    "backend": _parse_backend,
    "bool": _parse_bool,
    "path": _parse_path,
    "backends": _parse_backends,
    "commands": _parse_commands,
    "money": _parse_money,
    "targets": _parse_targets,
}

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


def _closest(value: str, candidates: tuple[str, ...]) -> str:
    import difflib  # only on a miss: it costs ~1 ms at start-up

    match = difflib.get_close_matches(value, candidates, n=1, cutoff=0.6)
    return f" (did you mean '{match[0]}'?)" if match else ""


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
