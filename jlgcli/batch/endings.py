"""How a batch's task ended, noted in its record (issue 37): from its summary, or its
process's exit when it printed none; a signal to the batch is the signal of its tasks."""

from __future__ import annotations

from typing import Any

from jlgcli.batch.record import TaskRecord
from jlgcli.batch.schedule import Slot


def note_ending(task: TaskRecord, slot: Slot, summary: dict[str, Any] | None) -> None:
    live = slot.child.live
    task.runId = live.run_id or task.runId
    if summary is not None:
        task.runId = str(summary.get("runId") or task.runId or "") or None
        task.exitCode = int(summary.get("exitCode", 1))
        task.stopCause = str(summary.get("stopCause") or "") or None
        task.iterations = int(summary.get("iterations") or 0)
    else:
        code = slot.child.exit_code
        task.exitCode = 130 if slot.child.cancel.is_set() and code in (None, 130) else (code or 1)
        task.stopCause = "interrupted" if task.exitCode == 130 else "child failed"
    if live.cost_known or task.costUsd is not None:
        task.costUsd = round(slot.cost, 6)
    elif summary is not None and isinstance(summary.get("costUsd"), (int, float)):
        task.costUsd = float(summary["costUsd"])
    task.budgetStopped = task.stopCause == "max-cost" or (
        slot.budget_stopped and task.exitCode != 0
    )


def stopped_by(
    signum: int, tasks: list[TaskRecord], summaries: dict[str, dict[str, Any] | None]
) -> None:
    """The tasks the batch stopped because it got ``signum`` end with its code and name: each
    child is stopped with the kill ladder's SIGINT, but a TERM to the batch is a TERM to its
    tasks (143, not 130)."""
    import signal

    if signum == signal.SIGINT:
        return
    name = signal.Signals(signum).name
    for task in tasks:
        if task.exitCode == 130:
            task.exitCode = 128 + int(signum)
            summary = summaries.get(task.name)
            if summary is not None:
                summary.update(exitCode=task.exitCode, signal=name)
