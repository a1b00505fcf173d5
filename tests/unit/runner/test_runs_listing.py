"""Reading runs back: newest first; incomplete and corrupt runs never crash (F-006, US-8)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from support.platform_names import chmod_stops_us

from jlgcli.artifacts.rundir import RunDirectory
from jlgcli.errors import ExitCode, JlgError
from jlgcli.runner.listing import INCOMPLETE, UNREADABLE, list_runs, load_run, read_run

OLD, MID, NEW = "20260101T000000Z-aaaaaa", "20260102T000000Z-bbbbbb", "20260103T000000Z-cccccc"


def _result(**fields: object) -> dict[str, object]:
    base: dict[str, object] = {"status": "done", "exitCode": 0, "backend": "claude",
                               "iterations": 2, "durationMs": 1500}  # fmt: skip
    base.update(fields)
    return base


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An artifacts root (pytest's tmp_path also holds the isolated ``home/``)."""
    path = tmp_path / "runs-root"
    path.mkdir()
    return path


def _make(root: Path, run_id: str, *, meta: object = None, result: object = None) -> Path:
    path = root / run_id
    path.mkdir(parents=True)
    for name, data in (("meta.json", meta), ("result.json", result)):
        if isinstance(data, str):
            (path / name).write_text(data, encoding="utf-8")
        elif data is not None:
            (path / name).write_text(json.dumps(data), encoding="utf-8")
    return path


def test_newest_first_with_limit(root: Path) -> None:
    for run_id in (MID, OLD, NEW):
        _make(root, run_id, meta={"backend": "codex"}, result=_result())
    (root / ".gitignore").write_text("*", encoding="utf-8")
    (root / ".hidden").mkdir()
    (root / "stray-file.txt").write_text("x", encoding="utf-8")
    assert [r.run_id for r in list_runs(root)] == [NEW, MID, OLD]
    assert [r.run_id for r in list_runs(root, limit=2)] == [NEW, MID]
    assert len(list_runs(root, limit=None)) == 3


def test_a_finished_run(root: Path) -> None:
    result = _result(
        status="max-iterations",
        exitCode=4,
        startedAt="2026-01-03T01:02:03Z",
        iterations=[{"n": 1}, {"n": 2}, {"n": 3}],
        durationMs=61_234.7,
    )
    _make(
        root,
        NEW,
        meta={"backend": "codex", "startedAt": "2026-01-03T00:00:05+00:00"},
        result=result,
    )
    info = list_runs(root)[0]
    assert (info.status, info.exit_code, info.backend) == ("max-iterations", 4, "claude")
    assert info.iterations == 3 and info.duration_ms == 61_234
    assert info.started_at == datetime(2026, 1, 3, 1, 2, 3, tzinfo=timezone.utc)
    assert info.problem is None
    assert info.to_json() == {
        "runId": NEW, "path": str(root / NEW), "status": "max-iterations",
        "startedAt": "2026-01-03T01:02:03+00:00", "backend": "claude", "iterations": 3,
        "durationMs": 61_234, "exitCode": 4, "problem": None, "stopCause": None,
        "backends": ["claude"], "costUsd": None,
    }  # fmt: skip
    assert info.outcome == "max-iterations"


def test_stop_cause_is_the_outcome(root: Path) -> None:
    # the summary's coarse "incomplete" must not read like a killed run in the listing
    _make(root, NEW, result=_result(status="incomplete", stopCause="max-iterations", exitCode=4))
    _make(root, OLD, result=_result(stopCause=["odd"]))
    new, old = list_runs(root)
    assert (new.status, new.stop_cause, new.outcome) == ("incomplete", "max-iterations",
                                                         "max-iterations")  # fmt: skip
    assert new.to_json()["stopCause"] == "max-iterations"
    assert (old.stop_cause, old.outcome) == (None, "done")


def test_a_killed_run_is_incomplete(root: Path) -> None:
    # killed before result.json: meta.json (and the iterations so far) tell the story
    with RunDirectory.create(root, NEW) as run:
        run.write_meta({"backend": "gemini", "startedAt": "2026-01-03T00:00:00"})
        run.write_prompt(1, "p")
        run.write_prompt(2, "p")
    info = read_run(run.path)
    assert (info.status, info.backend, info.iterations, info.exit_code) == (INCOMPLETE, "gemini", 2,
                                                                            None)  # fmt: skip
    assert info.started_at == datetime(2026, 1, 3, tzinfo=timezone.utc)  # naive → UTC


