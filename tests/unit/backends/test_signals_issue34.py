"""Signals jlgcli misread before issue 34, each as a transcript citing its upstream source.

Sources (research/backends.md §9, checked against claude 2.1.197, codex 0.171.0,
gemini 0.61.0 and copilot 1.0.102): openai/codex ``codex-rs/protocol/src/error.rs``;
google-gemini/gemini-cli ``packages/core/src/core/turn.ts``, ``core/utils/errors.ts``,
``cli/utils/errors.ts``, ``core/client.ts``, ``cli/nonInteractiveCli.ts``;
anthropics/claude-agent-sdk-python ``types.py`` / ``message_parser.py`` and the CLI's bundle;
copilot's ``cli-main.js`` and ``schemas/session-events.schema.json``.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from jlgcli.backends.claude import ClaudeParser
from jlgcli.backends.codex import CodexParser
from jlgcli.backends.copilot import CopilotParser
from jlgcli.backends.gemini import GeminiParser

from .conftest import parse


def jsonl(*events: dict[str, Any]) -> str:
    return "".join(json.dumps(event, ensure_ascii=False) + "\n" for event in events)


# --- codex: protocol/src/error.rs ----------------------------------------------------------
X_START = [{"type": "thread.started", "thread_id": "01a200ec"}, {"type": "turn.started"}]


def x_failed(message: str) -> str:
    return jsonl(*X_START, {"type": "turn.failed", "error": {"message": message}})


def test_codex_expired_refresh_token_is_auth() -> None:
    # error.rs: CodexErr::RefreshTokenFailed(Expired) → Unauthorized (was exit 1 backend-error)
    message = (
        "Your access token could not be refreshed because your refresh token has expired. "
        "Please log out and sign in again."
    )
    r = parse(CodexParser(), x_failed(message), code=1).result
    assert r.error_kind == "auth" and r.error == message


def test_codex_plan_upgrade_is_a_quota() -> None:
    # error.rs: UsageLimitExceeded for a plan without Codex (was classed backend: no failover)
    message = (
        "To use Codex with your ChatGPT plan, upgrade to Plus: https://chatgpt.com/explore/plus."
    )
    r = parse(CodexParser(), x_failed(message), code=1).result
    assert r.error_kind == "quota" and not r.rate_limited


@pytest.mark.parametrize(
    "message",
    [
        "exceeded retry limit, last status: 503 Service Unavailable",
        "We're currently experiencing high demand, which may cause temporary errors.",
        "Selected model is at capacity. Please try a different model.",
    ],
)
def test_codex_overload_after_its_retries(message: str) -> None:
    r = parse(CodexParser(), x_failed(message), code=1).result
    assert r.error_kind == "overloaded" and not r.rate_limited


# --- gemini --------------------------------------------------------------------------------
G_INIT = {"type": "init", "session_id": "0b8a4b6e-7e59-4b1e-9f5e-2f1c4f0e8d11", "model": "auto"}


def g_error(error_type: str, message: str) -> str:
    error = {"type": error_type, "message": message}
    return jsonl(G_INIT, {"type": "result", "status": "error", "error": error, "stats": {}})


def test_gemini_401_unauthorized_error_is_auth() -> None:
    # core/turn.ts: a 401 becomes UnauthorizedError; exit 401 & 255 = 145 (cli/utils/errors.ts)
    message = (
        "[API Error: Request had invalid authentication credentials. Expected OAuth 2 access "
        "token, login cookie or other valid authentication credential.]"
    )
    r = parse(GeminiParser(), g_error("UnauthorizedError", message), code=145).result
    assert r.error_kind == "auth"


def test_gemini_google_429_waits_for_the_suggested_retry() -> None:
    # core/utils/errors.ts: API errors become plain objects, error.type "unknown"; exit 173
    message = (
        "[API Error: Resource has been exhausted (e.g. check quota).\n"
        "Suggested retry after 34.07s.]"
    )
    started = time.time()
    r = parse(GeminiParser(), g_error("unknown", message), code=429 & 255).result
    assert r.error_kind == "rate-limit" and r.rate_limited
    assert r.rate_limit_reset is not None and abs(r.rate_limit_reset - (started + 34.07)) < 30


@pytest.mark.parametrize(
    ("code", "kind"), [(429 & 255, "rate-limit"), (401 & 255, "auth"), (503 & 255, "overloaded")]
)
def test_gemini_exit_status_is_the_http_status(code: int, kind: str) -> None:
    # cli/utils/errors.ts: process.exit(status & 255) when the text says nothing known
    r = parse(GeminiParser(), g_error("unknown", "[API Error: got status: something]"), code=code)
    assert r.result.error_kind == kind and code in (173, 145, 247)


def test_gemini_exit_status_without_a_result_event() -> None:
    r = parse(GeminiParser(), jsonl(G_INIT), stderr="Error: request failed\n", code=247).result
    assert r.error_kind == "overloaded"


def test_gemini_empty_success_is_a_context_overflow_not_done() -> None:
    # client.ts / nonInteractiveCli.ts: an overflow ends as status "success" with no text
    stream = jsonl(G_INIT, {"type": "result", "status": "success", "stats": {}})
    r = parse(GeminiParser(), stream, code=0).result
    assert not r.ok and r.error_kind == "backend" and "context window" in (r.error or "")


def test_gemini_503_text_is_overload() -> None:
    message = "[API Error: The model is overloaded. Please try again later.]"
    r = parse(GeminiParser(), g_error("unknown", message), code=247).result
    assert r.error_kind == "overloaded"


# --- claude --------------------------------------------------------------------------------
SID = "29bc3fda-9ee8-415d-96ea-427936c6744f"
C_INIT = {"type": "system", "subtype": "init", "session_id": SID, "claude_code_version": "2.1.197"}


def c_failure(text: str, error: str | None, *, version: str = "2.1.197", **result: Any) -> str:
    """An assistant event (with ``error``) then an error result, from a claude ``version``."""
    assistant: dict[str, Any] = {
        "type": "assistant",
        "session_id": SID,
        "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
    }
    if error:
        assistant["error"] = error
    final = {"type": "result", "subtype": "success", "is_error": True, "result": text, **result}
    return jsonl({**C_INIT, "claude_code_version": version}, assistant, final)


@pytest.mark.parametrize(
    "text",
    [
        "Your seat type doesn't include usage credits · ask your admin for a seat upgrade",
        "Your usage allocation has been disabled by your admin",
        "Your group's usage limit is set to $0 · ask your admin to raise it",
        "This service is disabled for your org",
        "Your org is out of usage · add funds to continue",
    ],
)
def test_claude_permanent_account_states_are_quota(text: str) -> None:
    # labelled error:"rate_limit" (the CLI bundle) but they never reset: fail over or stop
    far = {"resetsAt": int(time.time()) + 5 * 3600, "status": "rejected"}
    stream = c_failure(text, "rate_limit")
    limit = jsonl({"type": "rate_limit_event", "rate_limit_info": far})
    r = parse(ClaudeParser(), limit + stream, code=1).result
    assert r.error_kind == "quota" and not r.rate_limited and r.rate_limit_reset is None


def test_claude_repeated_529_is_overload() -> None:
    text = "API Error: Repeated 529 Overloaded errors · check status.claude.com"
    r = parse(ClaudeParser(), c_failure(text, "server_error", api_error_status=529), code=1)
    assert r.result.error_kind == "overloaded"


def test_claude_api_error_status_decides_when_the_text_does_not() -> None:
    # result.api_error_status (2.1.110+): the HTTP status of the failure
    r = parse(ClaudeParser(), c_failure("API Error", "unknown", api_error_status=401), code=1)
    assert r.result.error_kind == "auth"


# --- copilot: cli-main.js, session-events.schema.json ---------------------------------------
def test_copilot_authorization_error_type_is_auth() -> None:
    start = {"type": "session.start", "data": {"sessionId": "s-1"}}
    error = {
        "type": "session.error",
        "data": {
            "errorType": "authorization",
            "message": "You are not authorized to use this Copilot feature, it requires an "
            "enterprise or organization policy to be enabled.",
        },
    }
    final = {"type": "result", "sessionId": "s-1", "exitCode": 1}
    r = parse(CopilotParser(), jsonl(start, error, final), code=1).result
    assert r.error_kind == "auth"


def test_copilot_503_is_overload() -> None:
    start = {"type": "session.start", "data": {"sessionId": "s-1"}}
    error = {
        "type": "session.error",
        "data": {"errorType": "model_call", "message": "Execution failed: 503 Service Unavailable"},
    }
    final = {"type": "result", "sessionId": "s-1", "exitCode": 1}
    r = parse(CopilotParser(), jsonl(start, error, final), code=1).result
    assert r.error_kind == "overloaded"


# --- denials (issue 34 item 3) -------------------------------------------------------------
def test_claude_permission_denials_are_read() -> None:
    # claude-agent-sdk-python types.py ResultMessage.permission_denials: tool_name, tool_input
    final = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "result": "I could not write the file.",
        "terminal_reason": "completed",
        "permission_denials": [
            {"tool_name": "Write", "tool_use_id": "toolu_01", "tool_input": {"file_path": "a.py"}},
            {"tool_name": "Bash", "tool_use_id": "toolu_02", "tool_input": {"command": "pytest"}},
        ],
    }
    r = parse(ClaudeParser(), jsonl(C_INIT, final)).result
    assert r.ok and r.denials == (
        {"tool": "Write", "target": "a.py"},
        {"tool": "Bash", "target": "pytest"},
    )
    assert r.extra["terminal_reason"] == "completed"


def test_codex_sandbox_denials_are_read() -> None:
    # exec_events.rs: CommandExecutionStatus::Declined, PatchApplyStatus::Failed
    def done(item: dict[str, Any]) -> dict[str, Any]:
        return {"type": "item.completed", "item": {"id": "i", **item}}

    stream = jsonl(
        *X_START,
        done({"type": "command_execution", "command": "rm -rf build", "aggregated_output": "",
              "exit_code": None, "status": "declined"}),
        done({"type": "command_execution", "command": "touch x", "exit_code": 1,
              "aggregated_output": "touch: cannot touch 'x': Read-only file system",
              "status": "failed"}),
        done({"type": "command_execution", "command": "false", "exit_code": 1,
              "aggregated_output": "", "status": "failed"}),
        done({"type": "file_change", "changes": [{"path": "a.py", "kind": "add"}],
              "status": "failed"}),
        done({"type": "agent_message", "text": "blocked"}),
        {"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 1}},
    )  # fmt: skip
    r = parse(CodexParser(), stream).result
    assert [d["tool"] + " " + d["target"] for d in r.denials] == [
        "shell rm -rf build",
        "shell touch x",
        "edit a.py",
    ]


def test_gemini_and_copilot_denials_are_read() -> None:
    use = {"type": "tool_use", "tool_name": "write_file", "tool_id": "w-0",
           "parameters": {"file_path": "a.py"}}  # fmt: skip
    refused = {"type": "tool_result", "tool_id": "w-0", "status": "error", "output": "",
               "error": {"type": "permission", "message": "Tool execution denied"}}  # fmt: skip
    failed = {"type": "tool_result", "tool_id": "w-0", "status": "error", "output": "",
              "error": {"type": "tool_error", "message": "ENOENT"}}  # fmt: skip
    ok = {"type": "result", "status": "success", "stats": {}}
    message = {"type": "message", "role": "assistant", "content": "no"}
    r = parse(GeminiParser(), jsonl(G_INIT, use, refused, use, failed, message, ok)).result
    assert r.denials == ({"tool": "write_file", "target": "a.py"},)

    # cli-main.js: the warning that follows a tool use nobody could approve headless
    REFUSED = "Permission denied and could not request permission from user"  # noqa: N806

    def p(kind: str, **data: Any) -> dict[str, Any]:
        return {"type": kind, "data": data}

    stream = jsonl(
        p("session.start", sessionId="s-1"),
        p("tool.execution_start", toolCallId="c0", toolName="create", arguments={"path": "a.py"}),
        p("tool.execution_complete", toolCallId="c0", success=False),
        p("session.warning", message=REFUSED),
        p("tool.execution_start", toolCallId="c1", toolName="shell", arguments={"command": "ls"}),
        p("tool.execution_complete", toolCallId="c1", success=False,
          error={"message": "Permission denied: shell"}),
        p("tool.execution_start", toolCallId="c2", toolName="view", arguments={"path": "b"}),
        p("tool.execution_complete", toolCallId="c2", success=False, error={"message": "ENOENT"}),
        p("assistant.message", messageId="m", content="no", toolRequests=[]),
        {"type": "result", "sessionId": "s-1", "exitCode": 0},
    )  # fmt: skip
    r = parse(CopilotParser(), stream).result
    assert r.denials == ({"tool": "create", "target": "a.py"}, {"tool": "shell", "target": "ls"})


# --- native structured completion (issue 34 item 7) -----------------------------------------
def test_claude_structured_output_is_the_reply_status() -> None:
    # with --json-schema the result carries structured_output (backends.md §9)
    final = {"type": "result", "subtype": "success", "is_error": False, "result": "Done.",
             "structured_output": {"status": "done", "summary": "ok", "next": None}}  # fmt: skip
    r = parse(ClaudeParser(), jsonl(C_INIT, final)).result
    assert r.text == 'Done.\n{"status": "done", "summary": "ok", "next": null}'


def test_codex_output_schema_goes_in_a_file_removed_with_the_backend() -> None:
    from pathlib import Path

    from jlgcli.backends.base import BackendRequest
    from jlgcli.backends.codex import CodexBackend
    from jlgcli.completion.json_status import STATUS_SCHEMA, from_object

    backend = CodexBackend()
    request = BackendRequest(prompt="p", cwd="/w", output_schema=json.dumps(STATUS_SCHEMA))
    argv = backend.invocation(request).argv
    path = Path(argv[argv.index("--output-schema") + 1])
    assert json.loads(path.read_text("utf-8")) == STATUS_SCHEMA and argv[-1] == "-"
    assert backend.invocation(request).argv == argv  # one file, reused
    assert from_object({"status": "done", "summary": None, "next": None}) is not None
    del backend
    import gc

    gc.collect()
    assert not path.exists()
