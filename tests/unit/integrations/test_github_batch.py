"""A batch's GitHub outputs and job summary: one set for the whole batch (issue 37)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jlgcli.batch.record import BatchRecord, TaskRecord
from jlgcli.integrations.github_batch import batch_status, markdown, output_values, publish_batch


def _record(*tasks: TaskRecord, merge: bool = False) -> BatchRecord:
    return BatchRecord("batch-20261126T210000Z-abcdef", "abc", "main", merge, True, list(tasks))


@pytest.mark.parametrize(
    ("code", "status"),
    [(0, "done"), (4, "incomplete"), (75, "incomplete"), (130, "interrupted"), (2, "error")],
)
def test_the_batch_status_follows_its_exit_code(code: int, status: str) -> None:
    assert batch_status(code) == status


def test_outputs_describe_every_task_and_the_totals() -> None:
    done = TaskRecord("a", "/t/a.md", "jlgcli/a", "r1", 0, "done", 2, 0.5)
    out = TaskRecord("b", "/t/b.md", "jlgcli/b", "r2", 4, "max-iterations", 3, None)
    values = output_values(_record(done, out))
    assert values["status"] == "incomplete"
    assert (values["exit-code"], values["iterations"], values["cost"]) == ("4", "5", "0.5000")
    assert json.loads(values["tasks"]) == [
        {"id": "a", "status": "done", "exitCode": 0, "branch": "jlgcli/a"},
        {"id": "b", "status": "max-iterations", "exitCode": 4, "branch": "jlgcli/b"},
    ]


def test_a_recorded_exit_code_wins_and_no_cost_is_empty() -> None:
    record = _record(TaskRecord("a", "/t/a.md"))
    record.exitCode = 130
    values = output_values(record)
    assert (values["status"], values["exit-code"], values["cost"]) == ("interrupted", "130", "")


def test_the_summary_is_a_table_with_the_merge_notes_escaped() -> None:
    task = TaskRecord("a|b", "/t/a.md", "", "r1", 0, "done", 1, None, mergeNote="conflict\nin x")
    text = markdown(_record(task, merge=True))
    assert text.startswith("### ❌ jlgcli batch `batch-20261126T210000Z-abcdef`: error (exit 1)")
    assert "cost ?" in text
    assert "| a\\|b | done, not merged | 1 | ? | (in place) | - |" in text
    assert "- a\\|b: conflict in x" in text


def test_publish_appends_to_both_files(tmp_path: Path) -> None:
    env = {"GITHUB_OUTPUT": str(tmp_path / "o"), "GITHUB_STEP_SUMMARY": str(tmp_path / "s")}
    publish_batch(_record(TaskRecord("a", "/t/a.md", exitCode=0)), env=env)
    assert "status=done" in (tmp_path / "o").read_text("utf-8")
    assert "jlgcli batch" in (tmp_path / "s").read_text("utf-8")


def test_an_unwritable_summary_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = {"GITHUB_STEP_SUMMARY": str(tmp_path)}  # a folder: cannot be appended to
    publish_batch(_record(TaskRecord("a", "/t/a.md", exitCode=0)), env=env)
    assert "cannot write GITHUB_STEP_SUMMARY" in capsys.readouterr().err
