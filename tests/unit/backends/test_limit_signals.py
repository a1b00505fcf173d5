"""Each limit/quota/auth signal of backends.md §8, as a transcript fed to its parser (issue 16).

Every fixture names its upstream source. Field names are the CLIs' own; the
values (ids, times) are made up. Three outcomes: ``rate-limit`` (resets, with
the reset when stated), ``quota`` (no useful reset), ``auth``.
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


# --- claude (Claude Agent SDK types.py / message_parser.py; the CLI bundle) ----------------
SID = "29bc3fda-9ee8-415d-96ea-427936c6744f"
C_INIT = {"type": "system", "subtype": "init", "session_id": SID, "claude_code_version": "2.1.330"}


def c_limit_event(status: str, **info: Any) -> dict[str, Any]:
    return {"type": "rate_limit_event", "rate_limit_info": {"status": status, **info}}


def c_assistant(text: str, error: str | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {
        "type": "assistant",
        "session_id": SID,
        "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
    }
    if error:
        event["error"] = error
    return event


def c_result(text: str, *, is_error: bool) -> dict[str, Any]:
    # auth/limit failures come back as subtype "success" + is_error (claude-code#79500)
    return {
        "type": "result",
        "subtype": "success",
        "is_error": is_error,
        "result": text,
        "session_id": SID,
        "total_cost_usd": 0.42,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


@pytest.mark.parametrize(
    "info",
    [
        {"isUsingOverage": True, "overageStatus": "allowed"},
        {"isUsingOverage": False, "overageStatus": "allowed"},
    ],
)
def test_claude_overage_keeps_the_paid_result(info: dict[str, Any]) -> None:
    # SDK types.py RateLimitInfo: rejected + isUsingOverage → the turn goes on, billed as overage
    stream = jsonl(
        C_INIT,
        c_limit_event("rejected", resetsAt=1_900_000_000, rateLimitType="five_hour", **info),
        c_assistant("Implemented it.\nDONE"),
        c_result("Implemented it.\nDONE", is_error=False),
    )
    parsed = parse(ClaudeParser(), stream)
    r = parsed.result
    assert r.ok and r.text == "Implemented it.\nDONE" and r.cost_usd == 0.42
    assert not r.rate_limited and r.rate_limit_reset is None and r.error_kind is None
    assert "extra usage" in parsed.shown and r.extra["overage"] == "true"


def test_claude_session_limit_from_assistant_error() -> None:
    # bundle template "You’ve hit your session limit · resets 3pm (Europe/Lisbon)" with
    # assistant.error "rate_limit" (backends.md §8); no rate_limit_event: reset from the text
    text = "You’ve hit your session limit · resets 3pm (Europe/Lisbon)"
    stream = jsonl(C_INIT, c_assistant(text, "rate_limit"), c_result(text, is_error=True))
    r = parse(ClaudeParser(), stream, code=1).result
    assert not r.ok and r.error_kind == "rate-limit" and r.rate_limited
    assert r.rate_limit_reset is not None and r.rate_limit_reset > time.time() - 16 * 60
    assert r.error == text


def test_claude_weekly_limit_5_days_away_keeps_its_reset() -> None:
    # rate_limit_event rateLimitType seven_day: the reset is far, still a rate limit with it
    resets = time.time() + 5 * 86400
    text = "You’ve hit your weekly limit · resets in 5 days"
    stream = jsonl(
        C_INIT,
        c_limit_event("rejected", resetsAt=int(resets), rateLimitType="seven_day"),
        c_assistant(text, "rate_limit"),
        c_result(text, is_error=True),
    )
    r = parse(ClaudeParser(), stream, code=1).result
    assert r.error_kind == "rate-limit" and r.rate_limit_reset == float(int(resets))


def test_claude_rejected_event_without_assistant_error_is_a_rate_limit() -> None:
    # 2.1.45+ before assistant.error carried "rate_limit": the event decides
    stream = jsonl(
        C_INIT,
        c_limit_event("rejected", resetsAt=1_900_000_000),
        c_result("Something went wrong", is_error=True),
    )
    r = parse(ClaudeParser(), stream, code=1).result
    assert r.error_kind == "rate-limit" and r.rate_limit_reset == 1_900_000_000.0


def test_claude_billing_error_is_a_quota() -> None:
    # assistant.error "billing_error" (backends.md §5.1); "You're out of usage credits" (bundle)
    text = "You're out of usage credits"
    stream = jsonl(C_INIT, c_assistant(text, "billing_error"), c_result(text, is_error=True))
    r = parse(ClaudeParser(), stream, code=1).result
    assert r.error_kind == "quota" and not r.rate_limited and r.rate_limit_reset is None


def test_claude_invalid_api_key_is_auth() -> None:
    # bundle: "Invalid API key · Fix external API key" (backends.md §8)
    text = "Invalid API key · Fix external API key"
    stream = jsonl(
        C_INIT, c_assistant(text, "authentication_failed"), c_result(text, is_error=True)
    )
    r = parse(ClaudeParser(), stream, code=1).result
    assert r.error_kind == "auth" and r.error == text


def test_claude_2_0_text_fallback() -> None:
    # claude 2.0.x: no rate_limit_event, no assistant.error; "5-hour limit reached ∙ resets 3pm"
    text = "5-hour limit reached ∙ resets 3pm"
    stream = jsonl(
        {"type": "system", "subtype": "init", "session_id": SID},
        {"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}},
        c_result(text, is_error=True),
    )
    r = parse(ClaudeParser(), stream, code=1).result
    assert r.error_kind == "rate-limit" and r.rate_limited and r.rate_limit_reset is not None


def test_claude_api_retries_are_not_the_cause_of_a_later_failure() -> None:
    # system/api_retry is a retry in progress (backends.md §3, §8), not the failure
    retry = {
        "type": "system",
        "subtype": "api_retry",
        "attempt": 1,
        "max_retries": 10,
        "retry_delay_ms": 500,
        "error_status": 429,
        "error": "rate_limit",
    }
    text = 'API Error: 500 {"type":"error","error":{"type":"api_error"}}'
    stream = jsonl(C_INIT, retry, c_assistant(text, "server_error"), c_result(text, is_error=True))
    r = parse(ClaudeParser(), stream, code=1).result
    assert r.error_kind == "backend" and not r.rate_limited


# --- codex (codex-rs/exec/src/exec_events.rs, event_processor_with_jsonl_output.rs,
#     codex-rs/protocol/src/error.rs) -------------------------------------------------------
X_START = [{"type": "thread.started", "thread_id": "01a200ec"}, {"type": "turn.started"}]
HICCUP = {
    "type": "error",
    "message": "Reconnecting... 1/5 (stream disconnected before completion: Rate limit "
    "reached for gpt-6.1-sol. Please try again in 1.2s.)",
}
X_DONE = [
    {"type": "item.completed", "item": {"id": "item_0", "type": "agent_message", "text": "ok"}},
    {"type": "turn.completed", "usage": {"input_tokens": 5, "output_tokens": 2}},
]


def x_failed(message: str) -> dict[str, Any]:
    return {"type": "turn.failed", "error": {"message": message}}


def test_codex_hiccup_then_success_is_one_good_call() -> None:
    r = parse(CodexParser(), jsonl(*X_START, HICCUP, *X_DONE)).result
    assert r.ok and r.text == "ok" and not r.rate_limited


def test_codex_hiccup_then_context_failure_is_not_a_rate_limit() -> None:
    # the Reconnecting error is non-fatal; turn.failed alone says why the turn ended
    message = (
        "Codex ran out of room in the model's context window. Start a new thread or clear "
        "earlier history before retrying."
    )
    r = parse(CodexParser(), jsonl(*X_START, HICCUP, x_failed(message)), code=1).result
    assert not r.ok and r.error_kind == "backend" and not r.rate_limited
    assert r.rate_limit_reset is None and r.error == message


def test_codex_hiccup_then_crash_is_not_a_rate_limit() -> None:
    r = parse(CodexParser(), jsonl(*X_START, HICCUP), code=1).result
    assert not r.ok and r.error_kind == "protocol" and not r.rate_limited


@pytest.mark.parametrize(
    "message",
    [
        "You’ve hit your usage limit. Upgrade to Plus to continue using Codex "
        "(https://chatgpt.com/explore/plus), or try again at 3:05 PM.",
        "You’ve hit your usage limit. To get more access now, send a request to your admin "
        "or try again at Oct 3rd, 2027 9:05 AM.",
    ],
)
def test_codex_usage_limit_with_its_reset(message: str) -> None:
    r = parse(CodexParser(), jsonl(*X_START, x_failed(message)), code=1).result
    assert r.error_kind == "rate-limit" and r.rate_limited and r.rate_limit_reset is not None


@pytest.mark.parametrize(
    "message",
    [
        "Your workspace is out of credits. Add credits to continue.",
        "You hit your spend cap. Raise it in the workspace settings to continue.",
    ],
)
def test_codex_out_of_credit_is_a_quota(message: str) -> None:
    r = parse(CodexParser(), jsonl(*X_START, x_failed(message)), code=1).result
    assert r.error_kind == "quota" and not r.rate_limited and r.rate_limit_reset is None


def test_codex_401_is_auth() -> None:
    message = "unexpected status 401 Unauthorized: Missing bearer or basic authentication"
    r = parse(CodexParser(), jsonl(*X_START, x_failed(message)), code=1).result
    assert r.error_kind == "auth"


# --- copilot (github/copilot-sdk session-events.ts; the CLI's bundled cli-main.js) ---------
P_START = {"type": "session.start", "data": {"sessionId": "s-1"}}


def p_error(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "session.error", "data": {"errorType": error_type, "message": message}}


P_FAILED = {"type": "result", "sessionId": "s-1", "exitCode": 1, "usage": {}}


@pytest.mark.parametrize(
    ("error_type", "message", "kind"),
    [
        ("quota", "You've run out of your included AI credits for the month.", "quota"),
        ("quota", "You've reached the spending limit for this session.", "quota"),
        ("quota", "You've reached your weekly rate limit.", "quota"),
        (
            "rate_limit",
            "Sorry, you've hit a rate limit that restricts the number of Copilot model "
            "requests you can make within a specific time period. Please try again in "
            "15 hours 23 minutes.",
            "rate-limit",
        ),
        ("authentication", "Your session has expired. Please log in again.", "auth"),
    ],
)
def test_copilot_error_type_decides(error_type: str, message: str, kind: str) -> None:
    stream = jsonl(P_START, p_error(error_type, message), P_FAILED)
    r = parse(CopilotParser(), stream, code=1).result
    assert not r.ok and r.error_kind == kind and r.error == message
    assert r.rate_limited == (kind == "rate-limit")
    if kind == "rate-limit":
        assert r.rate_limit_reset is not None
        assert abs(r.rate_limit_reset - (time.time() + 15 * 3600 + 23 * 60)) < 60


def test_copilot_invalid_token_on_stderr_is_auth_naming_that_line() -> None:
    # cli-main.js: printed on stderr, exit 1, no JSON (backends.md §8)
    stderr = (
        "Error: Authentication token found but could not be validated.\n"
        "Copilot can be authenticated with GitHub using an OAuth Token or a Fine-Grained "
        "Personal Access Token.\n"
        "To authenticate, you can use any of the following methods:\n"
        "  • Start 'copilot' and run the '/login' command\n"
        "  • Set the COPILOT_GITHUB_TOKEN, GH_TOKEN, or GITHUB_TOKEN environment variable\n"
        "  • Run 'gh auth login' to authenticate with the GitHub CLI\n"
    )
    r = parse(CopilotParser(), "", stderr, code=1).result
    assert r.error_kind == "auth"
    assert r.error == "Error: Authentication token found but could not be validated."


def test_copilot_message_chunks_are_joined() -> None:
    # session-events.ts: assistant.message may carry chunkIndex/chunkCount (backends.md §8)
    chunks = ["First part, ", "second part, ", "DONE"]
    events = [
        {
            "type": "assistant.message",
            "data": {
                "messageId": "m1",
                "content": piece,
                "toolRequests": [],
                "chunkIndex": index,
                "chunkCount": len(chunks),
            },
        }
        for index, piece in enumerate(chunks)
    ]
    ok = {"type": "result", "sessionId": "s-1", "exitCode": 0}
    parsed = parse(CopilotParser(), jsonl(P_START, *events, ok))
    assert parsed.result.ok and parsed.result.text == "First part, second part, DONE"
    assert parsed.shown == "First part, second part, DONE\n"


# --- gemini (gemini-cli packages/core/src/output/types.ts, googleQuotaErrors.ts,
#     errorParsing.ts, packages/cli/src/nonInteractiveCli.ts) --------------------------------
G_INIT = {"type": "init", "session_id": "g-1", "model": "auto"}


def g_result(error: dict[str, Any] | None) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "result", "status": "error", "stats": {}}
    if error is not None:
        event["error"] = error
    return event


@pytest.mark.parametrize("error_type", ["unknown", "TerminalQuotaError"])
def test_gemini_daily_quota_is_a_quota(error_type: str) -> None:
    message = "[API Error: You have exhausted your daily quota on this model.]"
    stream = jsonl(G_INIT, g_result({"type": error_type, "message": message}))
    r = parse(GeminiParser(), stream, code=1).result
    assert r.error_kind == "quota" and not r.rate_limited and r.error == message


@pytest.mark.parametrize("error_type", ["unknown", "TerminalQuotaError"])
def test_gemini_capacity_with_a_far_reset_is_a_rate_limit(error_type: str) -> None:
    message = (
        "[API Error: You have exhausted your capacity on this model. "
        "Your quota will reset after 19h14m47s.]"
    )
    stream = jsonl(G_INIT, g_result({"type": error_type, "message": message}))
    started = time.time()
    r = parse(GeminiParser(), stream, code=1).result
    assert r.error_kind == "rate-limit" and r.rate_limited and r.rate_limit_reset is not None
    assert abs(r.rate_limit_reset - (started + 19 * 3600 + 14 * 60 + 47)) < 60


def test_gemini_retry_on_the_next_line() -> None:
    message = "You exceeded your current quota, please check your plan.\nPlease retry in 37.5s."
    stream = jsonl(G_INIT, g_result({"type": "RetryableQuotaError", "message": message}))
    started = time.time()
    r = parse(GeminiParser(), stream, code=1).result
    assert r.error_kind == "rate-limit" and r.rate_limit_reset is not None
    assert abs(r.rate_limit_reset - (started + 37.5)) < 30


def test_gemini_invalid_api_key_is_auth() -> None:
    message = (
        "[API Error: API key not valid. Please pass a valid API key. (Status: INVALID_ARGUMENT)]"
    )
    stream = jsonl(G_INIT, g_result({"type": "unknown", "message": message}))
    r = parse(GeminiParser(), stream, code=1).result
    assert r.error_kind == "auth" and r.error == message


def test_gemini_reason_from_the_last_error_event_when_result_has_none() -> None:
    # nonInteractiveCli.ts: the reason may be only in an earlier error event
    stream = jsonl(
        G_INIT,
        {"type": "error", "severity": "warning", "message": "Loop detected, retrying"},
        {"type": "error", "severity": "error", "message": "Model stream ended unexpectedly"},
        g_result(None),
    )
    r = parse(GeminiParser(), stream, code=1).result
    assert not r.ok and r.error_kind == "backend"
    assert r.error == "Model stream ended unexpectedly"


def test_gemini_quota_in_the_last_error_event() -> None:
    stream = jsonl(
        G_INIT,
        {"type": "error", "message": "[API Error: You have exhausted your daily quota.]"},
        g_result(None),
    )
    r = parse(GeminiParser(), stream, code=1).result
    assert r.error_kind == "quota"


def test_structured_kinds_hold_when_the_stream_ends_without_its_result() -> None:
    # the error event came, then the process died before its final result line
    copilot = jsonl(
        P_START, p_error("quota", "You've reached the spending limit for this session.")
    )
    assert parse(CopilotParser(), copilot, code=1).result.error_kind == "quota"
    claude = jsonl(C_INIT, c_assistant("Something unusual", "billing_error"))
    assert parse(ClaudeParser(), claude, code=1).result.error_kind == "quota"
