"""What jlgcli knows about each agent CLI before running it (issue 18).

``CliInfo`` holds one CLI's facts: its executable, how to install, log in and
update it, the oldest supported version, its adapter class and whether it
reports what a call cost. ``BUILTIN_CLIS`` is the one table of built-in
backends: the registry's factories and ``--max-cost``'s check read it, so a
fifth CLI is one adapter module, one row here, its id in ``config/backend_ids.py``, a fake
and its tests (issue 34). What the adapter knows (flags, permission mapping,
session resume, signal tables) stays in its module. They live here, apart from the
adapters, so listing the backends on a machine where a CLI is not installed
imports nothing of its adapter (``registry.ListedBuiltin``): a CLI that is not
on PATH is reported ``missing`` from these facts alone, as ``probe_cli`` would.
"""

from __future__ import annotations

from jlgcli.backends.base import Availability
from jlgcli.records import record

__all__ = ["BUILTIN_CLIS", "CLAUDE", "CODEX", "COPILOT", "GEMINI", "CliInfo", "not_on_path"]


@record
class CliInfo:
    """What the probe needs to know about one agent CLI."""

    id: str
    executable: str
    install_hint: str
    login_hint: str
    minimum: tuple[int, int, int]
    npm_package: str | None = None
    update_hint: str | None = None
    # The first version with the login-check command: older ones are not checked, and
    # the check waits for the version (claude before 2.1.41 took `auth status` for a
    # prompt). None: the check is safe on any version and runs beside `--version`.
    login_check_since: tuple[int, int, int] | None = None
    adapter: str = ""  # the class in jlgcli/backends/<id>.py
    reports_cost: bool = False  # its output states what a call cost (--max-cost works)


def not_on_path(info: CliInfo) -> Availability:
    """The ``missing`` status of a CLI whose executable is not on PATH."""
    return Availability(
        info.id,
        "missing",
        detail=f"`{info.executable}` is not on PATH",
        hint=f"install it: {info.install_hint}",
    )


CLAUDE = CliInfo(
    id="claude",
    adapter="ClaudeBackend",
    executable="claude",
    install_hint="npm install -g @anthropic-ai/claude-code",
    login_hint="claude auth login (or set ANTHROPIC_API_KEY)",
    minimum=(2, 0, 0),  # stream-json events as parsed here
    npm_package="@anthropic-ai/claude-code",
    update_hint="claude update (or npm install -g @anthropic-ai/claude-code@latest)",
    login_check_since=(2, 1, 41),  # `claude auth status`; older ones take it for a prompt
    reports_cost=True,  # result.total_cost_usd (backends.md §5.1)
)

CODEX = CliInfo(
    id="codex",
    adapter="CodexBackend",
    executable="codex",
    install_hint="npm install -g @openai/codex",
    login_hint="codex login (or: printenv OPENAI_API_KEY | codex login --with-api-key)",
    minimum=(0, 50, 0),  # `exec --json` with thread/turn/item events, `login status`
    npm_package="@openai/codex",
    update_hint="npm install -g @openai/codex@latest",
    # login_check_since unset: `codex login status` runs beside `--version`. Without a
    # package.json the CLI is the native (Rust) codex, whose unknown arguments are errors.
)

COPILOT = CliInfo(
    id="copilot",
    adapter="CopilotBackend",
    executable="copilot",
    install_hint="npm install -g @github/copilot",
    login_hint="copilot login (or set COPILOT_GITHUB_TOKEN to a fine-grained token "
    "with the Copilot Requests permission)",
    minimum=(1, 0, 0),  # `--output-format json` session events
    npm_package="@github/copilot",
    update_hint="copilot update (or npm install -g @github/copilot@latest)",
)

GEMINI = CliInfo(
    id="gemini",
    adapter="GeminiBackend",
    executable="gemini",
    install_hint="npm install -g @google/gemini-cli",
    login_hint='set GEMINI_API_KEY, or run `gemini` once and choose "Login with Google"',
    minimum=(0, 20, 0),  # stream-json events, --approval-mode
    npm_package="@google/gemini-cli",
    update_hint="npm install -g @google/gemini-cli@latest",
)

BUILTIN_CLIS: dict[str, CliInfo] = {info.id: info for info in (CLAUDE, CODEX, COPILOT, GEMINI)}
