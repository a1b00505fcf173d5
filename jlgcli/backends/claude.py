"""Claude Code (``claude``): ``-p --output-format stream-json --verbose``, prompt on stdin.

Facts from backends.md §2, §3, §5.1: stream-json with ``-p`` needs ``--verbose``;
the last event is ``result``; failures (auth, network, limits) come back as
``subtype:"success"`` with ``is_error:true`` and often exit 1, sometimes 0, so
the result is keyed on ``is_error``, never on the exit code alone.
``--permission-mode bypassPermissions`` is refused as root unless
``IS_SANDBOX=1``, which is set only when running as root with ``full``.

Limits (backends.md §8, issue 16): a ``rate_limit_event`` with
``status:"rejected"`` and ``isUsingOverage:true`` means the turn goes on,
billed as extra usage (not a limit); ``assistant.error`` names the failure
(``rate_limit``, ``billing_error``, ``authentication_failed`` …). claude older
than 2.1.45 has no ``rate_limit_event`` and 2.0.x no ``assistant.error``: for
those the result text is matched ("5-hour limit reached ∙ resets 3pm"), and
``jlgcli backends`` says so.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from jlgcli.backends.base import Availability, BackendRequest, BackendResult
from jlgcli.backends.cli_facts import CLAUDE
from jlgcli.backends.common import format_version, parse_version
from jlgcli.backends.limits import find_auth_error, structured_verdict
from jlgcli.backends.probing import (
    AuthVerdict,
    ProbeContext,
    broken_verdict,
    login_left_to_the_call,
    probe_cli,
)
from jlgcli.backends.resets import epoch_seconds
from jlgcli.backends.stream import JsonStreamParser, short
from jlgcli.process.model import Invocation, ProcessOutcome
from jlgcli.records import replace

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.backends.base import ErrorKind
    from jlgcli.backends.limits import LimitKind

INFO = CLAUDE
# rate_limit_event appeared around 2.1.45 (backends.md §8); older versions are read from text.
STRUCTURED_LIMITS_SINCE = (2, 1, 45)
# From 2.1.277 a process started with --resume restores the cost total its session saved, so
# result.total_cost_usd is the session's running total (2.1.332's result schema: "read the
# latest result rather than summing"; measured on 2.1.278, Enderfga/claw-orchestrator#112);
# 2.1.221 still started from zero (iOfficeAI/AionCore#767): one process, one call's cost.
SESSION_COST_SINCE = (2, 1, 277)
PERMISSION_MODES = {"read-only": "plan", "edit": "acceptEdits", "full": "bypassPermissions"}
# The first version known to take a flag (the --help captures in backends.md §2, §10;
# tests/unit/backends/flags/): a flag newer than CLAUDE.minimum needs a known version.
# --session-id came in 1.0.5x (older than any claude jlgcli drives); --permission-prompts
# (none: anything that would prompt is denied) is in 2.1.332's --help, not in 2.1.197's.
FLAGS_SINCE = {"--session-id": (1, 0, 51), "--permission-prompts": (2, 1, 332)}
# assistant.error values (backends.md §5.1) that say which kind of failure this is.
ASSISTANT_ERRORS: dict[str, LimitKind] = {
    "authentication_failed": "auth",
    "oauth_org_not_allowed": "auth",
    "rate_limit": "rate-limit",
    "billing_error": "quota",
    # in the enum of 2.1.197 and 2.1.332 (backends.md §10): "API Error: Overloaded", no 529
    "overloaded": "overloaded",
    # 2.1.332 (backends.md §10): the account needs its owner; the text says what to do
    "account_on_hold": "account",  # "… View details or appeal: https://claude.ai/restricted"
    "verification_required": "account",
    "cloud_credential_error": "account",  # "… Check or refresh your AWS credentials"
}
# result.terminal_reason (2.1.332, backends.md §10) where it says more than the text.
TERMINAL_REASONS: dict[str, tuple[ErrorKind, str]] = {
    "budget_exhausted": ("budget", "claude stopped at the spending cap of this call"),
    "structured_output_retry_exhausted": (
        "protocol", "claude gave up producing the JSON status object its schema asks for"),
    "malformed_tool_use_exhausted": (
        "backend", "claude gave up after the model's malformed tool calls"),
    "tool_deferred_unavailable": ("backend", "a tool claude deferred was unavailable"),
    "turn_setup_failed": ("backend", "claude could not set up the turn"),
}  # fmt: skip
# result.api_error_status (claude 2.1.110+, backends.md §9): the HTTP status of the failure.
API_STATUSES: dict[int, LimitKind] = {401: "auth", 429: "rate-limit", 503: "overloaded",
                                      529: "overloaded"}  # fmt: skip
# Set by a running Claude Code session; claude 2.1.39+ refuses to start when it sees
# CLAUDECODE ("Claude Code cannot be launched inside another Claude Code session",
# anthropics/claude-code#25434). jlgcli's child is its own session: drop them.
NESTED_SESSION_VARIABLES = ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT")
# claude's refusal of bypassPermissions / --dangerously-skip-permissions as root (backends.md §2).
ROOT_REFUSAL = "cannot be used with root/sudo privileges"
ROOT_HINT = (
    "claude refuses full permissions when run as root unless IS_SANDBOX=1 is set "
    "(say so only in a container or VM you are ready to lose), or use --permissions edit"
)


_GETEUID: Callable[[], int] | None = getattr(os, "geteuid", None)  # absent on Windows


def running_as_root(geteuid: Callable[[], int] | None = _GETEUID) -> bool:
    """Whether this process runs as root (never on Windows, which has no ``geteuid``)."""
    return geteuid is not None and geteuid() == 0


def check_login(ctx: ProbeContext) -> AuthVerdict:
    """``claude auth status`` prints JSON with ``loggedIn``; only that field decides."""
    answer = ctx.run("auth", "status")
    if answer is None or answer.timed_out:
        return AuthVerdict("unknown", "`claude auth status` did not answer in time")
    broken = broken_verdict(INFO.executable, answer)
    if broken is not None:
        return broken
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
    chooses_session_ids = True  # --session-id: the run core names a new session itself

    def __init__(self, *, is_root: Callable[[], bool] = running_as_root) -> None:
        self._is_root = is_root

    def probe(self, timeout: float = 2.0) -> Availability:
        """Installed, version ≥ 2.0.0, ``claude auth status`` says logged in.

        Before 2.1.45 the detail says usage limits are read from claude's text.
        """
        from jlgcli.backends.node_engine import with_node_check

        return with_node_check(INFO, with_limit_note(probe_cli(INFO, check_login, timeout=timeout)))

    def probe_installed(self, timeout: float = 2.0) -> Availability:
        """``probe`` without the login check, for ``run``/``loop`` (issue 34): the first
        call starts sooner and an auth failure is read from the call itself (exit 6)."""
        return with_limit_note(probe_cli(INFO, login_left_to_the_call, timeout=timeout))

    def invocation(self, request: BackendRequest) -> Invocation:
        """``claude -p --output-format stream-json --verbose [...]`` with the prompt on stdin."""
        argv = ["claude", "-p", "--output-format", "stream-json", "--verbose"]
        if request.model:
            argv += ["--model", request.model]
        if request.permissions:
            argv += ["--permission-mode", PERMISSION_MODES[request.permissions]]
        if request.permissions and _takes("--permission-prompts", request.cli_version):
            argv += ["--permission-prompts", "none"]  # headless: a prompt is a denial, said so
        if request.resume_session:
            argv += ["--resume", request.resume_session]
        elif request.new_session_id and _takes("--session-id", request.cli_version):
            argv += ["--session-id", request.new_session_id]
        if request.output_schema is not None:  # the final message is a status object
            argv += ["--json-schema", request.output_schema]
        if request.max_budget_usd is not None:  # one call never spends past --max-cost
            argv += ["--max-budget-usd", f"{max(request.max_budget_usd, 0.0001):.4f}"]
        argv += request.extra_args
        env = {}
        if request.permissions == "full" and self._is_root():
            env["IS_SANDBOX"] = "1"  # claude refuses bypassPermissions as root otherwise
        return Invocation(
            argv=tuple(argv),
            cwd=request.cwd,
            env=env,
            env_remove=NESTED_SESSION_VARIABLES,
            stdin=request.prompt,
        )

    def parser(self) -> ClaudeParser:
        """A fresh stream-json parser."""
        return ClaudeParser()


def with_limit_note(availability: Availability) -> Availability:
    """Say how usage limits are detected when this claude predates structured limit events."""
    version = parse_version(availability.version or "")
    if version is None or version >= STRUCTURED_LIMITS_SINCE:
        return availability
    note = (
        f"usage limits read from claude's text (structured limit events need "
        f"{format_version(STRUCTURED_LIMITS_SINCE)}+)"
    )
    detail = f"{availability.detail}; {note}" if availability.detail else note
    return replace(availability, detail=detail)


class ClaudeParser(JsonStreamParser):
    """``system/init`` → (``assistant`` | ``user`` | ``system/*`` | rate limits)* → ``result``."""

    cli = "claude"
    output_format = "stream-json events"

    def __init__(self) -> None:
        super().__init__()
        self.last_text = ""
        self.final: dict[str, Any] | None = None
        self.assistant_error: str | None = None
        self.limit_rejected = False  # a rate_limit_event refused the call (no overage)
        self.limit_reset: float | None = None

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
                self.tool_called(block.get("name"), block.get("input"))
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
        which = str(info.get("rateLimitType") or "usage").replace("_", "-")
        if status == "rejected" and _on_overage(info):
            self.extra["overage"] = "true"
            return f"[claude] {which} limit reached; continuing on extra usage (billed)\n"
        if status == "rejected":
            self.limit_rejected = True
            self.limit_reset = epoch_seconds(info.get("resetsAt"))
            self.extra["rate_limit_type"] = str(info.get("rateLimitType") or "")
            return f"[claude] {which} limit reached\n"
        if status == "allowed_warning":
            return f"[claude] close to the {which} limit\n"
        return ""

    def _usage(self, event: dict[str, Any]) -> None:
        cost = event.get("total_cost_usd")
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            self.cost_usd = float(cost)
            version = parse_version(self.extra.get("claude_code_version", ""))
            self.cost_is_session_total = version is not None and version >= SESSION_COST_SINCE
        usage = event.get("usage")
        if isinstance(usage, dict) and isinstance(usage.get("input_tokens"), int):
            # input_tokens excludes cache reads/writes; sum them so it compares with codex's.
            cache_keys = ("cache_creation_input_tokens", "cache_read_input_tokens")
            cached = sum(usage[k] for k in cache_keys if isinstance(usage.get(k), int))
            self.input_tokens = usage["input_tokens"] + cached
        if isinstance(usage, dict) and isinstance(usage.get("output_tokens"), int):
            self.output_tokens = usage["output_tokens"]
        for key in ("num_turns", "terminal_reason", "subtype", "api_error_status"):
            if isinstance(event.get(key), (str, int)) and not isinstance(event.get(key), bool):
                self.extra[key] = str(event[key])
        # result.permission_denials: [{tool_name, tool_use_id, tool_input}] (claude-agent-sdk
        # types.py ResultMessage; backends.md §9): what headless claude refused to run.
        denials = event.get("permission_denials")
        for denial in denials if isinstance(denials, list) else []:
            if isinstance(denial, dict):
                self.denied(
                    str(denial.get("tool_name") or "tool"), _tool_input(denial, "tool_input")
                )

    def classify(self, outcome: ProcessOutcome) -> BackendResult:
        final = self.final
        if final is None and ROOT_REFUSAL in self._plain_text():
            return self.failure(outcome, f"{ROOT_HINT} ({self._last_words()})", "input")
        if final is None:
            kind = ASSISTANT_ERRORS.get(self.assistant_error or "")
            if kind is not None and self.last_error:  # ended after its error, without a result
                verdict = structured_verdict(kind, self.last_error, reset=self.limit_reset)
                return self.verdict_failure(outcome, verdict, short(self.last_error, 500))
            return self.unfinished(outcome)
        subtype = final.get("subtype")
        reason = final.get("terminal_reason")
        if subtype == "error_max_budget_usd" or reason == "budget_exhausted":  # §9, §10
            return self.failure(
                outcome, "claude stopped at the spending cap of this call", "budget"
            )
        result_text = final.get("result") if isinstance(final.get("result"), str) else None
        if final.get("is_error") is not True and subtype == "success":
            text = result_text if result_text is not None else self.last_text
            structured = final.get("structured_output")  # with --json-schema
            if isinstance(structured, dict):
                text = f"{text.rstrip()}\n{json.dumps(structured, ensure_ascii=False)}".lstrip()
            return self.result(outcome, ok=True, text=text)
        errors = final.get("errors")
        message = (
            result_text
            or ("; ".join(str(e) for e in errors) if isinstance(errors, list) else "")
            or f"claude reported {subtype or 'an error'}"
        )
        kind = ASSISTANT_ERRORS.get(self.assistant_error or "")
        if kind is None and self.limit_rejected:
            kind = "rate-limit"  # 2.1.45+ without assistant.error: the event decides
        status = final.get("api_error_status")
        if kind is None and isinstance(status, int) and status in API_STATUSES:
            kind = API_STATUSES[status]
        if kind is None and isinstance(reason, str) and reason in TERMINAL_REASONS:
            said, what = TERMINAL_REASONS[reason]
            detail = f" ({short(result_text, 300)})" if result_text else ""
            return self.failure(outcome, f"{what} (terminal_reason {reason}){detail}", said)
        if kind is None:
            return self.failure_from(outcome, message)  # claude 2.0.x: text only
        verdict = structured_verdict(kind, message, reset=self.limit_reset)
        return self.verdict_failure(outcome, verdict, short(message, 500))


def _takes(flag: str, version: str | None) -> bool:
    """Whether this claude takes ``flag``: always when every supported version does,
    else only when its version is known to be recent enough."""
    since = FLAGS_SINCE[flag]
    if since <= INFO.minimum:
        return True
    found = parse_version(version or "")
    return found is not None and found >= since


def _on_overage(info: dict[str, Any]) -> bool:
    """Whether a rejected limit is covered by extra usage (the turn goes on, billed)."""
    return info.get("isUsingOverage") is True or info.get("overageStatus") in (
        "allowed",
        "allowed_warning",
    )


def _tool_input(block: dict[str, Any], key: str = "input") -> str:
    data = block.get(key)
    if not isinstance(data, dict):
        return ""
    for key in ("command", "file_path", "path", "pattern", "url", "description"):
        if isinstance(data.get(key), str):
            return str(data[key])
    return ""
