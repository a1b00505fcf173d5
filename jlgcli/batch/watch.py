"""``jlgcli watch``: attach to a run or a batch from any terminal (issue 51).

It follows what the run or batch writes anyway (``batch.follow``) and shows it with the
renderers of the terminal that started it: a run through ``runner.watch_view`` (the
console and the live status line), a batch through its ``Board`` (a line per task,
redrawn in place on a terminal, heartbeats elsewhere) and, at its end, the table of
``batch.report``. ``--json`` prints the events themselves, one JSON line each. Watching
stops nothing: Ctrl-C (or any stop signal) only detaches, with exit 130 (128 + the
signal); the end of what is watched, or its process gone, is exit 0.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any, Protocol, TextIO

from jlgcli.batch.board import Board, Row
from jlgcli.batch.follow import Follower, Target, find_run_or_batch

_NAME_CHARS = 60


class BatchView:
    """A batch's events shown as its board: one row per task."""

    def __init__(self, stream: TextIO, *, live: bool | None = None) -> None:
        self.stream = stream
        self.live = stream.isatty() if live is None else live
        self.rows: list[Row] = []
        self.board = Board(self.rows, stream=stream, live=self.live)
        self.ended: dict[str, Any] | None = None

    def show(self, event: dict[str, Any]) -> None:
        from jlgcli.runner.watch_view import _int, _monotonic_at

        kind = event.get("type")
        if kind == "batch-started":
            tasks = event.get("tasks")
            for name in tasks if isinstance(tasks, list) else []:
                self._row(name)
            return
        if kind == "batch-ended":
            self.ended = event
            return
        row = self._row(event.get("task"))
        if row is None:
            return
        if kind == "task-started":
            row.state, row.started = "running", _monotonic_at(event.get("time"))
        elif kind == "task-line":
            row.state = _clean(event.get("state")) or row.state
            row.backend = _clean(event.get("backend")) or row.backend
            row.iteration = _int(event.get("iteration")) or row.iteration
            cost = event.get("costUsd")
            if isinstance(cost, (int, float)) and not isinstance(cost, bool):
                row.cost = float(cost)
            row.activity = _clean(event.get("activity")) or ""
            if row.started is None:
                row.started = _monotonic_at(event.get("time"))
        elif kind == "task-ended":
            row.state = _clean(event.get("state")) or f"exit {_int(event.get('exitCode'))}"
            row.ended = _monotonic_at(event.get("time"))
            row.iteration = _int(event.get("iterations")) or row.iteration

    def tick(self) -> None:
        if self.rows:
            self.board.update()

    def close(self) -> None:
        """The board as it ends (what came since the last tick)."""
        self.tick()

    def _row(self, name: Any) -> Row | None:
        shown = _clean(name)
        if shown is None:
            return None
        for row in self.rows:
            if row.name == shown:
                return row
        row = Row(shown)
        self.rows.append(row)
        return row


def _clean(value: Any) -> str | None:
    """A value of an event as one short printable line (it is input: shown, nothing more)."""
    if not isinstance(value, str):
        return None
    from jlgcli.ansi import clean_terminal_text

    flat = " ".join(
        "".join(c if c.isprintable() else " " for c in clean_terminal_text(value)).split()
    )
    return flat[:_NAME_CHARS] or None


def watch(
    name: str | None,
    *,
    cwd: Path,
    runs_dir: str | None = None,
    json_mode: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
    stop: threading.Event | None = None,
) -> int:
    """Show ``name``'s story and follow it to its end; 0 at its end, 130 when detached."""
    from jlgcli.process.signals import Interrupted

    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    target = find_run_or_batch(name, cwd, runs_dir=runs_dir)
    view = _view(target, out, err, json_mode)
    follower = Follower(target, stop=stop, on_idle=view.tick)
    if not json_mode and target.is_live():
        err.write(f"jlgcli: watching {target.kind} {target.id} (Ctrl-C detaches; it goes on)\n")
        err.flush()
    try:
        for event in follower:
            view.show(event)
            if follower.caught_up:
                view.tick()
    except KeyboardInterrupt as exc:
        view.close()
        signum = exc.signum if isinstance(exc, Interrupted) else 2
        err.write(f"\njlgcli: detached from {target.id}; it goes on "
                  f"(jlgcli watch {target.id} to follow it again)\n")  # fmt: skip
        err.flush()
        return 128 + int(signum)
    view.close()
    if not json_mode:
        _epilogue(target, follower, err)
    return 0


class _JsonView:
    def __init__(self, out: TextIO) -> None:
        self.out = out

    def show(self, event: dict[str, Any]) -> None:
        self.out.write(json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n")
        self.out.flush()

    def tick(self) -> None:
        """Nothing moves in a stream of events."""

    def close(self) -> None:
        """Nothing to close."""


class _View(Protocol):
    def show(self, event: dict[str, Any]) -> None: ...
    def tick(self) -> None: ...
    def close(self) -> None: ...


def _view(target: Target, out: TextIO, err: TextIO, json_mode: bool) -> _View:
    if json_mode:
        return _JsonView(out)
    if target.kind == "batch":
        return BatchView(err)
    from jlgcli.runner.console import Console
    from jlgcli.runner.watch_view import RunView

    return RunView(Console(1, out=out, err=err))


def _epilogue(target: Target, follower: Follower, err: TextIO) -> None:
    """What is known beyond the events: the batch's table, or why a run's story stops."""
    if target.kind == "batch" and follower.ending != "stopped":
        from jlgcli.batch.record import load
        from jlgcli.batch.report import render
        from jlgcli.errors import JlgError

        try:
            err.write(render(load(target.runs_root, target.id)))
        except JlgError as exc:
            err.write(f"jlgcli: {exc.message}\n")
    if follower.ending == "gone":
        what = (
            "is no longer going and wrote no end"
            if target.events_path.is_file()
            else "kept no events (older versions of jlgcli did not)"
        )
        err.write(f"jlgcli: {target.kind} {target.id} {what}: see jlgcli runs show {target.id}\n")
    err.flush()
