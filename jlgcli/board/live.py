"""A batch's tasks as they go, from the batch's events (issue 52, on issue 51's events).

The batch record learns a task's run and ending only when the task ends; its
``events.ndjson`` says at once that a task started, then its live line (state,
iteration, cost, what it is doing) and its end. The board reads what was written
so far (``batch.follow.Follower``, stopped at its first quiet look: a page is
drawn, not followed), and each task's own events file names its run from its
first line. Everything read is input: shown as text, a run id only when safe.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

_FIRST_LINE = 64 * 1024


def task_states(runs_root: Path, batch_id: str) -> dict[str, dict[str, Any]]:
    """Task id -> its last known ``state``, ``line``, ``iteration``, ``costUsd``, ``ended``."""
    from jlgcli.batch.follow import Follower, Target
    from jlgcli.batch.record import batch_dir

    folder = batch_dir(runs_root, batch_id)
    stop = threading.Event()
    follower = Follower(Target("batch", batch_id, folder, runs_root), stop=stop,
                        on_idle=stop.set, is_live=lambda: True)  # fmt: skip
    states: dict[str, dict[str, Any]] = {}
    for event in follower:
        kind, task = event.get("type"), event.get("task")
        if not isinstance(task, str):
            continue
        state = states.setdefault(task, {"state": "running", "line": "", "ended": False})
        if kind == "task-started":
            state.update(state="running", ended=False)
        elif kind in ("task-line", "task-ended"):
            for key in ("state", "line", "activity", "backend"):
                if isinstance(event.get(key), str):
                    state[key] = event[key]
            for key in ("iteration", "iterations", "costUsd"):
                if isinstance(event.get(key), (int, float)) and not isinstance(event[key], bool):
                    state["iteration" if key == "iterations" else key] = event[key]
            state["ended"] = kind == "task-ended"
    return states


def task_run(runs_root: Path, batch_id: str, task: str) -> str | None:
    """The run of a batch's task, named by the first line of its events file (a task that
    is still going: the record names its run only at its end)."""
    from jlgcli.artifacts.ids import is_safe_run_id
    from jlgcli.batch.record import batch_dir

    path = batch_dir(runs_root, batch_id) / f"{task}.events.jsonl"
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            first = json.loads(handle.readline(_FIRST_LINE))
    except (OSError, ValueError):
        return None
    run_id = first.get("runId") if isinstance(first, dict) else None
    return run_id if isinstance(run_id, str) and is_safe_run_id(run_id) else None
