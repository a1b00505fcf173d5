"""claude adapter: stream-json parser on recorded lines, argv per option, probes (F-002)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jlgcli.backends.base import BackendRequest
from jlgcli.backends.claude import ClaudeBackend, ClaudeParser, check_login, running_as_root
from jlgcli.backends.probing import ProbeContext
from jlgcli.process.model import StopReason

from .conftest import lines, parse

SID = "29bc3fda-9ee8-415d-96ea-427936c6744f"
# backends.md §5.1, observed (unauthenticated), init trimmed
INIT = json.dumps(
    {
        "type": "system",
        "subtype": "init",
        "cwd": "/w",
        "session_id": SID,
        "model": "claude-opus-4-8[1m]",
        "apiKeySource": "none",
        "claude_code_version": "2.1.197",
    }
)
AUTH_ASSISTANT = (
    '{"type":"assistant","message":{"id":"569bb4f1","model":"<synthetic>","role":"assistant",'
    '"stop_reason":"stop_sequence","type":"message","usage":{"input_tokens":0,"output_tokens":0},'
    '"content":[{"type":"text","text":"Not logged in · Please run /login"}]},'
    '"parent_tool_use_id":null,"session_id":"' + SID + '","uuid":"06881d17",'
    '"error":"authentication_failed"}'
)
AUTH_RESULT = (
    '{"type":"result","subtype":"success","is_error":true,"api_error_status":null,'
    '"duration_ms":464,"duration_api_ms":0,"num_turns":1,'
    '"result":"Not logged in · Please run /login","stop_reason":"stop_sequence",'
    '"session_id":"' + SID + '","total_cost_usd":0,"usage":{"input_tokens":0,'
    '"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0},'
    '"modelUsage":{},"permission_denials":[],"terminal_reason":"completed","uuid":"b7adfa64"}'
)
API_RETRY = (
    '{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,'
    '"retry_delay_ms":524.4266954316772,"error_status":null,"error":"unknown",'
    '"session_id":"304a6682","uuid":"17713690"}'
)
NO_CONVERSATION = (
    '{"type":"result","subtype":"error_during_execution","duration_ms":0,"duration_api_ms":0,'
    '"is_error":true,"num_turns":0,"stop_reason":null,'
    '"session_id":"11111111-2222-4333-8444-555555555555","total_cost_usd":0,"usage":{},'
    '"modelUsage":{},"permission_denials":[],"uuid":"b4213164","errors":["No conversation '
    'found with session ID: 11111111-2222-4333-8444-555555555555"]}'
)


def assistant(*blocks: dict[str, object], error: str | None = None) -> str:
    event: dict[str, object] = {
        "type": "assistant",
        "session_id": SID,
        "message": {"role": "assistant", "content": list(blocks)},
    }
    if error:
        event["error"] = error
    return json.dumps(event)


def result(text: str, *, is_error: bool = False, cost: float = 0.0123) -> str:
    return json.dumps(
        {
            "type": "result",
            "subtype": "success",
            "is_error": is_error,
            "num_turns": 2,
            "result": text,
            "session_id": SID,
            "total_cost_usd": cost,
            "usage": {
                "input_tokens": 12,
                "cache_creation_input_tokens": 100,
                "cache_read_input_tokens": 300,
                "output_tokens": 7,
            },
        }
    )


SUCCESS = lines(
    INIT,
    assistant(
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls -la"}},
    ),
    json.dumps(
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1"}]}}
    ),
    assistant({"type": "text", "text": "All good.\nDONE"}),
    result("All good.\nDONE"),
)


def test_success_stream() -> None:
    parsed = parse(ClaudeParser(), SUCCESS)
    r = parsed.result
    assert r.ok and r.text == "All good.\nDONE" and r.error is None
    assert r.session_id == SID
    assert r.cost_usd == pytest.approx(0.0123)
    assert (r.input_tokens, r.output_tokens) == (412, 7)
    assert r.extra["model"] == "claude-opus-4-8[1m]"
    assert "Let me look.\n[tool] Bash ls -la\n" in parsed.shown
    assert parsed.shown.endswith("All good.\nDONE\n")


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1, max_value=97))
def test_chunking_does_not_change_the_result(chunk: int) -> None:
    assert (
        parse(ClaudeParser(), SUCCESS, chunk=chunk).result == parse(ClaudeParser(), SUCCESS).result
    )


def test_recorded_unauthenticated_run_is_auth() -> None:
    r = parse(ClaudeParser(), lines(INIT, AUTH_ASSISTANT, AUTH_RESULT), code=1).result
    assert not r.ok and r.error_kind == "auth"
    assert r.error == "Not logged in · Please run /login"
    assert r.text == "" and r.session_id == SID
    assert r.cost_usd == 0.0  # reported by the CLI, not invented
    assert r.extra["apiKeySource"] == "none"


def test_is_error_with_exit_zero_is_still_an_error() -> None:
    """claude-code#79500: API errors as subtype success + is_error, exit code 0."""
    stream = lines(INIT, result("API Error: 500 Internal server error", is_error=True))
    r = parse(ClaudeParser(), stream, code=0).result
    assert not r.ok and r.error_kind == "backend" and "API Error: 500" in (r.error or "")


