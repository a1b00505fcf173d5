"""A batch's task parked on a question (issue 51): record, report, lookup, notification."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jlgcli.batch import lookup
from jlgcli.batch.record import BatchRecord, TaskRecord, load, record_started, save
from jlgcli.batch.report import batch_code, notify_end, render, status_of, to_json
from jlgcli.errors import JlgError

BATCH = "batch-20261128T210000Z-abcdef"


def batch(*tasks: TaskRecord, merge: bool = False) -> BatchRecord:
    return BatchRecord(BATCH, "abc", "main", merge, True, list(tasks))


def parked(name: str = "beta", run: str = "20261128T210001Z-bbbbbb") -> TaskRecord:
    return TaskRecord(name, f"/t/{name}.md", runId=run, exitCode=7, stopCause="question",
                      question="Which colour?\nBlue or red?")  # fmt: skip


def test_a_parked_task_shows_as_parked_with_its_question_and_the_command_to_answer() -> None:
    done = TaskRecord("alpha", "/t/alpha.md", runId="r1", exitCode=0)
    record = batch(done, parked())
    assert status_of(parked(), merge=False) == "parked (question)"
    text = render(record)
    assert "beta asks: Which colour? ⏎ Blue or red?" in text
    assert 'jlgcli answer 20261128T210001Z-bbbbbb "your answer"' in text
    assert "continue the unfinished tasks" not in text  # a parked task is not re-run by resume
    data = to_json(record, {})
    beta = data["tasks"][1]
    assert (beta["exitCode"], beta["question"], data["exitCode"]) == (7, parked().question, 7)


def test_the_batch_code_says_a_task_is_parked_unless_something_needs_fixing_first() -> None:
    assert batch_code(batch(TaskRecord("a", "t", exitCode=0), parked())) == 7
    assert batch_code(batch(TaskRecord("a", "t", exitCode=4), parked())) == 7
    assert batch_code(batch(TaskRecord("a", "t", exitCode=1), parked())) == 7
    assert batch_code(batch(TaskRecord("a", "t", exitCode=77), parked())) == 77
    assert batch_code(batch(TaskRecord("a", "t", exitCode=130), parked())) == 130


def test_the_question_survives_the_record_and_a_parked_task_is_finished(tmp_path: Path) -> None:
    save(tmp_path, batch(parked()))
    task = load(tmp_path, BATCH).tasks[0]
    assert task.question == parked().question and task.finished


def _saved(tmp_path: Path, *tasks: TaskRecord) -> Path:
    record = batch(*tasks)
    save(tmp_path, record)
    record_started(tmp_path, record)
    return tmp_path


def test_locate_finds_the_one_parked_task_by_batch_or_by_its_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JLGCLI_CONFIG_DIR", str(tmp_path / "config"))
    alpha = TaskRecord("alpha", "/t/a.md", runId="r1", exitCode=0, stopCause="done")
    root = _saved(tmp_path / "runs", alpha, parked())
    for ref in (BATCH, "latest", "20261128T210001Z-bbbbbb"):
        found = lookup.locate(ref, root)
        assert found is not None and (found.batch_id, found.task) == (BATCH, "beta")
    assert lookup.locate("20261128T230000Z-cccccc", root) is None  # a single loop's run
    with pytest.raises(JlgError, match="not parked on a question: it ended done") as caught:
        lookup.locate("r1", root)
    assert caught.value.code == 64


def test_locate_asks_for_the_run_id_when_several_are_parked_and_says_when_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JLGCLI_CONFIG_DIR", str(tmp_path / "config"))
    root = _saved(tmp_path / "runs", parked("a", "ra"), parked("b", "rb"))
    with pytest.raises(JlgError, match=r"several tasks .* a \(run ra\), b \(run rb\)"):
        lookup.locate(BATCH, root)
    save(root, batch(TaskRecord("a", "/t/a.md", runId="ra", exitCode=4)))
    with pytest.raises(JlgError, match=r"no task of .* is parked"):
        lookup.locate(BATCH, root)


def test_an_answered_task_runs_again_and_only_a_parked_one_can_be() -> None:
    record = batch(parked(), TaskRecord("alpha", "/t/a.md", runId="r1", exitCode=0))
    lookup.reopen_answered(record, {"beta": "Blue"})
    beta = record.tasks[0]
    assert (beta.exitCode, beta.stopCause, beta.question, beta.runId) == (
        None, None, None, "20261128T210001Z-bbbbbb",
    )  # fmt: skip
    assert not beta.finished
    with pytest.raises(JlgError, match=r"run r1 .* is not parked"):
        lookup.reopen_answered(record, {"alpha": "x"})
    with pytest.raises(JlgError, match="not parked"):
        lookup.reopen_answered(record, {"nobody": "x"})


def test_the_batch_end_is_one_notification_with_each_task(monkeypatch: pytest.MonkeyPatch) -> None:
    from jlgcli.runner import notify

    sent: list[tuple[str, str, dict[str, Any]]] = []

    class Recording(notify.Notifier):
        def send(self, title: str, message: str, *, event: str, data: Any = None) -> None:
            sent.append((title, message, {"event": event, **(data or {})}))

    monkeypatch.setattr(notify, "Notifier", Recording)
    done = TaskRecord("alpha", "/t/a.md", runId="r1", exitCode=0, costUsd=0.5)
    notify_end(batch(done, parked()), ("desktop",), code=7)
    [(title, message, data)] = sent
    assert title == "jlgcli batch parked (exit 7)"
    assert "alpha: done" in message and "beta: parked (question)" in message
    assert (data["event"], data["parked"], data["batchId"]) == ("batch-ended", ["beta"], BATCH)
    sent.clear()
    notify_end(batch(done), ("desktop",), code=0)
    assert sent[0][0] == "jlgcli batch done (exit 0)"


def test_the_batch_step_summary_and_outputs_say_parked_with_the_question() -> None:
    from jlgcli.integrations.github_batch import batch_status, markdown, output_values

    record = batch(TaskRecord("alpha", "/t/a.md", runId="r1", exitCode=0), parked())
    values = output_values(record)
    assert (values["status"], values["exit-code"], batch_status(1)) == ("parked", "7", "error")
    assert json.loads(values["tasks"])[1]["question"] == parked().question
    text = markdown(record)
    assert "❓" in text and "beta asks: Which colour?" in text
    assert 'jlgcli answer 20261128T210001Z-bbbbbb "…"' in text
