"""Claude Code (``claude``): ``-p --output-format stream-json --verbose``, prompt on stdin.

Facts from backends.md §2, §3, §5.1: stream-json with ``-p`` needs ``--verbose``;
the last event is ``result``; failures (auth, network, limits) come back as
``subtype:"success"`` with ``is_error:true`` and often exit 1, sometimes 0, so
the result is keyed on ``is_error``, never on the exit code alone.
``--permission-mode bypassPermissions`` is refused as root unless
``IS_SANDBOX=1``, which is set only when running as root with ``full``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from jlgcli.backends.base import Availability, BackendRequest, BackendResult, ErrorKind
from jlgcli.backends.common import find_auth_error
from jlgcli.backends.probing import AuthVerdict, CliInfo, ProbeContext, probe_cli, run_quietly
from jlgcli.backends.resets import epoch_seconds
from jlgcli.backends.stream import JsonStreamParser, short
from jlgcli.process.model import Invocation, ProcessOutcome

INFO = CliInfo(
    id="claude",
    executable="claude",
    install_hint="npm install -g @anthropic-ai/claude-code",
    login_hint="claude auth login (or set ANTHROPIC_API_KEY)",
    minimum=(2, 0, 0),  # stream-json events as parsed here
    npm_package="@anthropic-ai/claude-code",
    update_hint="claude update (or npm install -g @anthropic-ai/claude-code@latest)",
)
AUTH_STATUS_SINCE = (2, 1, 41)  # `claude auth status` shipped in 2.1.41
PERMISSION_MODES = {"read-only": "plan", "edit": "acceptEdits", "full": "bypassPermissions"}
_AUTH_ERRORS = ("authentication_failed", "oauth_org_not_allowed")


_GETEUID: Callable[[], int] | None = getattr(os, "geteuid", None)  # absent on Windows


def running_as_root(geteuid: Callable[[], int] | None = _GETEUID) -> bool:
    """Whether this process runs as root (never on Windows, which has no ``geteuid``)."""
    return geteuid is not None and geteuid() == 0


def check_login(ctx: ProbeContext) -> AuthVerdict:
    """``claude auth status`` prints JSON with ``loggedIn``; only that field decides."""
    if ctx.version is not None and ctx.version < AUTH_STATUS_SINCE:
        return AuthVerdict("ok", "login not checked (`claude auth status` needs claude 2.1.41+)")
    answer = run_quietly([ctx.executable, "auth", "status"], deadline=ctx.deadline)
    if answer is None or answer.timed_out:
        return AuthVerdict("unknown", "`claude auth status` did not answer in time")
    data = _json_object(answer.stdout)
    logged_in = data.get("loggedIn") if data else None
    if isinstance(logged_in, bool):
        method = data.get("authMethod") if data else None
        if logged_in:
            return AuthVerdict("ok", f"logged in ({method})" if method else "logged in")
        return AuthVerdict("missing", "not logged in (`claude auth status`)")
    if find_auth_error(answer.stdout + answer.stderr):
        return AuthVerdict("missing", "not logged in (`claude auth status`)")
    return AuthVerdict("unknown", f"`claude auth status` gave no answer (exit {answer.exit_code})")


def _json_object(text: str) -> dict[str, Any] | None:
    start = text.find("{")
    if start == -1:
        return None
    try:
        data = json.loads(text[start:])
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


class ClaudeBackend:
    """The ``claude`` backend."""

    id = "claude"

    def __init__(self, *, is_root: Callable[[], bool] = running_as_root) -> None:
        self._is_root = is_root

    def probe(self, timeout: float = 2.0) -> Availability:
        """Installed, version ≥ 2.0.0, ``claude auth status`` says logged in."""
        return probe_cli(INFO, check_login, timeout=timeout)

    def invocation(self, request: BackendRequest) -> Invocation:
        """``claude -p --output-format stream-json --verbose [...]`` with the prompt on stdin."""
        argv = ["claude", "-p", "--output-format", "stream-json", "--verbose"]
        if request.model:
            argv += ["--model", request.model]
        if request.permissions:
            argv += ["--permission-mode", PERMISSION_MODES[request.permissions]]
        if request.resume_session:
            argv += ["--resume", request.resume_session]
        argv += request.extra_args
        env = {}
        if request.permissions == "full" and self._is_root():
            env["IS_SANDBOX"] = "1"  # claude refuses bypassPermissions as root otherwise
        return Invocation(argv=tuple(argv), cwd=request.cwd, env=env, stdin=request.prompt)

    def parser(self) -> ClaudeParser:
        """A fresh stream-json parser."""
        return ClaudeParser()


class ClaudeParser(JsonStreamParser):
    """``system/init`` → (``assistant`` | ``user`` | ``system/*`` | rate limits)* → ``result``."""

    cli = "claude"
    output_format = "stream-json events"

    def __init__(self) -> None:
        super().__init__()
        self.last_text = ""
        self.final: dict[str, Any] | None = None
        self.assistant_error: str | None = None

    def on_event(self, event: dict[str, Any]) -> str:
        kind = event.get("type")
        if isinstance(event.get("session_id"), str):
            self.session_id = event["session_id"]
        if kind == "assistant":
            return self._assistant(event)
        if kind == "system":
            return self._system(event)
        if kind == "rate_limit_event":
            return self._rate_limit(event.get("rate_limit_info"))
        if kind == "result":
            self.final = event
            self._usage(event)
        return ""

    def _assistant(self, event: dict[str, Any]) -> str:
        message = event.get("message") if isinstance(event.get("message"), dict) else {}
        content = message.get("content") if isinstance(message, dict) else None
        texts, notes = [], []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif block.get("type") == "tool_use":
                notes.append(f"[tool] {block.get('name', 'tool')} {short(_tool_input(block), 120)}")
        text = "".join(texts)
        if isinstance(event.get("error"), str):
            self.assistant_error = event["error"]
            self.note_error(text or event["error"])
        elif text.strip():
            self.last_text = text
        shown = ([text.rstrip("\n")] if text.strip() else []) + notes
        return "".join(line.rstrip() + "\n" for line in shown)

    def _system(self, event: dict[str, Any]) -> str:
        subtype = event.get("subtype")
        if subtype == "init":
            for key in ("model", "apiKeySource", "claude_code_version"):
                if isinstance(event.get(key), str):
                    self.extra[key] = event[key]
            return ""
        if subtype == "api_retry":
            error = str(event.get("error_status") or event.get("error") or "error")
            self.note_error(f"API retry: {error}")
            delay = event.get("retry_delay_ms")
            wait = f" in {float(delay) / 1000:.1f}s" if isinstance(delay, (int, float)) else ""
            return (
                f"[claude] API error ({error}), retry {event.get('attempt', '?')}/"
                f"{event.get('max_retries', '?')}{wait}\n"
            )
        if subtype == "api_error":
            self.note_error(f"API error: {event.get('error', '')}")
        return ""

    def _rate_limit(self, info: object) -> str:
        if not isinstance(info, dict):
            return ""
        status = info.get("status")
        if status == "rejected":
            self.note_rate_limit(None, epoch_seconds(info.get("resetsAt")))
            return "[claude] usage limit reached\n"
        if status == "allowed_warning":
            return "[claude] close to the usage limit\n"
        return ""

    def _usage(self, event: dict[str, Any]) -> None:
        cost = event.get("total_cost_usd")
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            self.cost_usd = float(cost)
        usage = event.get("usage")
        if isinstance(usage, dict) and isinstance(usage.get("input_tokens"), int):
            # input_tokens excludes cache reads/writes; sum them so it compares with codex's.
            cache_keys = ("cache_creation_input_tokens", "cache_read_input_tokens")
            cached = sum(usage[k] for k in cache_keys if isinstance(usage.get(k), int))
            self.input_tokens = usage["input_tokens"] + cached
        if isinstance(usage, dict) and isinstance(usage.get("output_tokens"), int):
            self.output_tokens = usage["output_tokens"]
        for key in ("num_turns", "terminal_reason", "subtype"):
            if isinstance(event.get(key), (str, int)) and not isinstance(event.get(key), bool):
                self.extra[key] = str(event[key])

    def classify(self, outcome: ProcessOutcome) -> BackendResult:
        final = self.final
        if final is None:
            return self.unfinished(outcome)
        subtype = final.get("subtype")
        result_text = final.get("result") if isinstance(final.get("result"), str) else None
        if final.get("is_error") is not True and subtype == "success":
            return self.result(
                outcome, ok=True, text=result_text if result_text is not None else self.last_text
            )
        errors = final.get("errors")
        message = (
            result_text
            or ("; ".join(str(e) for e in errors) if isinstance(errors, list) else "")
            or f"claude reported {subtype or 'an error'}"
        )
        return self.failure(outcome, message, self._kind(message))

    def _kind(self, message: str) -> ErrorKind:
        if self.assistant_error in _AUTH_ERRORS:
            return "auth"
        if self.assistant_error == "rate_limit":
            self.note_rate_limit(message)
            return "rate-limit"
        return self.error_kind_of(message)


def _tool_input(block: dict[str, Any]) -> str:
    data = block.get("input")
    if not isinstance(data, dict):
        return ""
    for key in ("command", "file_path", "path", "pattern", "url", "description"):
        if isinstance(data.get(key), str):
            return str(data[key])
    return ""
