"""Every adapter end to end through the real spawn path and its fake CLI (fake_script.md).

invocation → run_invocation (pipe) → parser → BackendResult, for each scripted
failure mode the fakes reproduce (backends.md §3, §7).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from jlgcli.backends.base import BackendRequest
from jlgcli.backends.registry import get_backend
from jlgcli.config.backend_ids import BUILTIN_BACKENDS

from .conftest import run_backend

BACKENDS = list(BUILTIN_BACKENDS)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


def script(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    *turns: dict[str, Any],
    repeat_last: bool = True,
) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": list(turns), "repeat_last": repeat_last}), "utf-8")
    monkeypatch.setenv("JLGCLI_FAKE_SCRIPT", str(path))
    return path


def request(work: Path, **fields: Any) -> BackendRequest:
    return BackendRequest(
        prompt=fields.pop("prompt", "Do the task.\nThen say DONE."), cwd=str(work), **fields
    )


@pytest.mark.parametrize("name", BACKENDS)
def test_default_reply(name: str, work: Path) -> None:
    result, _, shown = run_backend(get_backend(name), request(work))
    assert result.ok, result.error
    assert result.text.strip() == "fake reply\nDONE" and "DONE" in shown
    assert result.session_id and result.exit_code == 0


@pytest.mark.parametrize("name", BACKENDS)
def test_scripted_turns_files_and_recorded_prompts(
    name: str, work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = script(
        tmp_path,
        monkeypatch,
        {
            "text": "wrote it",
            "files": {"src/a.txt": "hello"},
            "session_id": "sess-1",
            "stdout_noise": "npm notice: junk before the stream",
            "stderr": "a warning",
        },
        {"text": "second\nDONE"},
    )
    backend = get_backend(name)
    first, _, _ = run_backend(backend, request(work, prompt="première\nligne", permissions="edit"))
    assert first.ok, first.error
    assert first.text.strip() == "wrote it" and first.session_id == "sess-1"
    assert (work / "src" / "a.txt").read_text(encoding="utf-8") == "hello"
    second, _, _ = run_backend(backend, request(work, prompt="again"))
    assert second.ok and second.text.strip() == "second\nDONE"
    records = Path(f"{path}.prompts")
    assert (records / "000.txt").read_text(encoding="utf-8").strip() == "première\nligne"
    assert (records / "001.txt").read_text(encoding="utf-8").strip() == "again"
    argv = json.loads((records / "000.argv.json").read_text(encoding="utf-8"))
    assert argv == list(backend.invocation(request(work, permissions="edit")).argv[1:])


@pytest.mark.parametrize("name", BACKENDS)
def test_read_only_writes_nothing(
    name: str, work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script(tmp_path, monkeypatch, {"text": "planned", "files": {"a.txt": "x"}})
    result, _, _ = run_backend(get_backend(name), request(work, permissions="read-only"))
    assert result.ok and not (work / "a.txt").exists()


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize(
    ("turn", "kind"),
    [
        ({"error": "auth"}, "auth"),
        ({"error": "backend"}, "backend"),
        ({"error": "truncated", "text": "a long answer cut short"}, "protocol"),
        ({"error": "backend", "exit_code": 0}, "backend"),
    ],
)
def test_failure_modes(
    name: str,
    turn: dict[str, Any],
    kind: str,
    work: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    script(tmp_path, monkeypatch, turn)
    result, _, _ = run_backend(get_backend(name), request(work))
    assert not result.ok and result.error_kind == kind, (result.error, result.output_tail)
    assert result.output_tail


@pytest.mark.parametrize("name", BACKENDS)
def test_rate_limit_with_reset(
    name: str, work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script(tmp_path, monkeypatch, {"error": "rate-limit", "reset_in_seconds": 7200})
    started = time.time()
    result, _, _ = run_backend(get_backend(name), request(work))
    assert not result.ok and result.error_kind == "rate-limit" and result.rate_limited
    assert result.rate_limit_reset is not None
    # claude words it to the minute; the others give a duration
    assert abs(result.rate_limit_reset - (started + 7200)) < 120


@pytest.mark.parametrize("name", [name for name in BACKENDS if name != "codex"])
def test_logged_out(name: str, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JLGCLI_FAKE_LOGGED_OUT", "1")
    result, _, _ = run_backend(get_backend(name), request(work))
    assert not result.ok and result.error_kind == "auth", result.error


def test_a_logged_out_codex_hangs_until_its_login_watch_stops_it(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 48: codex 0.171.0 logged out never fails fast (backends.md §10)
    import io

    from jlgcli.process.model import Limits, StopReason
    from jlgcli.runner.console import Console
    from jlgcli.runner.iteration import call_backend

    monkeypatch.setenv("JLGCLI_FAKE_LOGGED_OUT", "1")
    alone, outcome, _ = run_backend(get_backend("codex"), request(work), timeout=1.5)
    assert alone.error_kind == "timeout" and outcome.stop_reason is StopReason.TIMEOUT
    console = Console(0, out=io.StringIO(), err=io.StringIO())
    call = call_backend(get_backend("codex"), request(work), limits=Limits(total_timeout=120),
                        console=console)  # fmt: skip
    assert call.result.error_kind == "auth" and "not logged in" in (call.result.error or "")
    assert call.outcome.stop_reason is StopReason.CANCELLED


@pytest.mark.parametrize("name", BACKENDS)
def test_script_exhausted(
    name: str, work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script(tmp_path, monkeypatch, {"text": "only one"}, repeat_last=False)
    assert run_backend(get_backend(name), request(work))[0].ok
    result, _, _ = run_backend(get_backend(name), request(work))
    assert not result.ok and "script exhausted" in (result.error or "")


@pytest.mark.slow
@pytest.mark.parametrize("name", BACKENDS)
def test_hang_is_stopped_by_the_idle_timeout(
    name: str, work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script(tmp_path, monkeypatch, {"hang": True})
    result, outcome, _ = run_backend(get_backend(name), request(work), idle=1.0)
    assert not result.ok and result.error_kind == "timeout"
    assert outcome.stop_reason.value == "idle"


def test_claude_resume_is_scoped_to_the_cwd(work: Path, tmp_path: Path) -> None:
    """backends.md §6: --resume only finds sessions of the current cwd."""
    claude = get_backend("claude")
    first, _, _ = run_backend(claude, request(work))
    again, _, _ = run_backend(claude, request(work, resume_session=first.session_id))
    assert again.ok and again.session_id == first.session_id
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    lost, _, _ = run_backend(claude, request(elsewhere, resume_session=first.session_id))
    assert not lost.ok and "No conversation found" in (lost.error or "")


def test_codex_resume_by_thread_id(work: Path) -> None:
    codex = get_backend("codex")
    first, _, _ = run_backend(codex, request(work))
    again, _, _ = run_backend(codex, request(work, resume_session=first.session_id))
    assert again.ok and again.session_id == first.session_id
    # the fake reports the thread's running total, as codex does: each call counts its own
    assert (first.input_tokens, again.input_tokens) == (1200, 1200)
    bad, _, _ = run_backend(codex, request(work, resume_session="no-such-thread"))
    assert not bad.ok and "no rollout found" in (bad.error or "")


def test_a_hanging_fake_gives_up_after_its_cap(
    work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An orphaned fake (its test killed hard) must not hang for ever."""
    script(tmp_path, monkeypatch, {"hang": True})
    monkeypatch.setenv("JLGCLI_FAKE_HANG_MAX", "0.2")
    result, outcome, _ = run_backend(get_backend("codex"), request(work))
    assert outcome.exit_code == 124 and not result.ok


