"""Batches in ``jlgcli runs`` (issues 37, 44): each batch with its tasks, their status and run.

``jlgcli runs`` lists them on stdout after the runs (whose TASK column names the
batch task a run was), ``-q`` prints their ids among the runs' (newest first),
and ``jlgcli runs show BATCH`` shows one with each task's outcome. The records
are input: names were validated on load, statuses are derived, a run id is
shown only when it is a safe run id, and text is flattened to one printable line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jlgcli.batch.record import BatchRecord, list_batches, load
from jlgcli.batch.report import batch_code, status_of, to_json, totals_of
from jlgcli.errors import JlgError


def batches(root: Path, limit: int = 5) -> list[dict[str, Any]]:
    """The newest ``limit`` batches under the runs root ``root``, newest first."""
    found: list[dict[str, Any]] = []
    for batch_id in list_batches(root)[: max(limit, 0)]:
        try:
            record = load(root, batch_id)
        except JlgError as exc:
            found.append({"batchId": batch_id, "error": exc.message})
            continue
        found.append(_summary(record))
    return found


def _summary(record: BatchRecord) -> dict[str, Any]:
    from jlgcli.artifacts.ids import is_safe_run_id

    tasks = [
        {
            "id": task.name,
            "status": status_of(task, merge=record.merge),
            "runId": task.runId if task.runId and is_safe_run_id(task.runId) else None,
            "branch": task.branch or None,
            "iterations": task.iterations,
            "costUsd": task.costUsd,
            "dependsOn": list(task.dependsOn),
        }
        for task in record.tasks
    ]
    return {
        "batchId": record.batchId,
        "exitCode": batch_code(record),
        "started": record.started,
        "merge": record.merge,
        "target": record.target,
        "tasks": tasks,
        "totals": totals_of(record),
    }


def tasks_of_runs(items: list[dict[str, Any]]) -> dict[str, str]:
    """Run id -> the id of the batch task it was (for the runs table's TASK column)."""
    return {
        task["runId"]: task["id"]
        for item in items
        for task in item.get("tasks", [])
        if task.get("runId")
    }


def batch_lines(items: list[dict[str, Any]]) -> list[str]:
    """Text lines for ``jlgcli runs``: a batch, then one indented line per task."""
    lines: list[str] = []
    for item in items:
        if "error" in item:
            lines.append(f"{item['batchId']}  (record unreadable)")
            continue
        totals = item["totals"]
        lines.append(
            f"{item['batchId']}  exit {item['exitCode']}  {totals['tasks']} tasks, "
            f"{totals['done']} done, {totals['merged']} merged"
        )
        for task in item["tasks"]:
            where = task["branch"] or "in place"
            status = _one_line(task["status"], 40)
            lines.append(f"  {task['id']:<20} {status:<18} {task['runId'] or '-'}  {where}")
    return lines


def show(root: Path, ref: str) -> dict[str, Any]:
    """``jlgcli runs show BATCH``: the batch's record, each task with its outcome."""
    record = load(root, ref)
    data = to_json(record, {})
    for task in data["tasks"]:
        task.pop("summary", None)
    by_name = {task.name: task for task in record.tasks}
    for task in data["tasks"]:
        task["dependsOn"] = list(by_name[task["id"]].dependsOn)
        task["skipped"] = by_name[task["id"]].skipped
        task["conflict"] = by_name[task["id"]].conflict
    data.update(started=record.started, updated=record.updated, base=record.base)
    data["unfinished"] = [t.name for t in record.tasks if not t.finished and not t.skipped]
    return data


def show_lines(data: dict[str, Any]) -> list[str]:
    """A few lines a person reads: the batch, then each task's outcome and what next."""
    from jlgcli.batch.board import table

    totals = data["totals"]
    cost = "unknown" if totals["costUsd"] is None else f"${totals['costUsd']:.4f}"
    head = [
        f"batch       {data['batchId']}",
        f"status      exit {data['exitCode']}",
        f"started     {data['started']}",
        f"merge       {'into ' + str(data['target']) if data['merge'] else 'no (branches kept)'}",
        f"totals      {totals['tasks']} tasks, {totals['done']} done, {totals['merged']} "
        f"merged, {totals['iterations']} iterations, cost {cost}",
    ]
    rows = [
        [
            task["id"],
            _one_line(task["status"], 60),
            task["runId"] or "-",
            str(task["iterations"]),
            "?" if task["costUsd"] is None else f"${task['costUsd']:.4f}",
            task["branch"] or "(in place)",
        ]
        for task in data["tasks"]
    ]
    lines = [*head, "", table(rows, ["task", "status", "run", "iter", "cost", "branch"]).rstrip()]
    for task in data["tasks"]:
        note = task["mergeNote"] if task["mergeNote"] and not task["merged"] else None
        if note:
            lines.append(f"  {task['id']}: {_one_line(note, 300)}")
    if any(task["conflict"] for task in data["tasks"]):
        lines.append(
            f"run the conflicting tasks again on the merged result: "
            f"jlgcli loop --resume {data['batchId']} --retry-conflicts"
        )
    if data["unfinished"]:
        lines.append(f"continue the unfinished tasks with: jlgcli loop --resume {data['batchId']}")
    return lines


def _one_line(text: str, limit: int) -> str:
    flat = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
