"""GitHub Copilot CLI (``copilot``): prompt on stdin, JSONL output, ``--allow-all-tools``.

Facts from backends.md §2, §3, §5.4: with no ``-p`` copilot reads the prompt
from stdin ("Piped input is ignored if you also provide a prompt with -p");
``--allow-all-tools`` is required headless; the JSONL session events end with
``{"type":"result","exitCode":…}``; a missing login is plain text on stderr
(``Error: No authentication information found.``) with no JSON at all. There
is no status command, so the probe looks for a token variable, copilot's own
stored login (``config.json``) or a GitHub CLI login.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jlgcli.backends.base import Availability, BackendRequest, BackendResult
from jlgcli.backends.probing import (
    AuthVerdict,
    CliInfo,
    ProbeContext,
    first_set,
    home_dir,
    probe_cli,
    read_json_file,
)
from jlgcli.backends.stream import JsonStreamParser, short
from jlgcli.process.model import Invocation, ProcessOutcome

INFO = CliInfo(
    id="copilot",
    executable="copilot",
    install_hint="npm install -g @github/copilot",
    login_hint="copilot login (or set COPILOT_GITHUB_TOKEN to a fine-grained token "
    "with the Copilot Requests permission)",
    minimum=(1, 0, 0),  # `--output-format json` session events
    npm_package="@github/copilot",
    update_hint="copilot update (or npm install -g @github/copilot@latest)",
)
TOKEN_VARIABLES = ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")  # copilot's precedence
PERMISSION_FLAGS: dict[str, tuple[str, ...]] = {
    "read-only": ("--allow-all-tools", "--deny-tool", "write", "--deny-tool", "shell"),
    "edit": ("--allow-all-tools",),
    "full": ("--allow-all",),
}


def gh_config_dirs(env: Mapping[str, str], *, is_windows: bool = os.name == "nt") -> list[Path]:
    """Where the GitHub CLI keeps ``hosts.yml`` (``GH_CONFIG_DIR`` first)."""
    if env.get("GH_CONFIG_DIR"):
        return [Path(env["GH_CONFIG_DIR"])]
    if is_windows and env.get("APPDATA"):
        return [Path(env["APPDATA"]) / "GitHub CLI"]
    xdg = env.get("XDG_CONFIG_HOME")
    return [Path(xdg) / "gh"] if xdg else [home_dir(env) / ".config" / "gh"]


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
        return probe_cli(INFO, check_login, timeout=timeout)

    def invocation(self, request: BackendRequest) -> Invocation:
        """``copilot --output-format json --no-color <permissions> [...]``, prompt on stdin."""
        argv = ["copilot", "--output-format", "json", "--no-color"]
        argv += PERMISSION_FLAGS[request.permissions or "edit"]
        if request.model:
            argv += ["--model", request.model]
        if request.resume_session:
            argv.append(f"--resume={request.resume_session}")
        argv += request.extra_args
        return Invocation(argv=tuple(argv), cwd=request.cwd, stdin=request.prompt)

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
            return f"[tool] {data.get('toolName', 'tool')} {short(_arguments(data), 120)}\n"
        if kind == "session.error":
            message = str(data.get("message") or data.get("errorType") or "session error")
            self.session_errors.append(message)
            self.note_error(message)
            return f"[copilot] error: {short(message)}\n"
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
        requests = data.get("toolRequests")
        if not requests and content.strip():
            self.final_text = content
        streamed = str(data.get("messageId")) in self.streamed
        if streamed:
            return "\n" if content and not content.endswith("\n") else ""
        return content.rstrip("\n") + "\n" if content.strip() else ""

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
        if final is None:
            return self.unfinished(outcome)
        if final.get("outcome") == "blocked":
            message = (
                f"copilot was blocked: {short(str(final.get('blocker') or 'no reason given'))}"
            )
            return self.failure(outcome, message, self.error_kind_of(message))
        if final.get("exitCode") == 0 and outcome.exit_code == 0:
            return self.result(outcome, ok=True, text=self.final_text)
        message = (self.session_errors[-1] if self.session_errors else "") or (
            f"copilot reported exit code {final.get('exitCode')}: {self._last_words()}"
        )
        return self.failure(outcome, message, self.error_kind_of(message))


def _arguments(data: dict[str, Any]) -> str:
    arguments = data.get("arguments")
    if isinstance(arguments, dict):
        for key in ("command", "path", "pattern", "url", "description"):
            if isinstance(arguments.get(key), str):
                return str(arguments[key])
        return ""
    return str(arguments) if isinstance(arguments, str) else ""
