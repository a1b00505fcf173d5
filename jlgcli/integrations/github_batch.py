"""A batch in GitHub Actions (issue 37): one set of step outputs and one job summary.

The tasks' own loops publish nothing (``commands.run_actions.report``: a task
child leaves it to the batch), so ``steps.<id>.outputs`` describe the whole
batch, not whichever task ended last. Outputs: ``status`` (done, incomplete,
interrupted or error), ``exit-code``, ``iterations``, ``cost``, ``batch-id``,
``tasks`` (a JSON list: id, status, exit code, branch). The job summary is a
status line and the table the terminal shows.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from jlgcli.batch.record import BatchRecord
from jlgcli.batch.report import batch_code, status_of, task_code, totals_of
from jlgcli.integrations.github import append_summary, markdown_cell, write_outputs

INCOMPLETE = (4, 5, 75)  # more iterations, money or time would finish it: nothing broke
_ICONS = {"done": "✅", "incomplete": "⚠️", "interrupted": "⏹️", "error": "❌", "parked": "❓"}
PARKED = 7  # a task asked a question (issue 51): ``jlgcli answer`` resumes it


def batch_status(code: int) -> str:
    if code == 0:
        return "done"
    if code >= 128:
        return "interrupted"
    if code == PARKED:
        return "parked"
    return "incomplete" if code in INCOMPLETE else "error"


def output_values(record: BatchRecord) -> dict[str, str]:
    code = batch_code(record) if record.exitCode is None else record.exitCode
    totals = totals_of(record)
    tasks = [
        {"id": task.name, "status": status_of(task, merge=record.merge),
         "exitCode": task_code(task, merge=record.merge), "branch": task.branch or None,
         **({"question": task.question} if task.question else {})}
        for task in record.tasks
    ]  # fmt: skip
    cost = totals["costUsd"]
    return {
        "status": batch_status(code),
        "exit-code": str(code),
        "iterations": str(totals["iterations"]),
        "cost": "" if cost is None else f"{cost:.4f}",
        "batch-id": record.batchId,
        "tasks": json.dumps(tasks, separators=(",", ":")),
    }


def markdown(record: BatchRecord) -> str:
    values = output_values(record)
    totals = totals_of(record)
    cost = f"${values['cost']}" if values["cost"] else "?"
    lines = [
        f"### {_ICONS[values['status']]} jlgcli batch `{record.batchId}`: {values['status']} "
        f"(exit {values['exit-code']})",
        "",
        f"{totals['tasks']} tasks, {totals['done']} done, {totals['merged']} merged, "
        f"{totals['iterations']} iterations, cost {cost}",
        "",
        "| task | status | iterations | cost | branch | changes |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for task in record.tasks:
        cost = "?" if task.costUsd is None else f"${task.costUsd:.4f}"
        cells = [task.name, status_of(task, merge=record.merge), str(task.iterations), cost,
                 task.branch or "(in place)", task.diffStat or "-"]  # fmt: skip
        lines.append("| " + " | ".join(markdown_cell(cell) for cell in cells) + " |")
    notes = [f"- {markdown_cell(t.name)}: {markdown_cell(t.mergeNote)}" for t in record.tasks
             if t.mergeNote and not t.merged]  # fmt: skip
    notes += [f"- {markdown_cell(t.name)} asks: {markdown_cell(t.question or '')} — answer it: "
              f"`jlgcli answer {t.runId} \"…\"`" for t in record.tasks
              if t.exitCode == PARKED]  # fmt: skip
    return "\n".join([*lines, *(["", *notes] if notes else [])]) + "\n\n"


def publish_batch(record: BatchRecord, *, env: Mapping[str, str] = os.environ) -> None:
    """Append the batch's outputs and job summary (a warning, never a failure, when unwritable)."""
    write_outputs(output_values(record), env=env)
    append_summary(markdown(record), env=env)
