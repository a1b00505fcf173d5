"""Batches in ``jlgcli runs`` (issue 37): each batch with its tasks, their status and run.

The records are input: names were validated on load, statuses are derived,
and a run id is shown only when it is a safe run id.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jlgcli.batch.record import list_batches, load
from jlgcli.batch.report import batch_code, status_of
from jlgcli.errors import JlgError


def batches(root: Path, limit: int = 5) -> list[dict[str, Any]]:
    """The newest ``limit`` batches under the runs root ``root``, newest first."""
    from jlgcli.artifacts.ids import is_safe_run_id

    found: list[dict[str, Any]] = []
    for batch_id in list_batches(root)[: max(limit, 0)]:
        try:
            record = load(root, batch_id)
        except JlgError as exc:
            found.append({"batchId": batch_id, "error": exc.message})
            continue
        tasks = [
            {
                "id": task.name,
                "status": status_of(task, merge=record.merge),
                "runId": task.runId if task.runId and is_safe_run_id(task.runId) else None,
                "branch": task.branch or None,
            }
            for task in record.tasks
        ]
        found.append({"batchId": batch_id, "exitCode": batch_code(record), "tasks": tasks})
    return found


def batch_lines(items: list[dict[str, Any]]) -> list[str]:
    """Text lines for ``jlgcli runs``: a batch, then one indented line per task."""
    lines: list[str] = []
    for item in items:
        if "error" in item:
            lines.append(f"{item['batchId']}  (record unreadable)")
            continue
        lines.append(f"{item['batchId']}  exit {item['exitCode']}")
        for task in item["tasks"]:
            where = task["branch"] or "in place"
            lines.append(f"  {task['id']:<20} {task['status']:<18} {task['runId'] or '-'}  {where}")
    return lines