def test_api_retry_is_shown_as_a_notice() -> None:
    parsed = parse(ClaudeParser(), lines(INIT, API_RETRY), reason=StopReason.IDLE)
    assert parsed.shown == "[claude] API error (unknown), retry 1/10 in 0.5s\n"
    assert parsed.result.error_kind == "timeout" and not parsed.result.ok


def test_error_subtype_without_result_field() -> None:
    r = parse(ClaudeParser(), lines(NO_CONVERSATION), code=1).result
    assert not r.ok and r.error_kind == "backend"
    assert r.error == "No conversation found with session ID: 11111111-2222-4333-8444-555555555555"


def test_rate_limit_event_gives_the_reset_time() -> None:
    event = json.dumps(
        {
            "type": "rate_limit_event",
            "rate_limit_info": {
                "status": "rejected",
                "resetsAt": 1790000000,
                "rateLimitType": "five_hour",
            },
        }
    )
    text = "You've hit your limit · resets 1pm (Europe/Lisbon)"
    stream = lines(
        INIT,
        event,
        assistant({"type": "text", "text": text}, error="rate_limit"),
        result(text, is_error=True),
    )
    parsed = parse(ClaudeParser(), stream, code=1)
    r = parsed.result
    assert not r.ok and r.error_kind == "rate-limit" and r.rate_limited
    assert r.rate_limit_reset == 1790000000.0
    assert "[claude] five-hour limit reached" in parsed.shown


@pytest.mark.parametrize("apostrophe", ["'", "’"])
def test_rate_limit_text_alone_is_parsed(apostrophe: str) -> None:
    text = f"You{apostrophe}ve hit your limit · resets 1pm (UTC)"
    r = parse(ClaudeParser(), lines(INIT, result(text, is_error=True)), code=1).result
    assert r.error_kind == "rate-limit" and r.rate_limited and r.rate_limit_reset is not None


def test_allowed_warning_is_only_a_notice() -> None:
    event = json.dumps(
        {"type": "rate_limit_event", "rate_limit_info": {"status": "allowed_warning"}}
    )
    parsed = parse(ClaudeParser(), lines(INIT, event, result("ok")))
    assert parsed.result.ok and not parsed.result.rate_limited
    assert parsed.shown == "[claude] close to the usage limit\n"


def test_text_mode_auth_error_on_stdout() -> None:
    r = parse(ClaudeParser(), "Not logged in · Please run /login\n", code=1).result
    assert not r.ok and r.error_kind == "auth"


def test_pty_output_with_crlf_and_reset_noise() -> None:
    """backends.md §3 (b): the same JSONL with CRLF and trailing escape sequences."""
    noise = "\x1b[?1006l\x1b[?1003l\x1b[?25h\x1b7\x1b[r\x1b8\x1b]0;\x07"
    stream = SUCCESS.replace("\n", "\r\n") + noise
    r = parse(ClaudeParser(), stream).result
    assert r.ok and r.text == "All good.\nDONE"


@pytest.mark.parametrize(
    ("stdout", "stderr", "code", "kind", "words"),
    [
        (lines(INIT) + '{"type":"assistant","message":{"con', "", 0, "protocol", "truncated"),
        ("some garbage\n\x00\x01binary", "", 0, "protocol", "did not print stream-json"),
        ("", "error: unknown option '--bogus'\n", 1, "backend", "unknown option '--bogus'"),
        ("", "", 0, "protocol", "without any output"),
        ("", "", 1, "backend", "exited with code 1: no output"),
    ],
)
def test_broken_outputs(stdout: str, stderr: str, code: int, kind: str, words: str) -> None:
    r = parse(ClaudeParser(), stdout, stderr, code=code).result
    assert not r.ok and r.error_kind == kind and words in (r.error or "")
    assert r.output_tail == (stderr + stdout)[-len(r.output_tail) :]