# --- limit, quota and auth signals through the real spawn path (backends.md §8, issue 16) ---
SIGNALS = [
    ("claude", {"error": "quota"}, "quota"),
    ("claude", {"error": "auth-invalid"}, "auth"),
    ("claude", {"error": "far-limit", "reset_in_seconds": 5 * 86400}, "rate-limit"),
    ("claude", {"error": "legacy-limit", "reset_in_seconds": 3 * 3600}, "rate-limit"),
    ("codex", {"error": "quota"}, "quota"),
    ("codex", {"error": "auth-invalid"}, "auth"),
    ("codex", {"error": "context", "signal": "hiccup"}, "backend"),
    ("copilot", {"error": "quota"}, "quota"),
    ("copilot", {"error": "auth-invalid"}, "auth"),
    ("gemini", {"error": "quota"}, "quota"),
    ("gemini", {"error": "auth-invalid"}, "auth"),
    ("gemini", {"error": "far-limit", "reset_in_seconds": 19 * 3600 + 14 * 60 + 47}, "rate-limit"),
    ("gemini", {"error": "error-event"}, "backend"),
]


@pytest.mark.parametrize(("name", "turn", "kind"), SIGNALS)
def test_limit_quota_and_auth_signals(
    name: str,
    turn: dict[str, Any],
    kind: str,
    work: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    script(tmp_path, monkeypatch, turn)
    started = time.time()
    result, _, _ = run_backend(get_backend(name), request(work))
    assert not result.ok and result.error_kind == kind, (result.error, result.output_tail)
    assert result.rate_limited == (kind == "rate-limit")
    if kind == "rate-limit":  # a far reset is kept (the run core compares it with its deadline)
        assert result.rate_limit_reset is not None
        if turn["error"] != "legacy-limit":  # "resets 3pm" has no zone: local time
            assert abs(result.rate_limit_reset - (started + turn["reset_in_seconds"])) < 120
    else:
        assert result.rate_limit_reset is None
    assert "gemini failed" not in (result.error or "")


def test_copilot_invalid_token_names_the_auth_line(
    work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script(tmp_path, monkeypatch, {"error": "auth-invalid"})
    result, _, _ = run_backend(get_backend("copilot"), request(work))
    assert result.error == "Error: Authentication token found but could not be validated."


def test_gemini_keeps_the_reason_of_its_error_event(
    work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script(tmp_path, monkeypatch, {"error": "error-event"})
    result, _, _ = run_backend(get_backend("gemini"), request(work))
    assert result.error == "Model stream ended unexpectedly"


@pytest.mark.parametrize(
    ("name", "turn"),
    [
        ("claude", {"text": "paid answer\nDONE", "signal": "overage"}),
        ("codex", {"text": "after a hiccup\nDONE", "signal": "hiccup"}),
        ("copilot", {"text": "a long answer in two chunks\nDONE", "signal": "chunks"}),
    ],
)
def test_non_fatal_signals_keep_the_answer(
    name: str, turn: dict[str, Any], work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script(tmp_path, monkeypatch, turn)
    result, _, _ = run_backend(get_backend(name), request(work))
    assert result.ok and result.text.strip() == turn["text"], result.error
    assert not result.rate_limited and result.rate_limit_reset is None


def test_claude_runs_when_started_inside_a_claude_code_session(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """claude 2.1.39+ refuses to run with CLAUDECODE set; jlgcli's child must not inherit it."""
    monkeypatch.setenv("CLAUDECODE", "1")
    monkeypatch.setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
    result, _, _ = run_backend(get_backend("claude"), request(work))
    assert result.ok, result.error


def test_the_fake_claude_refuses_to_nest_like_the_real_one(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jlgcli.process import capture

    monkeypatch.setenv("CLAUDECODE", "1")
    answer = capture(["claude", "-p", "hi"], timeout=20)
    assert answer.exit_code == 1 and "inside another Claude Code session" in answer.stderr
