"""Resume state as input (issue 31): the schema, `latest`, the run lock, what is read back.

In-process with the fake backend and clock of ``test_engine``; the console-script
cases are in ``tests/e2e/test_resume_trail.py``.
"""

from __future__ import annotations

import errno
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from support.fake_backend import FakeBackend, run_loop

from jlgcli.config import started
from jlgcli.errors import ExitCode, JlgError
from jlgcli.prompts import Prompt
from jlgcli.records import MISSING, fields
from jlgcli.runner.options import RunOptions, build_spec
from jlgcli.runner.resume import ResumeState, find_state, read_state, write_state
from jlgcli.runner.resume_options import resume_hint, stricter
from jlgcli.runner.spec import RunSpec
from jlgcli.runner.state_schema import validate_options, validate_state
from jlgcli.runner.summary import RunSummary

STATE = {
    "run_id": "r1", "task": "Do it.", "prompt_source": "task.md", "backend": "claude",
    "completion_mode": "marker", "options": {}, "iterations": 0, "elapsed_ms": 0,
    "last_report": "", "metrics": [], "version": 1,
}  # fmt: skip
METRIC = {"index": 1, "durationMs": 5, "exitCode": 0, "stopReason": "exited",
          "completion": "continue", "outputChars": 3}  # fmt: skip


def run(tmp_path: Path, backend: FakeBackend, **fields: Any) -> tuple[RunSummary, str]:
    summary, err = run_loop(tmp_path, backend, **fields)
    return summary, err


# --- the schema -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"run_id": None}, "'run_id'"),
        ({"version": 2}, "'version' must be 1"),
        ({"cost_usd": -1}, "'cost_usd'"),
        ({"cost_usd": float("nan")}, "'cost_usd'"),
        ({"iterations": True}, "'iterations'"),
        ({"stop_cause": "pwned"}, "'stop_cause'"),
        ({"metrics": [{"index": 1}]}, "'metrics[0].durationMs' is missing"),
        ({"metrics": [{**METRIC, "exitCode": "0"}]}, "'metrics[0].exitCode'"),
        ({"metrics": [{**METRIC, "gates": [{"command": "x"}]}]}, "'metrics[0].gates'"),
        ({"metrics": [{**METRIC, "diffStat": {"files": -1}}]}, "'metrics[0].diffStat'"),
    ],
)
def test_every_field_is_checked(change: dict[str, Any], words: str) -> None:
    data = {**STATE, **change}
    if change.get("run_id", "") is None:
        del data["run_id"]
        words = "'run_id' is missing"
    with pytest.raises(JlgError) as caught:
        validate_state(Path("s.json"), data)
    assert caught.value.code == ExitCode.INVALID_JSON
    assert caught.value.message.startswith("s.json: ") and words in caught.value.message


NO_DEFAULT = [f.name for f in fields(ResumeState)
              if f.default is MISSING and f.default_factory is MISSING]  # fmt: skip


@pytest.mark.parametrize("key", NO_DEFAULT)
def test_a_state_without_a_field_that_has_no_default_is_65_not_a_crash(
    tmp_path: Path, key: str
) -> None:
    """Read back from disk, state.json is input: a resume requires every field ResumeState
    cannot do without (a missing completion_mode or prompt_source was a TypeError, exit
    70); the list is held to the record's own fields. ``jlgcli runs`` needs fewer."""
    path = tmp_path / "state.json"
    path.write_text(json.dumps({k: v for k, v in STATE.items() if k != key}), "utf-8")
    with pytest.raises(JlgError) as caught:
        read_state(path)
    assert caught.value.code == ExitCode.INVALID_JSON
    assert f"'{key}' is missing" in caught.value.message


def test_a_valid_state_keeps_known_fields_only() -> None:
    gate = {"command": "pytest", "exitCode": 0, "durationMs": 4, "ok": True, "extra": 1}
    data = {**STATE, "metrics": [{**METRIC, "gates": [gate]}], "unknown": 1}
    known = validate_state(Path("s.json"), data)
    assert "unknown" not in known
    state = ResumeState.from_json(known)
    from jlgcli.runner.summary import IterationMetrics

    assert IterationMetrics.from_json(state.metrics[0]).gates[0].ok is True