def test_noise_before_a_valid_stream_is_tolerated() -> None:
    r = parse(ClaudeParser(), "npm notice: update available\n" + SUCCESS).result
    assert r.ok and r.text == "All good.\nDONE"


def test_cancelled_run() -> None:
    r = parse(ClaudeParser(), lines(INIT), reason=StopReason.CANCELLED, code=None).result
    assert not r.ok and r.error_kind is None and "cancelled" in (r.error or "")


# -- invocation -----------------------------------------------------------------------------
BASE = ("claude", "-p", "--output-format", "stream-json", "--verbose")


@pytest.mark.parametrize(
    ("fields", "tail"),
    [
        ({}, ()),
        ({"model": "opus"}, ("--model", "opus")),
        ({"permissions": "read-only"}, ("--permission-mode", "plan")),
        ({"permissions": "edit"}, ("--permission-mode", "acceptEdits")),
        ({"permissions": "full"}, ("--permission-mode", "bypassPermissions")),
        ({"resume_session": "abc"}, ("--resume", "abc")),
        ({"max_budget_usd": 1.5}, ("--max-budget-usd", "1.5000")),  # issue 34: what is left
        ({"max_budget_usd": 0.0}, ("--max-budget-usd", "0.0001")),  # never "no cap"
        ({"extra_args": ("--max-turns", "3")}, ("--max-turns", "3")),
    ],
)
def test_invocation_argv(fields: dict[str, object], tail: tuple[str, ...]) -> None:
    request = BackendRequest(prompt="do it\nsecond line", cwd="/w", **fields)  # type: ignore[arg-type]
    inv = ClaudeBackend(is_root=lambda: False).invocation(request)
    assert inv.argv == BASE + tail
    assert inv.stdin == "do it\nsecond line" and inv.cwd == "/w" and inv.transport == "pipe"
    assert "do it" not in " ".join(inv.argv)  # the prompt never goes on the command line
    assert dict(inv.env) == {}


@pytest.mark.parametrize(
    ("root", "permissions", "sandbox"),
    [(True, "full", True), (True, "edit", False), (False, "full", False)],
)
def test_is_sandbox_only_for_root_with_full(root: bool, permissions: str, sandbox: bool) -> None:
    request = BackendRequest(prompt="p", cwd="/w", permissions=permissions)  # type: ignore[arg-type]
    inv = ClaudeBackend(is_root=lambda: root).invocation(request)
    assert (dict(inv.env).get("IS_SANDBOX") == "1") is sandbox


def test_running_as_root() -> None:
    assert running_as_root(lambda: 0) and not running_as_root(lambda: 1000)
    assert not running_as_root(None)  # Windows


# -- probes through the fake ----------------------------------------------------------------
def test_probe_available() -> None:
    a = ClaudeBackend().probe()
    assert (a.status, a.version) == ("available", "2.1.197")
    assert a.path and Path(a.path).name.startswith("claude")
    assert "logged in" in a.detail


def test_probe_unauthenticated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JLGCLI_FAKE_LOGGED_OUT", "1")
    a = ClaudeBackend().probe()
    assert a.status == "unauthenticated" and a.hint and "claude auth login" in a.hint


def test_probe_missing(monkeypatch: pytest.MonkeyPatch, system_bin: Path) -> None:
    monkeypatch.setenv("PATH", str(system_bin))
    a = ClaudeBackend().probe()
    assert a.status == "missing" and a.hint and "npm install -g @anthropic-ai/claude-code" in a.hint


def test_probe_unsupported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JLGCLI_FAKE_VERSION", "1.0.30")
    a = ClaudeBackend().probe()
    assert (a.status, a.version) == ("unsupported", "1.0.30") and "2.0.0" in a.detail


def test_probe_before_auth_status_existed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JLGCLI_FAKE_VERSION", "2.1.30")
    monkeypatch.setenv("JLGCLI_FAKE_LOGGED_OUT", "1")  # not asked: that claude has no `auth status`
    a = ClaudeBackend().probe()
    assert a.status == "available" and "not checked" in a.detail