def test_an_empty_run_dir_is_incomplete_and_dated_by_its_id(root: Path) -> None:
    _make(root, NEW)
    info = read_run(root / NEW)
    assert (info.status, info.iterations, info.backend) == (INCOMPLETE, None, None)
    assert info.duration_ms is None
    assert info.started_at == datetime(2026, 1, 3, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("meta", "result", "problem"),
    [
        (None, "{not json", "result.json: invalid JSON"),
        (None, "[1, 2]", "result.json: not a JSON object"),
        (None, {"exitCode": 0}, "result.json: no status"),
        (None, {"status": 3}, "result.json: no status"),
        ("\x00\x01garbage", None, "meta.json: invalid JSON"),
        ({"backend": "x"}, b"\xff\xfe\x00bad utf-8", "result.json:"),
    ],
)
def test_corrupt_runs_are_listed_as_unreadable(
    root: Path, meta: object, result: object, problem: str
) -> None:
    path = _make(root, NEW, meta=meta, result=None if isinstance(result, bytes) else result)
    if isinstance(result, bytes):
        (path / "result.json").write_bytes(result)
    _make(root, OLD, result=_result())
    runs = list_runs(root)
    assert [r.status for r in runs] == [UNREADABLE, "done"]
    assert runs[0].problem is not None and runs[0].problem.startswith(problem)


def test_odd_field_types_are_ignored(root: Path) -> None:
    _make(root, "not-an-id", result=_result(backend=["x"], iterations="many", durationMs=True,
                                                exitCode=True, startedAt="yesterday"))  # fmt: skip
    _make(root, OLD, result=_result(durationMs=float("inf"), startedAt=5))
    info, other = list_runs(root)
    assert (info.backend, info.iterations, info.duration_ms, info.exit_code) == (None, None, None,
                                                                                 None)  # fmt: skip
    assert info.started_at is None
    assert other.duration_ms is None


def test_missing_root_lists_nothing(root: Path) -> None:
    assert list_runs(root / "nope") == []


def test_unreadable_root_is_exit_66(root: Path) -> None:
    blocker = root / "file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(JlgError) as caught:
        list_runs(blocker)
    assert caught.value.code == ExitCode.NO_INPUT and caught.value.hint


def test_load_run_by_id_and_prefix(root: Path) -> None:
    with RunDirectory.create(root, NEW) as run:
        run.write_meta({"backend": "claude"})
        run.write_prompt(1, "p1")
        run.write_final_message(1, "f1")
        run.write_prompt(2, "p2")
        run.write_result(_result())
    (run.path / "iterations" / "notes").mkdir()
    _make(root, OLD, result=_result())
    detail = load_run(root, "20260103")
    assert detail.info.run_id == NEW
    assert detail.meta is not None and detail.meta["backend"] == "claude"
    assert detail.result == _result()
    assert [(it.n, it.prompt is not None, it.final is not None) for it in detail.iterations] == [
        (1, True, True),
        (2, True, False),
    ]
    assert detail.transcript == run.path / "transcript.ndjson"
    data = detail.to_json()
    assert data["paths"] == {
        "dir": str(run.path),
        "meta": str(run.path / "meta.json"),
        "result": str(run.path / "result.json"),
        "state": None,
        "transcript": str(run.path / "transcript.ndjson"),
    }
    assert data["iterations"][1]["final"] is None
    assert load_run(root, OLD).transcript is None
    assert load_run(root, OLD).to_json()["paths"]["meta"] is None


def test_exact_id_wins_over_prefix(root: Path) -> None:
    _make(root, "run")
    _make(root, "run-2")
    assert load_run(root, "run").info.run_id == "run"