def test_recorded_options_are_checked_and_shown_safely() -> None:
    assert validate_options(Path("s"), {"gates": ["a"], "session": None, "x": {}}) == {
        "gates": ["a"]
    }
    with pytest.raises(JlgError) as caught:
        validate_options(Path("s"), {"model": "\x1b[2J" * 40, "session": "later"})
    assert "'options.session'" in caught.value.message
    with pytest.raises(JlgError) as caught:
        validate_options(Path("s"), {"gates": ["\x1b]0;pwned\x07"], "fallback": 3})
    assert "\x1b" not in caught.value.message  # never a terminal control from the file


def test_read_state_refuses_huge_unreadable_and_deep_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jlgcli.runner import resume

    path = tmp_path / "state.json"
    path.write_text("[" * 100_000, encoding="utf-8")
    with pytest.raises(JlgError) as caught:
        read_state(path)
    assert caught.value.code == 65 and "not JSON" in caught.value.message
    folder = tmp_path / "dir.json"
    folder.mkdir()
    with pytest.raises(JlgError) as caught:
        read_state(folder)
    assert caught.value.code == ExitCode.NO_INPUT
    monkeypatch.setattr(resume, "_MAX_STATE_BYTES", 10)
    path.write_text(json.dumps(STATE), encoding="utf-8")
    with pytest.raises(JlgError) as caught:
        read_state(path)
    assert caught.value.code == 65 and "larger than 10 bytes" in caught.value.message