@pytest.mark.parametrize(
    ("version", "noted"),
    [("2.0.30", True), ("2.1.44", True), ("2.1.45", False), ("2.1.197", False)],
)
def test_probe_says_when_limits_are_read_from_text(
    monkeypatch: pytest.MonkeyPatch, version: str, noted: bool
) -> None:
    """issue 16: claude before 2.1.45 has no rate_limit_event; `jlgcli backends` says so."""
    monkeypatch.setenv("JLGCLI_FAKE_VERSION", version)
    a = ClaudeBackend().probe()
    assert a.status == "available"
    assert ("usage limits read from claude's text" in a.detail) == noted


def test_invocation_drops_the_nested_session_guard(tmp_path: Path) -> None:
    inv = ClaudeBackend().invocation(BackendRequest(prompt="p", cwd=str(tmp_path)))
    assert {"CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT"} <= set(inv.env_remove)


def test_hanging_probe_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JLGCLI_FAKE_PROBE_HANG", "1")
    a = ClaudeBackend().probe(timeout=0.5)
    assert a.status == "unknown" and a.hint


@pytest.mark.parametrize(
    ("stdout", "code", "state"),
    [
        ('{"loggedIn": true, "authMethod": "api_key"}', 0, "ok"),
        ('{"loggedIn": false}', 1, "missing"),
        ("Not logged in. Run claude auth login to authenticate.", 1, "missing"),
        ("error: unknown command 'auth'", 1, "unknown"),
        ("[1, 2]", 0, "unknown"),
    ],
)
def test_auth_status_answers(
    monkeypatch: pytest.MonkeyPatch, stdout: str, code: int, state: str
) -> None:
    from jlgcli.backends import probing
    from jlgcli.process.model import ProcessOutcome, StopReason
    from jlgcli.process.outcome import OutputTail

    answer = ProcessOutcome(code, None, StopReason.EXITED, 0.1, output=OutputTail.holding(stdout))
    monkeypatch.setattr(probing, "run_quietly", lambda argv, **_: answer)
    assert check_login(ProbeContext("claude", 0.0, {})).state == state


def test_root_refusal_says_what_claude_needs() -> None:
    # issue 34: claude's own refusal as root (backends.md §2) read as a hint, not an obscure exit 1
    refusal = (
        "--dangerously-skip-permissions cannot be used with root/sudo privileges for "
        "security reasons\n"
    )
    r = parse(ClaudeParser(), "", stderr=refusal, code=1).result
    assert not r.ok and r.error_kind == "input"
    assert "IS_SANDBOX=1" in (r.error or "") and "--permissions edit" in (r.error or "")


def test_the_call_budget_cap_is_its_own_kind() -> None:
    final = {"type": "result", "subtype": "error_max_budget_usd", "is_error": True,
             "total_cost_usd": 0.02, "errors": ["Reached maximum budget ($0.02)"]}  # fmt: skip
    r = parse(ClaudeParser(), lines(INIT, json.dumps(final)), code=1).result
    assert r.error_kind == "budget" and r.cost_usd == 0.02


def test_probe_installed_leaves_the_login_to_the_call(monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 34: run/loop start the first call without `claude auth status`
    monkeypatch.setenv("JLGCLI_FAKE_LOGGED_OUT", "1")
    a = ClaudeBackend().probe_installed()
    assert (a.status, a.version) == ("available", "2.1.197")
    assert "login not checked before the run" in a.detail


@pytest.mark.parametrize(
    ("version", "total"),
    [("2.1.332", True), ("2.1.277", True), ("2.1.276", False), ("2.1.197", False)],
)
def test_total_cost_is_the_sessions_running_total_from_2_1_277(version: str, total: bool) -> None:
    # 2.1.332 result schema: "read the latest result rather than summing"; 2.1.221 restarted a
    # resumed process at zero (iOfficeAI/AionCore#767), 2.1.278 restored the saved total
    # (Enderfga/claw-orchestrator#112)
    init = INIT.replace('"2.1.197"', json.dumps(version))
    parsed = parse(ClaudeParser(), lines(init, result("ok", cost=0.03)))
    assert parsed.result.cost_usd == 0.03
    assert parsed.result.cost_is_session_total is total


def test_without_an_init_event_the_cost_is_the_calls_own() -> None:
    parsed = parse(ClaudeParser(), lines(result("ok", cost=0.03)))
    assert parsed.result.cost_is_session_total is False
