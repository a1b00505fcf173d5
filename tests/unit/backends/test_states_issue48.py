"""States jlgcli misread before issue 48, each as a transcript citing its upstream source.

Sources (research/backends.md §10, checked 2026-11-28): claude 2.1.332's binary (the
``assistant.error`` enum, the result schema, the quoted texts) beside 2.1.197's and the
2.0.x form; openai/codex 0.171.0's binary and the generated app-server schema;
google-gemini/gemini-cli ``packages/core/src/utils/googleQuotaErrors.ts`` (0.61.0 bundle
``chunk-5FZXKDXH.js``); copilot 1.0.102 ``schemas/session-events.schema.json``.
Structured fields decide first; the text only where nothing structured exists.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from jlgcli.backends.claude import ClaudeParser
from jlgcli.backends.codex import CodexParser
from jlgcli.backends.copilot import CopilotParser
from jlgcli.backends.gemini import GeminiParser
from jlgcli.backends.limits import classify_error_text

from .conftest import parse
from .test_signals_issue34 import c_failure, g_error, jsonl, x_failed

# --- claude ------------------------------------------------------------------------------------
SID = "29bc3fda-9ee8-415d-96ea-427936c6744f"


def c_init(version: str) -> dict[str, Any]:
    return {"type": "system", "subtype": "init", "session_id": SID, "claude_code_version": version}


# 2.1.332 binary: account_on_hold's text ends "View details or appeal: https://claude.ai/restricted"
ON_HOLD = "Your account is on hold. View details or appeal: https://claude.ai/restricted"
# 2.1.332 binary: cloud_credential_error ("Could not load AWS credentials … Check or refresh
# your AWS credentials")
AWS = (
    "Could not load AWS credentials from the default provider chain. "
    "Check or refresh your AWS credentials"
)


@pytest.mark.parametrize(
    ("error", "text", "remedy"),
    [
        ("account_on_hold", ON_HOLD, "https://claude.ai/restricted"),
        ("verification_required", "Your account needs to be verified", "verified"),
        ("cloud_credential_error", AWS, "refresh your AWS credentials"),
    ],
)
def test_claude_account_states_need_the_user_with_the_clis_own_remedy(
    error: str, text: str, remedy: str
) -> None:
    # 2.1.332's assistant.error enum adds these three (backends.md §10); they were exit 1
    stream = c_failure(
        text, error, version="2.1.332", terminal_reason="api_error", api_error_status=403
    )
    r = parse(ClaudeParser(), stream, code=1).result
    assert r.error_kind == "account" and not r.rate_limited
    assert r.remedy is not None and remedy in r.remedy


def test_claude_account_on_hold_without_a_result_event() -> None:
    stream = jsonl(
        c_init("2.1.332"), json.loads(c_failure(ON_HOLD, "account_on_hold").split("\n")[1])
    )
    r = parse(ClaudeParser(), stream, code=1).result
    assert r.error_kind == "account" and "claude.ai/restricted" in (r.remedy or "")


@pytest.mark.parametrize(
    ("version", "error"),
    [("2.0.76", None), ("2.1.197", "billing_error"), ("2.1.332", "billing_error")],
)
def test_claude_credit_balance_too_low_is_a_quota_in_both_forms(
    version: str, error: str | None
) -> None:
    # both binaries hold "Credit balance is too low"; 2.1.x adds error "billing_error", 2.0.x
    # sends the text alone (backends.md §10)
    r = parse(
        ClaudeParser(), c_failure("Credit balance is too low", error, version=version), code=1
    )
    assert r.result.error_kind == "quota" and not r.result.rate_limited


@pytest.mark.parametrize("version", ["2.1.197", "2.1.332"])
def test_claude_overloaded_assistant_error_is_an_overload(version: str) -> None:
    # "overloaded" is in the assistant.error enum of both versions; the text has no 529
    stream = c_failure("API Error: Overloaded", "overloaded", version=version)
    assert parse(ClaudeParser(), stream, code=1).result.error_kind == "overloaded"


def test_claude_overloaded_text_alone_is_an_overload() -> None:
    stream = c_failure("API Error: Overloaded", None, version="2.0.76")
    assert parse(ClaudeParser(), stream, code=1).result.error_kind == "overloaded"


@pytest.mark.parametrize(
    ("reason", "kind", "words"),
    [
        ("budget_exhausted", "budget", "spending cap"),
        ("structured_output_retry_exhausted", "protocol", "JSON status"),
        ("malformed_tool_use_exhausted", "backend", "malformed tool"),
        ("turn_setup_failed", "backend", "could not set up"),
        ("tool_deferred_unavailable", "backend", "tool"),
    ],
)
def test_claude_terminal_reasons_are_read(reason: str, kind: str, words: str) -> None:
    # 2.1.332's result.terminal_reason values (backends.md §10)
    final = {"type": "result", "subtype": "success", "is_error": True, "result": "",
             "terminal_reason": reason, "total_cost_usd": 0.2}  # fmt: skip
    r = parse(ClaudeParser(), jsonl(c_init("2.1.332"), final), code=1).result
    assert r.error_kind == kind and words in (r.error or ""), r.error
    assert r.extra["terminal_reason"] == reason


def test_claude_completed_terminal_reason_is_a_success() -> None:
    final = {"type": "result", "subtype": "success", "is_error": False, "result": "ok\nDONE",
             "terminal_reason": "completed"}  # fmt: skip
    r = parse(ClaudeParser(), jsonl(c_init("2.1.332"), final)).result
    assert r.ok and r.text == "ok\nDONE"


# --- codex (0.171.0 binary strings; app-server codexErrorInfo policyCapacityUnavailable,
#     serverOverloaded) --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("Policy-restricted capacity is unavailable. Please try again later.", "overloaded"),
        ("Codex is currently experiencing high load.", "overloaded"),
        ("You've reached your workspace credit limit", "quota"),
        ("You’ve reached your workspace credit limit. Add credits to continue.", "quota"),
    ],
)
def test_codex_capacity_and_credit_limit(message: str, kind: str) -> None:
    r = parse(CodexParser(), x_failed(message), code=1).result
    assert r.error_kind == kind and not r.rate_limited


# --- gemini (googleQuotaErrors.ts; 0.61.0 bundle) -----------------------------------------------
G_INIT = {"type": "init", "session_id": "0b8a4b6e-7e59-4b1e-9f5e-2f1c4f0e8d11", "model": "auto"}
# what users read for MODEL_CAPACITY_EXHAUSTED (captured in tinnlo/lukas_9688
# product_list/…/video_3_analysis.md: 429, reason MODEL_CAPACITY_EXHAUSTED)
NO_CAPACITY = "No capacity available for model gemini-3-flash-preview on the server"


@pytest.mark.parametrize("error_type", ["TerminalQuotaError", "RetryableQuotaError", "unknown"])
def test_gemini_no_capacity_is_an_overload_whatever_the_type(error_type: str) -> None:
    # 0.61.0 raises TerminalQuotaError for MODEL_CAPACITY_EXHAUSTED: a shortage, not a quota
    r = parse(GeminiParser(), g_error(error_type, f"[API Error: {NO_CAPACITY}]"), code=173)
    assert r.result.error_kind == "overloaded" and not r.result.rate_limited


def test_gemini_a_spent_daily_quota_stays_a_quota() -> None:
    message = "[API Error: You have exhausted your daily quota on this model.]"
    r = parse(GeminiParser(), g_error("TerminalQuotaError", message), code=1).result
    assert r.error_kind == "quota"


def test_gemini_validation_required_needs_the_user() -> None:
    # googleQuotaErrors.ts: a 403 VALIDATION_REQUIRED from cloudcode-pa → ValidationRequiredError
    message = "Verify your account to continue: https://accounts.google.com/signin/continue"
    r = parse(GeminiParser(), g_error("ValidationRequiredError", message), code=403 & 255).result
    assert r.error_kind == "account" and "accounts.google.com" in (r.remedy or "")


# --- copilot (1.0.102 schemas/session-events.schema.json: session.error.data) ----------------
def p_error(**data: Any) -> str:
    start = {"type": "session.start", "data": {"sessionId": "s-1"}}
    final = {"type": "result", "sessionId": "s-1", "exitCode": 1}
    return jsonl(start, {"type": "session.error", "data": data}, final)


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        ({"errorType": "rate_limit", "errorCode": "user_weekly_rate_limited", "statusCode": 429,
          "message": "You've reached your weekly rate limit."}, "rate-limit"),
        ({"errorType": "quota", "errorCode": "session_quota_exceeded",
          "message": "You've reached the spending limit for this session."}, "quota"),
        ({"errorType": "query", "statusCode": 503, "message": "Request failed"}, "overloaded"),
        ({"errorType": "query", "statusCode": 401, "message": "Request failed"}, "auth"),
        ({"errorType": "query", "statusCode": 402, "message": "Request failed"}, "quota"),
    ],
)  # fmt: skip
def test_copilot_error_code_and_status_decide_before_the_text(
    data: dict[str, Any], kind: str
) -> None:
    assert parse(CopilotParser(), p_error(**data), code=1).result.error_kind == kind


def test_copilot_billing_not_configured_carries_its_remediation() -> None:
    remediation = "Set up billing at https://github.com/settings/billing to use this model."
    data = {"errorType": "quota", "errorCode": "billing_not_configured", "statusCode": 402,
            "message": "Billing is not configured", "remediation": remediation,
            "eligibleForAutoSwitch": True}  # fmt: skip
    r = parse(CopilotParser(), p_error(**data), code=1).result
    assert r.error_kind == "account" and r.remedy == remediation
    assert r.extra["eligible_for_auto_switch"] == "true"


def test_copilot_remediation_is_kept_for_any_kind() -> None:
    data = {"errorType": "rate_limit", "message": "You've reached your weekly rate limit.",
            "remediation": "Wait for the reset or upgrade your plan."}  # fmt: skip
    r = parse(CopilotParser(), p_error(**data), code=1).result
    assert r.error_kind == "rate-limit" and r.remedy == "Wait for the reset or upgrade your plan."


# --- the text fallback --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (ON_HOLD, "account"),
        (AWS, "account"),
        ("Credit balance is too low", "quota"),
        ("API Error: Overloaded", "overloaded"),
        (NO_CAPACITY, "overloaded"),
        ("Codex is currently experiencing high load.", "overloaded"),
    ],
)
def test_text_alone(text: str, kind: str) -> None:
    verdict = classify_error_text(text)
    assert verdict is not None and verdict.kind == kind
