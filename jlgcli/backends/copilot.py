"""GitHub Copilot CLI (``copilot``): prompt on stdin, JSONL output, ``--allow-all-tools``.

Facts from backends.md §2, §3, §5.4: with no ``-p`` copilot reads the prompt
from stdin ("Piped input is ignored if you also provide a prompt with -p");
``--allow-all-tools`` is required headless; the JSONL session events end with
``{"type":"result","exitCode":…}``; a missing login is plain text on stderr
(``Error: No authentication information found.``) with no JSON at all. There
is no status command, so the probe looks for a token variable, copilot's own
stored login (``config.json``) or a GitHub CLI login.

Limits (backends.md §8, §10, issues 16 and 48): ``session.error`` carries
``data.errorCode`` (``user_weekly_rate_limited`` …), ``errorType`` (``quota``,
``rate_limit``, ``authentication`` …) and ``statusCode``, read in that order to
decide the kind, and ``remediation`` (the hint jlgcli gives); auth
failures before the session starts are plain text on stderr ("Error:
Authentication token found but could not be validated."). A long
``assistant.message`` may come in chunks (``chunkIndex``/``chunkCount``): they
are joined.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jlgcli.backends.base import Availability, BackendRequest, BackendResult
from jlgcli.backends.cli_facts import COPILOT
from jlgcli.backends.limits import structured_verdict
from jlgcli.backends.probing import (
    AuthVerdict,
    ProbeContext,
    first_set,
    home_dir,
    probe_cli,
    read_json_file,
)
from jlgcli.backends.stream import JsonStreamParser, short
from jlgcli.process.model import Invocation, ProcessOutcome

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.backends.limits import LimitKind

INFO = COPILOT
# session.error data.errorType values that decide the kind (copilot-sdk session-events.ts).
ERROR_TYPES: dict[str, LimitKind] = {
    "quota": "quota",
    "rate_limit": "rate-limit",
    "authentication": "auth",
    "authorization": "auth",  # no seat, or a policy forbids it (cli-main.js, backends.md §9)
}
# session.error data.errorCode (1.0.102 schemas/session-events.schema.json, backends.md §10):
# read before errorType, which may be broader (a weekly limit is errorType "rate_limit").
ERROR_CODES: dict[str, LimitKind] = {
    "user_weekly_rate_limited": "rate-limit",
    "session_quota_exceeded": "quota",
    "billing_not_configured": "account",  # the user must set billing up: its remediation says how
}
# session.error data.statusCode where neither code nor type decides.
STATUS_CODES: dict[int, LimitKind] = {
    401: "auth",
    402: "quota",
    429: "rate-limit",
    502: "overloaded",
    503: "overloaded",
    529: "overloaded",
}
TOKEN_VARIABLES = ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")  # copilot's precedence
# --allow-all-tools is required headless; the denials narrow it. MCP tools (the built-in
# GitHub MCP server too) stay allowed unless denied (backends.md §9), so read-only and edit
# disable the built-in servers and every server named in copilot's own MCP config
# (docs.github.com "GitHub Copilot CLI command reference": --disable-builtin-mcps,
# --disable-mcp-server NAME; --deny-tool shell|write|url).
_NO_SHELL = ("--deny-tool", "shell", "--deny-tool", "url", "--disable-builtin-mcps")
PERMISSION_FLAGS: dict[str, tuple[str, ...]] = {
    "read-only": ("--allow-all-tools", "--deny-tool", "write", *_NO_SHELL),
    "edit": ("--allow-all-tools", *_NO_SHELL),
    "full": ("--allow-all",),
}
# copilot updates itself during a run unless told not to (backends.md §9).
PINNED = ("--no-auto-update",)


def gh_config_dirs(env: Mapping[str, str], *, is_windows: bool = os.name == "nt") -> list[Path]:
    """Where the GitHub CLI keeps ``hosts.yml`` (``GH_CONFIG_DIR`` first)."""
    if env.get("GH_CONFIG_DIR"):
        return [Path(env["GH_CONFIG_DIR"])]
    if is_windows and env.get("APPDATA"):
        return [Path(env["APPDATA"]) / "GitHub CLI"]
    xdg = env.get("XDG_CONFIG_HOME")
    return [Path(xdg) / "gh"] if xdg else [home_dir(env) / ".config" / "gh"]


def mcp_server_names(env: Mapping[str, str], cwd: Path) -> list[str]:
    """The MCP servers copilot would load: its own ``mcp-config.json`` and the project's
    ``.mcp.json`` (names only; a server is switched off, never started, by what is read)."""
    copilot_home = (
        Path(env["COPILOT_HOME"]) if env.get("COPILOT_HOME") else home_dir(env) / ".copilot"
    )
    names: list[str] = []
    for path in (copilot_home / "mcp-config.json", cwd / ".mcp.json"):
        config = read_json_file(path)
        servers = config.get("mcpServers") if isinstance(config, dict) else None
        if isinstance(servers, dict):
            names += [n for n in servers if isinstance(n, str) and n.strip() and n[0] != "-"]
    return list(dict.fromkeys(names))


def check_login(ctx: ProbeContext) -> AuthVerdict:
    """A token variable, copilot's stored login, a GitHub CLI login, or BYOK; no process run."""
    env = ctx.env
    variable = first_set(env, TOKEN_VARIABLES)
    if variable is not None:
        if env[variable].strip().startswith("ghp_"):
            return AuthVerdict(
                "missing", f"{variable} holds a classic token (ghp_), which copilot does not accept"
            )
        return AuthVerdict("ok", f"{variable} is set")
    if first_set(env, ("COPILOT_PROVIDER_BASE_URL",)):
        return AuthVerdict("ok", "a BYOK provider is configured (COPILOT_PROVIDER_BASE_URL)")
    copilot_home = (
        Path(env["COPILOT_HOME"]) if env.get("COPILOT_HOME") else home_dir(env) / ".copilot"
    )
    config = read_json_file(copilot_home / "config.json")
    if isinstance(config, dict):
        users = config.get("loggedInUsers") or config.get("logged_in_users")
        if isinstance(users, list) and users:
            return AuthVerdict("ok", "logged in (copilot login)")
    for folder in gh_config_dirs(env):
        try:
            hosts = (folder / "hosts.yml").read_text(encoding="utf-8")
        except OSError:
            continue
        if "oauth_token:" in hosts or "user:" in hosts:
            return AuthVerdict("ok", "GitHub CLI login found (gh auth)")
    return AuthVerdict("missing", "no token variable, copilot login or GitHub CLI login found")