def test_unknown_ambiguous_and_empty(root: Path) -> None:
    for run_id in (OLD, MID, NEW):
        _make(root, run_id)
    with pytest.raises(JlgError) as caught:
        load_run(root, "2025")
    assert caught.value.code == ExitCode.USAGE
    assert caught.value.hint == f"recent runs: {NEW}, {MID}, {OLD}"
    with pytest.raises(JlgError) as caught:
        load_run(root, "202601")
    assert "ambiguous" in caught.value.message and NEW in (caught.value.hint or "")
    with pytest.raises(JlgError) as caught:
        load_run(root, "")
    assert caught.value.code == ExitCode.USAGE
    with pytest.raises(JlgError) as caught:
        load_run(root / "empty", "x")
    assert "no runs recorded" in caught.value.message  # issue 51: every run is recorded now
    assert "where they ran" in (caught.value.hint or "") and "--dir" in (caught.value.hint or "")


def test_path_traversal_is_not_a_run(root: Path) -> None:
    (root / "runs").mkdir()
    _make(root, "outside", result=_result())
    with pytest.raises(JlgError):
        load_run(root / "runs", "../outside")


@pytest.mark.skipif(not chmod_stops_us(), reason="Windows, or chmod does not stop root")
def test_unreadable_file_is_unreadable(root: Path) -> None:  # pragma: no cover - not as root
    path = _make(root, NEW, result=_result())
    (path / "result.json").chmod(0)
    try:
        assert read_run(path).status == UNREADABLE
    finally:
        (path / "result.json").chmod(0o600)


# --- every loop's state.json (issue 31) ----------------------------------------------------


def _state(**fields: object) -> dict[str, object]:
    metric = {"index": 1, "durationMs": 5, "exitCode": 0, "stopReason": "exited",
              "completion": "continue", "outputChars": 3}  # fmt: skip
    base: dict[str, object] = {
        "run_id": NEW, "task": "t", "backend": "claude", "options": {}, "iterations": 2,
        "elapsed_ms": 2500, "cost_usd": 0.5, "stop_cause": "max-cost", "version": 1,
        "metrics": [{**metric, "backend": "claude"}, {**metric, "index": 2, "backend": "codex"}],
        "started_at": "2026-01-03T01:02:03.000004+00:00",
    }  # fmt: skip
    base.update(fields)
    return base


def _with_state(root: Path, state: object) -> Path:
    path = root / NEW
    path.mkdir()
    (path / "state.json").write_text(json.dumps(state), encoding="utf-8")
    return path


def test_a_loop_without_artifacts_is_read_from_its_state(root: Path) -> None:
    _with_state(root, _state())
    info = read_run(root / NEW)
    assert (info.status, info.stop_cause, info.exit_code) == ("incomplete", "max-cost", 4)
    assert (info.backends, info.backend, info.cost_usd) == (("claude", "codex"), "codex", 0.5)
    assert (info.iterations, info.duration_ms, info.backend_words) == (2, 2500, "claude → codex")
    assert info.started_at == datetime(2026, 1, 3, 1, 2, 3, 4, tzinfo=timezone.utc)
    assert load_run(root, NEW).to_json()["state"]["run_id"] == NEW


def test_a_state_without_an_ending_is_running_while_its_lock_is_held(root: Path) -> None:
    from jlgcli.config.started import RunLock

    path = _with_state(root, _state(stop_cause=None))
    assert read_run(path).status == INCOMPLETE  # killed before it recorded its end
    lock = RunLock(path)
    assert lock.acquire()
    try:
        assert read_run(path).status == "running"
    finally:
        lock.release()
    # issue 33: the lock a dead process left, with no ending recorded: it was killed
    assert read_run(path).status == "killed"
    (path / "run.lock").unlink()
    meta_only = root / "20260101T000000Z-bbbbbb"
    meta_only.mkdir()
    (meta_only / "run.lock").write_text("", encoding="utf-8")
    assert read_run(meta_only).status == "killed"


def test_an_interrupted_state_has_no_made_up_exit_code_and_a_damaged_one_is_unreadable(
    root: Path,
) -> None:
    path = _with_state(root, _state(stop_cause="interrupted"))
    assert (read_run(path).status, read_run(path).exit_code) == ("interrupted", None)
    (path / "state.json").write_text(json.dumps(_state(elapsed_ms="x")), encoding="utf-8")
    info = read_run(path)
    assert info.status == UNREADABLE
    assert info.problem is not None and info.problem.startswith("state.json: field 'elapsed_ms'")
