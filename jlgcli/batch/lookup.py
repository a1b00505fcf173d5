"""Which batch (or batch task) a reference names: ``loop --resume REF`` and ``answer REF``.

``is_batch_ref`` tells a batch from a single loop for ``--resume``; ``locate``
finds the parked task an answer is for (issue 51): a batch's id (or ``latest``
when the newest thing started here is a batch) with one task parked on a
question, or the run id of a batch's task. A record read back is input: it
names a task and a run, never a folder or a command.
"""

from __future__ import annotations

from pathlib import Path

from jlgcli.batch.record import BatchRecord, TaskRecord, list_batches, load
from jlgcli.errors import ExitCode, JlgError
from jlgcli.records import record
from jlgcli.runner.resume_options import not_parked


@record(slots=True)
class Located:
    """The parked task of a batch an answer is for."""

    batch_id: str
    task: str
    run_id: str | None
    question: str | None


def is_batch_ref(ref: str, runs_root: Path) -> bool:
    """Whether ``--resume ref`` means a batch: its id, or ``latest`` when the newest thing
    started here is a batch (its own tasks' runs are part of it) rather than a single loop;
    a finished batch resumed runs nothing again and shows its table."""
    from jlgcli.artifacts.ids import run_id_time
    from jlgcli.batch.record import latest
    from jlgcli.config.started import started_here
    from jlgcli.moments import datetime, timezone

    if ref.startswith("batch-"):
        return True
    if ref != "latest":
        return False
    newest = latest(runs_root)
    if newest is None:
        return False
    record = load(runs_root, newest)
    own = {task.runId for task in record.tasks}
    try:  # when the batch last wrote its record: its end, or its Ctrl-C
        ended = datetime.strptime(record.updated, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return True
    for run_id in started_here(runs_root):
        if run_id not in own and not run_id.startswith("batch-"):
            single = run_id_time(run_id)
            return not (single is not None and single >= ended)
    return True


def is_parked(task: TaskRecord) -> bool:
    """Whether the task stopped on a question (its run's exit code is the parked one)."""
    return task.exitCode == ExitCode.PARKED


def locate(ref: str, runs_root: Path) -> Located | None:
    """The batch task ``ref`` names (a batch id, ``latest`` when that is a batch, or the run
    id of a batch's task); None when ``ref`` is a single loop's run. 64 when the task named
    is not parked, or when the batch has several parked tasks (each is answered by its
    run id)."""
    if is_batch_ref(ref, runs_root):
        batch = load(runs_root, ref)
        parked = [task for task in batch.tasks if is_parked(task)]
        if len(parked) == 1:
            return _located(batch.batchId, parked[0])
        if not parked:
            raise JlgError(ExitCode.USAGE, f"no task of {batch.batchId} is parked on a question",
                           hint=f"see its tasks: jlgcli loop --resume {batch.batchId}")  # fmt: skip
        which = ", ".join(f"{task.name} (run {task.runId})" for task in parked)
        raise JlgError(
            ExitCode.USAGE,
            f"several tasks of {batch.batchId} are parked: {which}",
            hint='answer each by its run id: jlgcli answer RUN_ID "your answer"',
        )
    for batch_id in list_batches(runs_root):
        try:
            found: BatchRecord = load(runs_root, batch_id)
        except JlgError:  # a damaged record of another batch: not the one asked for
            continue
        for task in found.tasks:
            if task.runId == ref:
                if not is_parked(task):
                    raise not_parked(ref, task.stopCause, batch=found.batchId)
                return _located(found.batchId, task)
    return None


def _located(batch_id: str, task: TaskRecord) -> Located:
    return Located(batch_id=batch_id, task=task.name, run_id=task.runId, question=task.question)


def reopen_answered(batch: BatchRecord, answers: dict[str, str]) -> None:
    """The tasks answered run again (each resumes its parked run with its answer): their
    ending is cleared; 64 for a task that is not parked on a question."""
    for name, _answer in answers.items():
        task = next((task for task in batch.tasks if task.name == name), None)
        if task is None or not is_parked(task) or not task.runId:
            cause = task.stopCause if task is not None else None
            raise not_parked(task.runId if task and task.runId else name, cause,
                             batch=batch.batchId)  # fmt: skip
        task.exitCode = task.stopCause = task.question = None