class CopilotBackend:
    """The ``copilot`` backend."""

    id = "copilot"

    def probe(self, timeout: float = 2.0) -> Availability:
        """Installed, version ≥ 1.0.0, a token/login present (checked without running copilot)."""
        from jlgcli.backends.node_engine import with_node_check

        return with_node_check(INFO, probe_cli(INFO, check_login, timeout=timeout))

    def invocation(self, request: BackendRequest) -> Invocation:
        """``copilot --output-format json --no-color <permissions> [...]``, prompt on stdin."""
        argv = ["copilot", "--output-format", "json", "--no-color", *PINNED]
        permissions = request.permissions or "edit"
        argv += PERMISSION_FLAGS[permissions]
        if permissions != "full":
            for name in mcp_server_names(os.environ, Path(request.cwd)):
                argv += ["--disable-mcp-server", name]
        if request.model:
            argv += ["--model", request.model]
        if request.resume_session:
            argv.append(f"--resume={request.resume_session}")
        argv += request.extra_args
        env = {"COPILOT_AUTO_UPDATE": "false"}
        return Invocation(argv=tuple(argv), cwd=request.cwd, env=env, stdin=request.prompt)

    def parser(self) -> CopilotParser:
        """A fresh JSONL session-event parser."""
        return CopilotParser()


