"""What the board shows, read through the CLI's own readers (issue 52).

``runs``/``runs show`` read runs with ``runner.listing``, batches with
``batch.listing``: so does the board, into plain JSON-like dicts that the
server redacts once before any page is drawn. Records are input: shown, never
run. A run that has ended is read once and kept while its files are unchanged
(a thousand runs: a page reads only its own rows; the cost chart reads the
rest once).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from jlgcli.artifacts.layout import EVENTS_FILE, META_FILE, RESULT_FILE, TRANSCRIPT_FILE
from jlgcli.batch.record import BATCHES, RECORD, list_batches
from jlgcli.runner.listing import (
    INCOMPLETE,
    KILLED,
    RUNNING,
    STATE_FILE,
    RunInfo,
    load_run,
    read_run,
    run_ids,
)

PAGE_SIZE = 50
_LIVE = frozenset({RUNNING, INCOMPLETE, KILLED})  # may change with no file changing


def file_mark(path: Path) -> tuple[int, int] | None:
    """(mtime, size) of ``path``, None when absent: what tells the board a file changed."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


class BoardData:
    """The runs root's runs and batches, read on demand (thread-safe)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._cache: dict[str, tuple[Any, RunInfo]] = {}
        self._ids: tuple[Any, list[str]] = (None, [])
        self._lock = threading.Lock()

    def run_ids(self) -> list[str]:
        """The run ids, newest first; listed again only when the runs folder changed."""
        mark = file_mark(self.root)
        with self._lock:
            if mark is not None and self._ids[0] == mark:
                return self._ids[1]
        ids = run_ids(self.root)
        with self._lock:
            self._ids = (mark, ids)
        return ids

    # --- runs --------------------------------------------------------------------------

    def info(self, run_id: str) -> RunInfo:
        """One run's line, from the cache while its files are unchanged and it has ended."""
        path = self.root / run_id
        mark = tuple(file_mark(path / name) for name in (RESULT_FILE, STATE_FILE, META_FILE))
        with self._lock:
            cached = self._cache.get(run_id)
        if cached is not None and cached[0] == mark:
            return cached[1]
        info = read_run(path)
        if info.status not in _LIVE:
            with self._lock:
                self._cache[run_id] = (mark, info)
        return info

    def runs_page(self, page: int, size: int = PAGE_SIZE) -> dict[str, Any]:
        """Page ``page`` (from 1) of the runs, newest first, each with its batch task."""
        ids = self.run_ids()
        pages = max(1, -(-len(ids) // size))
        page = min(max(page, 1), pages)
        shown = ids[(page - 1) * size : page * size]
        task_of = self.tasks_of_runs()
        rows = [{**run_row(self.info(run_id)), "task": task_of.get(run_id)} for run_id in shown]
        return {"runs": rows, "page": page, "pages": pages, "total": len(ids)}

    def run(self, run_id: str) -> dict[str, Any]:
        """A run's page: its line, its iterations (gates, diff, cost) and its files."""
        detail = load_run(self.root, run_id)
        state = detail.state or {}
        found = state.get("metrics")
        metrics: list[Any] = found if isinstance(found, list) else []
        task = state.get("task") if isinstance(state.get("task"), str) else None
        asked = state.get("question") if detail.info.stop_cause == "question" else None
        error = (detail.result or {}).get("error")
        return {
            "run": run_row(detail.info),
            "task": task,
            "question": asked if isinstance(asked, str) else None,
            "parked": detail.info.stop_cause == "question",
            "error": error if isinstance(error, dict) else None,
            "iterations": [iteration_row(m) for m in metrics if isinstance(m, dict)],
            "transcript": detail.transcript is not None,
            "batch": self.tasks_of_runs().get(detail.info.run_id),
        }

    def costs(self) -> list[dict[str, Any]]:
        """The cost of the runs by day and backend (the chart's points), oldest day first."""
        spent: dict[tuple[str, str], float] = {}
        with self._lock:
            ended = {run_id: info for run_id, (_, info) in self._cache.items()}
        for run_id in self.run_ids():
            # An ended run's cost is final: the chart does not look at its files again.
            info = ended.get(run_id) or self.info(run_id)
            if info.cost_usd is None or info.started_at is None:
                continue
            key = (info.started_at.astimezone().date().isoformat(), info.backend or "-")
            spent[key] = spent.get(key, 0.0) + info.cost_usd
        return [{"day": d, "backend": b, "cost": c} for (d, b), c in sorted(spent.items())]

    # --- batches -----------------------------------------------------------------------

    def batches(self, limit: int = 20) -> list[dict[str, Any]]:
        """The newest ``limit`` batches, each with its tasks' status, run and branch."""
        from jlgcli.batch.listing import batches

        return batches(self.root, limit)

    def tasks_of_runs(self) -> dict[str, str]:
        """Run id -> ``batch id / task id`` of the batch task it was."""
        found: dict[str, str] = {}
        for item in self.batches(limit=200):
            for task in item.get("tasks", []):
                if task.get("runId"):
                    found[task["runId"]] = f"{item['batchId']}/{task['id']}"
        return found

    def batch(self, batch_id: str) -> dict[str, Any]:
        """A batch's page: ``runs show BATCH``'s record, each task with its run's line."""
        from jlgcli.batch.listing import show
        from jlgcli.board.live import task_run, task_states

        data = show(self.root, batch_id)
        states = task_states(self.root, data["batchId"])
        for task in data["tasks"]:
            live = states.get(task["id"])
            if task["runId"] is None and live is not None:  # going: the record knows at its end
                task["runId"] = task_run(self.root, data["batchId"], task["id"])
            run_id = task.get("runId")
            task["run"] = run_row(self.info(run_id)) if run_id else None
            task["line"] = live.get("line") if live else None
            if task["exitCode"] is None and live is not None:
                task["status"] = live["state"]  # running, waiting, a stop cause…
            elif task["run"] and task["run"]["status"] == RUNNING and task["exitCode"] is None:
                task["status"] = RUNNING
        return data

    # --- what a live page watches --------------------------------------------------------

    def marks(self, kind: str, ident: str | None) -> tuple[Any, ...]:
        """The files whose change redraws page ``kind``; equal tuples: nothing new. ``ident``
        comes from the address: only a run or batch id names a folder (never a path)."""
        from jlgcli.artifacts.ids import is_safe_run_id

        if kind == "run" and ident and is_safe_run_id(ident):
            folder = self.root / ident
            return tuple(file_mark(folder / name) for name in _RUN_FILES)
        if kind == "batch" and ident and ident in list_batches(self.root):
            folder = self.root / BATCHES / ident
            marks: list[Any] = [file_mark(folder / RECORD), file_mark(folder / EVENTS_FILE)]
            for run_id in _task_runs(folder / RECORD):
                marks += [file_mark(self.root / run_id / STATE_FILE)]
            return tuple(marks)
        newest = self.run_ids()[:PAGE_SIZE]
        marks = [tuple(list_batches(self.root)[:20]), tuple(newest)]
        marks += [file_mark(self.root / BATCHES / b / RECORD) for b in list_batches(self.root)[:20]]
        marks += [file_mark(self.root / run_id / STATE_FILE) for run_id in newest]
        return tuple(marks)


_RUN_FILES = (STATE_FILE, RESULT_FILE, EVENTS_FILE, TRANSCRIPT_FILE, "run.lock")


def _task_runs(record: Path) -> list[str]:
    """The run ids a batch record names (safe ones only): the runs its page watches."""
    import json

    from jlgcli.artifacts.ids import is_safe_run_id

    try:
        data = json.loads(record.read_text("utf-8"))
        tasks = data.get("tasks", []) if isinstance(data, dict) else []
    except (OSError, ValueError):
        return []
    found = [t.get("runId") for t in tasks if isinstance(t, dict)]
    return [r for r in found if isinstance(r, str) and is_safe_run_id(r)]


def run_row(info: RunInfo) -> dict[str, Any]:
    """A run's line as the board shows it (``runs --json``'s fields)."""
    row = info.to_json()
    row.pop("path", None)  # where the user's files are is not the page's business
    row["outcome"] = info.outcome
    row["backendWords"] = info.backend_words
    return row


def iteration_row(metric: dict[str, Any]) -> dict[str, Any]:
    """One line of a run's iteration table, from a ``state.json`` metrics record."""
    gates = [
        {
            "command": str(gate.get("command", "")),
            "ok": gate.get("ok") is True,
            "exitCode": gate.get("exitCode"),
            "output": str(gate.get("outputTail") or ""),
        }
        for gate in metric.get("gates") or []
        if isinstance(gate, dict)
    ]
    diff = metric.get("diffStat") if isinstance(metric.get("diffStat"), dict) else None
    return {
        "n": metric.get("index"),
        "backend": metric.get("backend"),
        "durationMs": metric.get("durationMs"),
        "inputTokens": metric.get("inputTokens"),
        "outputTokens": metric.get("outputTokens"),
        "costUsd": metric.get("costUsd"),
        "completion": metric.get("completion"),
        "summary": metric.get("summary"),
        "diff": diff,
        "gates": gates,
    }
