"""The batch record and the end-of-batch report (issue 37)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jlgcli.batch.record import (
    BatchRecord,
    TaskRecord,
    batch_dir,
    latest,
    load,
    record_started,
    save,
    task_name,
)
from jlgcli.batch.report import batch_code, render, status_of, task_code, to_json
from jlgcli.errors import JlgError


def record(*tasks: TaskRecord, merge: bool = False) -> BatchRecord:
    return BatchRecord("batch-20261126T210000Z-abcdef", "abc", "main", merge, True, list(tasks))


def test_task_names_are_safe_and_unique() -> None:
    taken: set[str] = set()
    assert task_name(Path("Fix Login!.md"), taken) == "fix-login"
    assert task_name(Path("fix login.md"), taken) == "fix-login-2"
    assert task_name(Path("...md"), taken) == "task"


def test_a_saved_record_loads_back_with_branches_derived(tmp_path: Path) -> None:
    rec = record(TaskRecord("one", "/t/one.md", branch="jlgcli/one", runId="r1", exitCode=0))
    path = save(tmp_path / "runs", rec)
    assert (tmp_path / "runs" / ".gitignore").exists()
    data = json.loads(path.read_text("utf-8"))
    data["tasks"][0]["branch"] = "main"  # a record is input: the branch is derived again
    path.write_text(json.dumps(data), "utf-8")
    assert latest(tmp_path / "runs") is None  # a record this user did not start is not latest
    record_started(tmp_path / "runs", rec)
    back = load(tmp_path / "runs", "latest")
    assert back.tasks[0].branch == "jlgcli/one" and back.tasks[0].exitCode == 0
    assert latest(tmp_path / "runs") == rec.batchId
    assert load(tmp_path / "runs", rec.batchId).batchId == rec.batchId  # by id: any record


@pytest.mark.parametrize(
    ("ref", "code"),
    [("latest", 64), ("batch-20261126T210000Z-000000", 64), ("../x", 64)],
)
def test_missing_or_bad_batch_refs_are_64(tmp_path: Path, ref: str, code: int) -> None:
    with pytest.raises(JlgError) as info:
        load(tmp_path, ref)
    assert info.value.code == code


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.update(schemaVersion=9),
        lambda d: d["tasks"][0].update(name="../../etc"),
        lambda d: d.update(batchId="x"),
        lambda d: d.pop("tasks"),
    ],
)
def test_a_damaged_record_is_65(tmp_path: Path, change: object) -> None:
    rec = record(TaskRecord("one", "/t/one.md"))
    path = save(tmp_path, rec)
    data = json.loads(path.read_text("utf-8"))
    change(data)  # type: ignore[operator]
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(JlgError) as info:
        load(tmp_path, rec.batchId)
    assert info.value.code == 65


def test_a_start_that_cannot_be_recorded_is_73(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jlgcli.config.started import RECORD_FILE

    (tmp_path / "cfg" / RECORD_FILE).mkdir(parents=True)  # the record cannot be written
    monkeypatch.setenv("JLGCLI_CONFIG_DIR", str(tmp_path / "cfg"))
    with pytest.raises(JlgError) as info:
        record_started(tmp_path / "runs", record())
    assert info.value.code == 73


def test_a_record_that_cannot_be_written_is_73(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x", "utf-8")
    with pytest.raises(JlgError) as info:
        save(tmp_path / "file", record())
    assert info.value.code == 73
    assert batch_dir(tmp_path, "b") == tmp_path / ".batches" / "b"


def test_exit_code_is_0_only_when_every_task_is_done_and_merged() -> None:
    done = TaskRecord("a", "a", exitCode=0, merged=True)
    assert batch_code(record(done, merge=True)) == 0
    unmerged = TaskRecord("b", "b", exitCode=0)
    assert batch_code(record(done, unmerged, merge=True)) == 1
    assert batch_code(record(done, unmerged, merge=False)) == 0


def test_the_most_serious_ending_wins() -> None:
    tasks = [TaskRecord(str(c), "t", exitCode=c) for c in (4, 5, 75)]
    assert batch_code(record(*tasks)) == 75
    assert batch_code(record(*tasks, TaskRecord("x", "t", exitCode=130))) == 130
    assert batch_code(record(TaskRecord("n", "t"))) == 1  # never started
    budget = TaskRecord("b", "t", exitCode=130, budgetStopped=True)
    assert task_code(budget, merge=False) == 4 and not budget.finished


def test_statuses_name_each_ending() -> None:
    assert status_of(TaskRecord("a", "t"), merge=False) == "not started"
    assert status_of(TaskRecord("a", "t", budgetStopped=True), merge=False).startswith("not")
    assert status_of(TaskRecord("a", "t", runId="r", budgetStopped=True), merge=False) == (
        "budget spent"
    )
    assert status_of(TaskRecord("a", "t", exitCode=0), merge=True) == "done, not merged"
    assert status_of(TaskRecord("a", "t", exitCode=0, merged=True), merge=True) == "merged"
    assert status_of(TaskRecord("a", "t", exitCode=9), merge=False) == "exit 9"
    assert status_of(TaskRecord("a", "t", exitCode=7), merge=False) == "parked (question)"


def test_the_table_has_totals_notes_and_the_resume_command() -> None:
    rec = record(
        TaskRecord("a", "t", branch="jlgcli/a", exitCode=0, merged=True, costUsd=0.5,
                   iterations=2, diffStat="1 file changed"),
        TaskRecord("b", "t", branch="jlgcli/b", exitCode=0, mergeNote="not merged: conflicts"),
        TaskRecord("c", "t", exitCode=130),
        merge=True,
    )  # fmt: skip
    text = render(rec)
    assert "1 file changed" in text and "$0.5000" in text and "b: not merged: conflicts" in text
    assert f"jlgcli loop --resume {rec.batchId}" in text
    assert "3 tasks, 2 done, 1 merged, 2 iterations, cost $0.5000" in text
    data = to_json(rec, {"a": {"status": "done"}})
    assert [t["exitCode"] for t in data["tasks"]] == [0, 1, 130]
    assert data["tasks"][0]["summary"] == {"status": "done"} and data["exitCode"] == 130
    assert "unknown" in render(record(TaskRecord("z", "t", exitCode=0)))