class CopilotParser(JsonStreamParser):
    """Session events (``assistant.message``, ``tool.execution_start`` …) then ``result``."""

    cli = "copilot"
    output_format = "JSON session events"

    def __init__(self) -> None:
        super().__init__()
        self.final_text = ""
        self.streamed: set[str] = set()  # message ids already shown through deltas
        self.final: dict[str, Any] | None = None
        self.session_errors: list[str] = []
        self.session_error_kind: LimitKind | None = None  # what the last session.error's fields say
        self.message_id: str | None = None  # the assistant.message being assembled
        self.message_chunks: list[str] = []
        self.tools: dict[str, tuple[str, str]] = {}  # toolCallId → (name, target)
        self.failed_tool: tuple[str, str] | None = None

    def on_event(self, event: dict[str, Any]) -> str:
        kind = event.get("type")
        data = event.get("data") if isinstance(event.get("data"), dict) else {}
        assert isinstance(data, dict)
        if kind == "assistant.message_delta":
            self.streamed.add(str(data.get("messageId")))
            return str(data.get("deltaContent", ""))
        if kind == "assistant.message":
            return self._message(data)
        if kind == "tool.execution_start":
            self.tool_called(data.get("toolName"), data.get("arguments"))
            self.tools[str(data.get("toolCallId"))] = (
                str(data.get("toolName") or "tool"), _arguments(data),
            )  # fmt: skip
            return f"[tool] {data.get('toolName', 'tool')} {short(_arguments(data), 120)}\n"
        if kind == "session.error":
            message = str(data.get("message") or data.get("errorType") or "session error")
            self.session_errors.append(message)
            self.session_error_kind = _error_kind(data)
            if isinstance(data.get("remediation"), str) and data["remediation"].strip():
                self.remedy = short(data["remediation"], 500)
            if isinstance(data.get("eligibleForAutoSwitch"), bool):
                self.extra["eligible_for_auto_switch"] = str(data["eligibleForAutoSwitch"]).lower()
            self.note_error(message)
            return f"[copilot] error: {short(message)}\n"
        if kind == "tool.execution_complete" and data.get("success") is False:
            self.failed_tool = self.tools.get(str(data.get("toolCallId")), ("tool", ""))
            if _is_denial(data):
                self.denied(*self.failed_tool)
                self.failed_tool = None
            return ""
        if kind == "session.warning" and self.failed_tool is not None:
            if "permission denied" in str(data.get("message", "")).lower():
                self.denied(*self.failed_tool)  # cli-main.js: the warning after a refused tool
            self.failed_tool = None
        if kind == "session.warning":
            return f"[copilot] warning: {short(str(data.get('message', '')))}\n"
        if kind == "session.start" and isinstance(data.get("sessionId"), str):
            self.session_id = data["sessionId"]
        if kind == "result":
            self._result(event)
        return ""

    def _message(self, data: dict[str, Any]) -> str:
        content = data.get("content") if isinstance(data.get("content"), str) else ""
        assert isinstance(content, str)
        message_id = str(data.get("messageId"))
        index = data.get("chunkIndex")
        continued = message_id == self.message_id and (isinstance(index, int) and index > 0)
        if not continued:
            self.message_id, self.message_chunks = message_id, []
        self.message_chunks.append(content)
        whole = "".join(self.message_chunks)
        if not data.get("toolRequests") and whole.strip():
            self.final_text = whole
        last_chunk = not isinstance(data.get("chunkCount"), int) or index == data["chunkCount"] - 1
        if message_id in self.streamed:
            return "\n" if last_chunk and content and not content.endswith("\n") else ""
        if not content.strip():
            return ""
        return content if not last_chunk else content.rstrip("\n") + "\n"

    def _result(self, event: dict[str, Any]) -> None:
        self.final = event
        if isinstance(event.get("sessionId"), str):
            self.session_id = event["sessionId"]
        usage = event.get("usage")
        if isinstance(usage, dict) and isinstance(usage.get("premiumRequests"), (int, float)):
            self.extra["premium_requests"] = str(usage["premiumRequests"])
        if event.get("outcome"):
            self.extra["outcome"] = str(event["outcome"])

    def classify(self, outcome: ProcessOutcome) -> BackendResult:
        final = self.final
        kind = self.session_error_kind
        message = self.session_errors[-1] if self.session_errors else ""
        if final is None and kind is None:
            return self.unfinished(outcome)
        blocked = final is not None and final.get("outcome") == "blocked"
        succeeded = final is not None and final.get("exitCode") == 0 and outcome.exit_code == 0
        if succeeded and not blocked:
            return self.result(outcome, ok=True, text=self.final_text)
        if kind is not None:  # also when the stream ended without its result
            verdict = structured_verdict(kind, message)
            return self.verdict_failure(outcome, verdict, short(message, 500))
        assert final is not None
        if blocked:
            blocker = str(final.get("blocker") or "no reason given")
            return self.failure_from(outcome, message or f"copilot was blocked: {short(blocker)}")
        if message:
            return self.failure_from(outcome, message)
        return self.failure(
            outcome,
            f"copilot reported exit code {final.get('exitCode')}: {self._last_words()}",
            "backend",
        )


def _error_kind(data: dict[str, Any]) -> LimitKind | None:
    """The kind ``session.error``'s structured fields decide: errorCode, errorType, statusCode."""
    kind = ERROR_CODES.get(str(data.get("errorCode") or "")) or ERROR_TYPES.get(
        str(data.get("errorType") or "")
    )
    status = data.get("statusCode")
    if kind is None and isinstance(status, int) and not isinstance(status, bool):
        kind = STATUS_CODES.get(status)
    return kind


def _arguments(data: dict[str, Any]) -> str:
    arguments = data.get("arguments")
    if isinstance(arguments, dict):
        for key in ("command", "path", "pattern", "url", "description"):
            if isinstance(arguments.get(key), str):
                return str(arguments[key])
        return ""
    return str(arguments) if isinstance(arguments, str) else ""


def _is_denial(data: dict[str, Any]) -> bool:
    """``tool.execution_complete`` with ``success:false`` whose error says permission."""
    error = data.get("error")
    said = str(error.get("message") if isinstance(error, dict) else error or "")
    return "denied" in said.lower() or "permission" in said.lower()
