"""codex adapter: `exec --json` parser on recorded lines, argv per option, probes (F-002)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from jlgcli.backends.base import BackendRequest
from jlgcli.backends.codex import CodexBackend, CodexParser, check_login
from jlgcli.backends.probing import ProbeContext
from jlgcli.process.model import ProcessOutcome, StopReason
from jlgcli.process.outcome import OutputTail

from .conftest import lines, parse

THREAD = '{"type":"thread.started","thread_id":"01a200ec-243f-79f2-ad2b-2f56dd16a7a4"}'
# backends.md §5.2, observed offline
OFFLINE = lines(
    THREAD,
    '{"type":"turn.started"}',
    '{"type":"error","message":"Reconnecting... 2/5 (stream disconnected before completion: '
    'failed to lookup address information: Name does not resolve)"}',
    '{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Falling back from '
    'WebSockets to HTTPS transport. stream disconnected before completion"}}',
    '{"type":"error","message":"Reconnecting... waiting for network (Connection failed: error '
    'sending request)"}',
)
STDERR_WARNING = (
    "WARNING: proceeding, even though we could not create PATH aliases: Refusing to create "
    'helper binaries under temporary dir "/tmp/x"\n'
)


def _answer(
    code: int | None, stdout: str, stderr: str, timed_out: bool, duration: float
) -> ProcessOutcome:
    """A probe's outcome holding this output (what ``capture`` returns)."""
    reason = StopReason.TIMEOUT if timed_out else StopReason.EXITED
    return ProcessOutcome(code, None, reason, duration, output=OutputTail.holding(stdout, stderr))


def item(kind: str, done: bool = True, **fields: object) -> str:
    event = "item.completed" if done else "item.started"
    return json.dumps({"type": event, "item": {"id": "item_1", "type": kind, **fields}})


SUCCESS = lines(
    THREAD,
    '{"type":"turn.started"}',
    item("reasoning", text="thinking"),
    item("command_execution", done=False, command="pytest -q", status="in_progress"),
    item("command_execution", command="pytest -q", exit_code=0, status="completed"),
    item("file_change", changes=[{"path": "a.py", "kind": "update"}], status="completed"),
    item("agent_message", text="first message"),
    item("agent_message", text="Done.\nDONE"),
    '{"type":"turn.completed","usage":{"input_tokens":1200,"cached_input_tokens":200,'
    '"output_tokens":34,"reasoning_output_tokens":0}}',
)


def test_success_stream_with_stderr_logs() -> None:
    parsed = parse(CodexParser(), SUCCESS, STDERR_WARNING)
    r = parsed.result
    assert r.ok and r.text == "Done.\nDONE"  # the last agent_message only
    assert r.session_id == "01a200ec-243f-79f2-ad2b-2f56dd16a7a4"
    assert (r.input_tokens, r.output_tokens, r.cost_usd) == (1200, 34, None)
    assert parsed.shown == "[run] pytest -q\n[edit] a.py\nfirst message\nDone.\nDONE\n"


def test_recorded_offline_stream_killed_by_idle_timeout() -> None:
    parsed = parse(CodexParser(), OFFLINE, reason=StopReason.IDLE, code=None)
    assert parsed.result.error_kind == "timeout" and not parsed.result.ok
    assert parsed.shown.count("[codex] Reconnecting...") == 2
    assert "[codex] Falling back from WebSockets" in parsed.shown


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("exceeded retry limit, last status: 401 Unauthorized", "auth"),
        (
            "You’ve hit your usage limit. Upgrade to Plus to continue using Codex "
            "(https://chatgpt.com/explore/plus), or try again in 5 days 22 hours 11 minutes.",
            "rate-limit",
        ),
        # openai/codex#8987: billing quota, no reset → quota (issue 16)
        ("Quota exceeded. Check your plan and billing details.", "quota"),
        ("stream error: unexpected status 500", "backend"),
    ],
)
def test_turn_failed(message: str, kind: str) -> None:
    stream = lines(
        THREAD,
        '{"type":"turn.started"}',
        json.dumps({"type": "error", "message": message}),
        json.dumps({"type": "turn.failed", "error": {"message": message}}),
    )
    r = parse(CodexParser(), stream, code=1).result
    assert not r.ok and r.error == message and r.error_kind == kind
    if kind == "rate-limit":
        assert r.rate_limited
    if "5 days" in message:
        assert r.rate_limit_reset is not None