def test_a_full_disk_while_writing_the_state_is_73(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jlgcli.artifacts import atomic, rundir

    assert rundir.atomic_write_text is atomic.atomic_write_text  # bound before the patch

    def full(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic, "atomic_write_text", full)
    with pytest.raises(JlgError) as caught:
        write_state(tmp_path, ResumeState.from_json(STATE))
    assert caught.value.code == ExitCode.CANT_CREATE
    assert "No space left" in caught.value.message and "state.json" in caught.value.message
    summary, _ = run(tmp_path, FakeBackend().enqueue("one").enqueue("two"), max_iterations=3)
    assert (summary.stopCause, summary.exitCode, summary.iterations) == ("artifacts-error", 73, 1)


def test_a_full_disk_at_the_last_state_after_ctrl_c_keeps_the_signal_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jlgcli.runner import iterations

    def interrupted(self: Any, iteration: int) -> Any:
        raise KeyboardInterrupt

    def full(self: Any) -> None:
        raise JlgError(ExitCode.CANT_CREATE, "cannot write the resume state", hint="free space")

    monkeypatch.setattr(iterations.IterationLoop, "_call", interrupted)
    monkeypatch.setattr(iterations.IterationLoop, "save_final", full)
    summary, err = run(tmp_path, FakeBackend())
    assert summary.stopCause == "interrupted" and summary.exitCode == 130
    assert "cannot write the resume state (free space)" in err


# --- latest, the record of started runs, the lock ---------------------------------------


def test_latest_is_the_newest_start_recorded_for_this_root_even_in_the_same_second(
    tmp_path: Path,
) -> None:
    root = tmp_path / "runs"
    moment = datetime(2026, 1, 1, tzinfo=timezone.utc)
    # same second; the later start has the smaller suffix, so name order would be wrong
    started.record_start(root, "20260101T000000Z-ffffff", moment)
    started.record_start(root, "20260101T000000Z-000000", moment + timedelta(microseconds=1))
    started.record_start(tmp_path / "other", "20260102T000000Z-aaaaaa", moment)
    assert started.started_here(root) == ["20260101T000000Z-000000", "20260101T000000Z-ffffff"]
    for run_id in started.started_here(root):
        write_state(root / run_id, ResumeState.from_json({**STATE, "run_id": run_id}))
    assert find_state(root, "latest").parent.name == "20260101T000000Z-000000"


def test_the_record_skips_damaged_lines_and_keeps_the_newest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jlgcli.config.resolve import user_config_dir

    root = tmp_path / "runs"
    record = user_config_dir() / started.RECORD_FILE
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text('not json\n[1]\n{"id": "x", "root": "r", "at": "never"}\n', "utf-8")
    monkeypatch.setattr(started, "_KEEP", 3)
    moment = datetime(2026, 1, 1, tzinfo=timezone.utc)
    for n in range(5):
        started.record_start(root, f"run-{n}", moment + timedelta(seconds=n))
    assert started.started_here(root) == ["run-4", "run-3", "run-2"]
    record.write_bytes(b"\xff")
    assert started.started_here(root) == []


def test_a_held_lock_means_running(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    assert not started.is_running(folder)  # no lock file
    lock = started.RunLock(folder)
    assert lock.acquire()
    try:
        assert started.is_running(folder)
        with pytest.raises(JlgError) as caught:
            write_state(folder, ResumeState.from_json(STATE))
            find_state(tmp_path, "run")
        assert caught.value.code == 64 and "still running" in caught.value.message
    finally:
        lock.release()
    assert not started.is_running(folder)


def test_a_run_that_cannot_be_recorded_as_yours_warns_and_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: Any) -> None:
        raise OSError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(started, "record_start", refuse)
    summary, err = run(tmp_path, FakeBackend().enqueue("DONE"))
    assert summary.exitCode == 0
    assert f"resume it by id: jlgcli loop --resume {summary.runId}" in err


def test_a_run_folder_that_cannot_be_created_is_73(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("x", encoding="utf-8")
    summary, _ = run(tmp_path, FakeBackend().enqueue("DONE"), artifacts_dir=Path("blocker/runs"))
    assert (summary.stopCause, summary.exitCode) == ("artifacts-error", 73)


# --- what a resume reads back -------------------------------------------------------------


def _resume_spec(tmp_path: Path, state: dict[str, Any], **options: Any) -> RunSpec:
    path = tmp_path / ".jlgcli" / "runs" / state["run_id"] / "state.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(state), encoding="utf-8")
    spec, _ = build_spec(RunOptions(resume=state["run_id"], cwd=str(tmp_path), **options), "loop")
    return spec


def test_recorded_limits_only_tighten_and_a_flag_replaces_them(tmp_path: Path) -> None:
    options = {"maxIterations": 3, "timeoutMs": 999_999_999_999, "maxCostUsd": 1.5,
               "idleTimeoutMs": 0, "noProgressLimit": 2}  # fmt: skip
    state = {**STATE, "run_id": "20260101T000000Z-aaaaaa", "options": options}
    with pytest.raises(JlgError) as caught:  # beyond the key's range: damaged
        _resume_spec(tmp_path, state)
    assert "'options.timeoutMs'" in caught.value.message
    options["timeoutMs"] = 60_000
    spec = _resume_spec(tmp_path, state)
    assert (spec.max_iterations, spec.timeout_ms, spec.max_cost_usd) == (3, 60_000, 1.5)
    assert (spec.idle_timeout_ms, spec.no_progress_limit) == (600_000, 2)  # 0: no limit
    spec = _resume_spec(tmp_path, state, max_iterations="9", session="continue")
    assert spec.max_iterations == 9 and spec.session_mode == "continue"


def test_stricter_treats_zero_as_no_limit_where_it_means_that() -> None:
    assert stricter("maxIterations", 20, 3) == 3
    assert stricter("iterationTimeoutMs", 0, 5000) == 5000
    assert stricter("iterationTimeoutMs", 5000, 0) == 5000
    assert stricter("maxCostUsd", 2.0, 1.0) == 1.0


def test_a_recorded_command_backend_is_not_read_back(tmp_path: Path) -> None:
    state = {**STATE, "run_id": "20260101T000000Z-bbbbbb", "backend": "mine",
             "options": {"fallback": ["codex"], "model": "big", "permissions": "edit"}}  # fmt: skip
    spec = _resume_spec(tmp_path, state, permissions="edit")
    assert spec.backend == "auto" and spec.fallbacks == ()
    notes = "\n".join(spec.notes)
    assert 'backend "mine" not read back' in notes
    assert "recorded fallback" in notes and "recorded model" in notes
    assert "recorded permissions" not in notes  # the same as the flag given now


def test_a_session_of_another_backend_is_not_continued(tmp_path: Path) -> None:
    state = ResumeState.from_json({**STATE, "session_id": "s-codex", "session_backend": "codex"})
    backend = FakeBackend("claude").enqueue("DONE")
    summary, err = run(tmp_path, backend, resume=state, session_mode="continue",
                       notes=("a note shown first",))  # fmt: skip
    assert backend.history[0].resume_session is None
    assert 'the recorded session belongs to "codex", not claude' in err
    assert summary.diagnosis[0] == "a note shown first"


@pytest.mark.parametrize(
    ("cause", "words"),
    [
        ("interrupted", "jlgcli loop --resume r9"),
        ("max-iterations", "--resume r9 --max-iterations 10"),
        ("max-cost", "--resume r9 --max-cost 3"),
        ("timeout", "--resume r9 --timeout 2h00m"),
        ("no-progress", None),
    ],
)
def test_the_resume_hint_names_the_exact_command(
    tmp_path: Path, cause: str, words: str | None
) -> None:
    spec = RunSpec(command="loop", prompt=Prompt("t", "t.md"), backend="claude", cwd=tmp_path,
                   max_iterations=5, max_cost_usd=1.5, timeout_ms=3_600_000)  # fmt: skip
    hint = resume_hint(cause, "r9", spec)
    assert (hint is None) if words is None else (hint is not None and words in hint)


def test_a_resumed_run_lists_the_old_backends_first_and_hints_the_resume(tmp_path: Path) -> None:
    metric = {**METRIC, "backend": "gemini", "costUsd": 0.25}
    state = ResumeState.from_json({**STATE, "metrics": [metric], "iterations": 1})
    summary, _ = run(tmp_path, FakeBackend("claude").enqueue("more"), resume=state,
                     max_iterations=2)  # fmt: skip
    assert [b.id for b in summary.backends] == ["gemini", "claude"]
    assert summary.costUsd == pytest.approx(0.25)
    assert summary.error is not None and summary.error.hint is not None
    assert f"jlgcli loop --resume {summary.runId} --max-iterations 4" in summary.error.hint


def test_a_last_state_that_cannot_be_written_fails_the_run_with_73(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jlgcli.runner import iterations

    def full(self: Any) -> None:
        raise JlgError(ExitCode.CANT_CREATE, "cannot write the resume state", hint="free space")

    monkeypatch.setattr(iterations.IterationLoop, "save_final", full)
    summary, _ = run(tmp_path, FakeBackend().enqueue("DONE"))
    assert (summary.stopCause, summary.exitCode) == ("artifacts-error", 73)


def test_a_resume_of_a_run_locked_meanwhile_is_refused_and_leaves_no_folder(
    tmp_path: Path,
) -> None:
    state = ResumeState.from_json({**STATE, "run_id": "20260101T000000Z-aaaaaa"})
    old = tmp_path / ".jlgcli" / "runs" / state.run_id
    old.mkdir(parents=True)
    lock = started.RunLock(old)
    assert lock.acquire()  # a live run took it after the check in build_spec
    try:
        with pytest.raises(JlgError) as caught:
            run(tmp_path, FakeBackend().enqueue("DONE"), resume=state)
    finally:
        lock.release()
    assert caught.value.code == 64 and "still running" in caught.value.message
    folders = [p.name for p in old.parent.iterdir() if p.is_dir()]
    assert folders == [state.run_id]  # no new empty folder (the root's .gitignore may be new)
