"""The end of a batch (issue 37): the table, the totals, the JSON object, the exit code."""

from __future__ import annotations

from typing import Any

from jlgcli.batch.board import table
from jlgcli.batch.record import BatchRecord, TaskRecord
from jlgcli.money import money

# Most serious first: a bug, then what a person must fix, then what more time or money fixes.
# A task parked on a question (7) waits for a person: before what more time or money fixes.
SEVERITY = (70, 73, 78, 2, 6, 77, 7, 64, 66, 65, 1, 75, 5, 4)
NOT_MERGED = 1  # a done task whose branch could not be merged counts as a run error
PARKED = 7  # errors.ExitCode.PARKED: the task's agent asked a question (issue 51)


def task_code(task: TaskRecord, *, merge: bool) -> int | None:
    """The code a task contributes to the batch's (None: still to run)."""
    if task.budgetStopped:
        return 4
    if task.exitCode == 0 and merge and not task.merged:
        return NOT_MERGED
    return task.exitCode


def batch_code(record: BatchRecord) -> int:
    """0 only when every task is done (and merged when asked); else the most serious code."""
    codes = [task_code(task, merge=record.merge) for task in record.tasks]
    if all(code == 0 for code in codes):
        return 0
    signals = [code for code in codes if code is not None and code >= 128]
    if signals:
        return signals[0]
    for code in SEVERITY:
        if code in codes:
            return code
    return 1


def status_of(task: TaskRecord, *, merge: bool) -> str:
    if task.budgetStopped:
        return "budget spent" if task.runId else "not started (budget)"
    if task.exitCode is None:
        return task.skipped or "not started"  # skipped: a dependency did not end done
    if task.exitCode == 0:
        if task.merged:
            return "merged"
        return "done, not merged" if merge else "done"
    if task.exitCode == PARKED:
        return "parked (question)"
    return task.stopCause or f"exit {task.exitCode}"


def render(record: BatchRecord) -> str:
    """The end-of-batch table, its totals and the notes (what to look at)."""
    rows = []
    for task in record.tasks:
        cost = "?" if task.costUsd is None else f"${task.costUsd:.4f}"
        rows.append(
            [
                task.name,
                status_of(task, merge=record.merge),
                str(task.iterations),
                cost,
                task.branch or "(in place)",
                task.diffStat or "-",
            ]
        )
    text = table(rows, ["task", "status", "iter", "cost", "branch", "changes"])
    totals = totals_of(record)
    text += (
        f"total: {totals['tasks']} tasks, {totals['done']} done, {totals['merged']} merged, "
        f"{totals['iterations']} iterations, cost {_money(totals['costUsd'])}; "
        f"batch {record.batchId}\n"
    )
    for task in record.tasks:
        if task.mergeNote and not task.merged:
            text += f"  {task.name}: {task.mergeNote}\n"
    for task in record.tasks:
        if task.exitCode == PARKED:
            asked = " ⏎ ".join(line.strip() for line in (task.question or "").splitlines())
            text += f"  {task.name} asks: {asked or '(no text)'}\n"
            text += f'  answer it with: jlgcli answer {task.runId} "your answer"\n'
    if any(task.conflict and not task.merged for task in record.tasks):
        text += (
            "run the conflicting tasks again on the merged result: "
            f"jlgcli loop --resume {record.batchId} --retry-conflicts\n"
        )
    unfinished = [t for t in record.tasks if not t.finished and not t.skipped]
    if unfinished:
        text += f"continue the unfinished tasks with: jlgcli loop --resume {record.batchId}\n"
    return text


def totals_of(record: BatchRecord) -> dict[str, Any]:
    costs = [t.costUsd for t in record.tasks if t.costUsd is not None]
    return {
        "tasks": len(record.tasks),
        "done": sum(1 for t in record.tasks if t.exitCode == 0),
        "merged": sum(1 for t in record.tasks if t.merged),
        "iterations": sum(t.iterations for t in record.tasks),
        "costUsd": money(sum(costs)) if costs else None,
    }


def to_json(record: BatchRecord, summaries: dict[str, dict[str, Any] | None]) -> dict[str, Any]:
    """``--json``: the batch, each task with its RunSummary (``summary``) and its own code."""
    return {
        "batchId": record.batchId,
        "exitCode": batch_code(record),
        "merge": record.merge,
        "target": record.target,
        "tasks": [
            {
                "id": task.name,
                "task": task.task,
                "branch": task.branch or None,
                "status": status_of(task, merge=record.merge),
                "exitCode": task_code(task, merge=record.merge),
                "runId": task.runId,
                "iterations": task.iterations,
                "costUsd": money(task.costUsd),
                "merged": task.merged,
                "mergeNote": task.mergeNote,
                "diffStat": task.diffStat or None,
                "question": task.question,
                "summary": summaries.get(task.name),
            }
            for task in record.tasks
        ],
        "totals": totals_of(record),
    }


def _money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:.4f}"


def notify_end(record: BatchRecord, targets: tuple[str, ...], *, code: int) -> None:
    """The batch's one notification at its end (issue 51): its totals and each task's status,
    redacted; a failing target is a warning on stderr, never a failed batch."""
    import sys

    from jlgcli.artifacts.redact import Redactor
    from jlgcli.runner.notify import Notifier

    totals = totals_of(record)
    lines = [
        f"{totals['tasks']} tasks, {totals['done']} done, {totals['merged']} merged, "
        f"cost {_money(totals['costUsd'])}",
        *(f"{task.name}: {status_of(task, merge=record.merge)}" for task in record.tasks),
    ]
    parked = [task.name for task in record.tasks if task.exitCode == PARKED]
    status = "done" if code == 0 else "parked" if code == PARKED else "incomplete"

    def warn(message: str) -> None:
        sys.stderr.write(f"jlgcli: warning: {message}\n")

    notifier = Notifier(targets, redact=Redactor().redact, warn=warn)
    notifier.batch_ended(record.batchId, status=status, exit_code=code, lines=lines,
                         data={"parked": parked, "totals": totals})  # fmt: skip