def test_completed_but_nonzero_exit_is_a_failure() -> None:
    r = parse(CodexParser(), SUCCESS, code=3).result
    assert not r.ok and "code 3" in (r.error or "")


@pytest.mark.parametrize(
    ("stderr", "code", "kind", "words"),
    [
        (
            "Reading additional input from stdin...\nNot inside a trusted directory and "
            "--skip-git-repo-check was not specified.\n",
            1,
            "backend",
            "Not inside a trusted",
        ),
        ("error: unexpected argument '--full-auto' found\n", 2, "backend", "--full-auto"),
        (
            "Error: thread/resume: thread/resume failed: no rollout found for thread id x\n",
            1,
            "backend",
            "no rollout found",
        ),
    ],
)
def test_errors_before_any_event(stderr: str, code: int, kind: str, words: str) -> None:
    r = parse(CodexParser(), "", stderr, code=code).result
    assert not r.ok and r.error_kind == kind and words in (r.error or "")


def test_truncated_stream() -> None:
    r = parse(CodexParser(), lines(THREAD) + '{"type":"item.completed","item":{"id"').result
    assert not r.ok and r.error_kind == "protocol" and "truncated" in (r.error or "")


def test_other_items_are_shown_briefly() -> None:
    stream = lines(
        item("mcp_tool_call", done=False, server="fs", tool="read"),
        item("web_search", done=False, query="pydantic v2"),
        item("file_change", changes="bad"),
        item("todo_list", items=[]),
        '{"type":"item.completed","item":"bad"}',
    )
    shown = parse(CodexParser(), stream).shown
    assert shown == "[tool] fs.read\n[search] pydantic v2\n"


# -- invocation -----------------------------------------------------------------------------
BASE = ("codex", "exec", "--json", "--skip-git-repo-check")


@pytest.mark.parametrize(
    ("fields", "argv"),
    [
        ({}, (*BASE, "-")),
        ({"model": "gpt-5"}, (*BASE, "-m", "gpt-5", "-")),
        ({"permissions": "read-only"}, (*BASE, "-s", "read-only", "-")),
        ({"permissions": "edit"}, (*BASE, "-s", "workspace-write", "-")),
        ({"permissions": "full"}, (*BASE, "-s", "danger-full-access", "-")),
        ({"resume_session": "th-1"}, (*BASE, "resume", "th-1", "-")),
        (
            {"extra_args": ("-c", "x=1"), "resume_session": "t"},
            (*BASE, "-c", "x=1", "resume", "t", "-"),
        ),
    ],
)
def test_invocation_argv(fields: dict[str, object], argv: tuple[str, ...]) -> None:
    inv = CodexBackend().invocation(BackendRequest(prompt="p\nq", cwd="/w", **fields))  # type: ignore[arg-type]
    assert inv.argv == argv and inv.stdin == "p\nq" and inv.cwd == "/w"


# -- probes ---------------------------------------------------------------------------------
def test_probe_available() -> None:
    a = CodexBackend().probe()
    assert (a.status, a.version) == ("available", "0.169.0") and "ChatGPT" in a.detail


def test_probe_unauthenticated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JLGCLI_FAKE_LOGGED_OUT", "1")
    a = CodexBackend().probe()
    assert a.status == "unauthenticated" and a.hint and "codex login" in a.hint


def test_probe_api_key_counts_as_login(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JLGCLI_FAKE_LOGGED_OUT", "1")
    monkeypatch.setenv("CODEX_API_KEY", "sk-test")
    assert CodexBackend().probe().status == "available"


def test_probe_unsupported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JLGCLI_FAKE_VERSION", "0.30.0")
    assert CodexBackend().probe().status == "unsupported"


def test_hanging_probe_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JLGCLI_FAKE_PROBE_HANG", "1")
    assert CodexBackend().probe(timeout=0.4).status == "unknown"


@pytest.mark.parametrize(
    ("answer", "state"),
    [
        (None, "unknown"),
        (_answer(0, "Logged in using ChatGPT\n", "", False, 0.1), "ok"),
        (_answer(1, "", "Not logged in\n", False, 0.1), "missing"),
        (_answer(1, "", "boom\n", False, 0.1), "unknown"),
        (_answer(None, "", "", True, 0.1), "unknown"),
    ],
)
def test_login_status_answers(
    monkeypatch: pytest.MonkeyPatch, answer: ProcessOutcome | None, state: str
) -> None:
    from jlgcli.backends import probing

    monkeypatch.setattr(probing, "run_quietly", lambda argv, **_: answer)
    assert check_login(ProbeContext("codex", 0.0, {})).state == state


def test_resumed_thread_reports_this_calls_tokens_not_the_thread_total() -> None:
    """backends.md §8: turn.completed.usage is the thread's total; a resumed call adds the
    difference (codex-rs/exec/src/event_processor_with_jsonl_output.rs)."""
    backend = CodexBackend()

    def call(total_in: int, total_out: int, thread: str = "01a200ec") -> tuple[int | None, ...]:
        stream = lines(
            json.dumps({"type": "thread.started", "thread_id": thread}),
            json.dumps(
                {
                    "type": "turn.completed",
                    "usage": {"input_tokens": total_in, "output_tokens": total_out},
                }
            ),
        )
        r = parse(backend.parser(), stream).result
        return r.input_tokens, r.output_tokens

    assert call(1000, 30) == (1000, 30)
    assert call(2500, 70) == (1500, 40)
    assert call(400, 10, thread="other") == (400, 10)  # another thread starts from zero
    assert call(300, 5) == (300, 5)  # totals that shrank: a fresh thread under that id


def test_probe_installed_leaves_the_login_to_the_call(monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 34: run/loop start the first call without `codex login status`
    monkeypatch.setenv("JLGCLI_FAKE_LOGGED_OUT", "1")
    a = CodexBackend().probe_installed()
    assert a.status == "available" and "login not checked before the run" in a.detail


# --- the login watch beside a call (issue 48) ----------------------------------------------------
def test_login_check_only_where_nothing_says_logged_in(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path))
    monkeypatch.delenv("CODEX_API_KEY", raising=False)
    backend = CodexBackend()
    check = backend.login_check()
    assert check is not None
    ctx = ProbeContext("codex", time.monotonic() + 10, dict(os.environ))
    assert check(ctx).state == "ok"
    assert backend.login_check() is None  # seen logged in: not checked again
    (tmp_path / "auth.json").write_text("{}", encoding="utf-8")
    assert CodexBackend().login_check() is None  # what `codex login status` reads is there
    (tmp_path / "auth.json").unlink()
    monkeypatch.setenv("CODEX_API_KEY", "sk-test")
    assert CodexBackend().login_check() is None


def test_login_watch_calls_back_only_for_a_missing_login() -> None:
    import threading

    from jlgcli.backends.login_watch import LoginWatch
    from jlgcli.backends.probing import AuthVerdict

    called = threading.Event()

    def missing(ctx: ProbeContext) -> AuthVerdict:
        return AuthVerdict("missing", "not logged in")

    def broken(ctx: ProbeContext) -> AuthVerdict:
        raise RuntimeError("boom")

    def slow(ctx: ProbeContext) -> AuthVerdict:
        assert ctx.cancel is not None
        ctx.cancel.wait(30)
        return AuthVerdict("missing", "too late")

    watch = LoginWatch("codex", missing, called.set)
    watch._thread.join()
    assert called.is_set() and watch.missing is not None
    called.clear()
    watch = LoginWatch("codex", broken, called.set)
    watch._thread.join()
    assert not called.is_set() and watch.missing is None
    assert watch.verdict is not None and "boom" in watch.verdict.detail

    def interrupted(ctx: ProbeContext) -> AuthVerdict:
        raise KeyboardInterrupt  # what capture raises (Interrupted) once stop() cancels it

    watch = LoginWatch("codex", interrupted, called.set)
    watch._thread.join()
    assert not called.is_set() and watch.missing is None
    watch = LoginWatch("codex", slow, called.set)
    watch.stop()  # the call ended first: the check is stopped and says nothing
    assert not called.is_set()


def test_the_login_watch_checks_only_a_call_that_outlives_its_delay() -> None:
    # issue 49: a check started with the call competed with the agent's start, and a
    # call that ends first did not hang
    import threading

    from jlgcli.backends.login_watch import LoginWatch
    from jlgcli.backends.probing import AuthVerdict

    checked: list[float] = []
    called = threading.Event()

    def missing(ctx: ProbeContext) -> AuthVerdict:
        checked.append(ctx.deadline)
        return AuthVerdict("missing", "not logged in")

    watch = LoginWatch("codex", missing, called.set, delay=30)
    watch.stop()  # the call ended within the delay
    assert checked == [] and watch.verdict is None and not called.is_set()
    watch = LoginWatch("codex", missing, called.set, delay=0)
    watch._thread.join()
    assert len(checked) == 1 and called.is_set() and watch.missing is not None
