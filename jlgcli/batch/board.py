"""What a person sees of a batch (issue 37): a live line per task, heartbeats, the table.

On a terminal the task lines are redrawn in place (cursor up, erase line);
elsewhere (CI logs) each task gets a line when its state changes and a
heartbeat every ``HEARTBEAT_S`` seconds. Everything goes to stderr: stdout is
the ``--json`` object's. Text shown here is jlgcli's own (names, numbers,
states), never the agent's output.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from jlgcli.records import record

HEARTBEAT_S = 60.0


@record(frozen=False)
class Row:
    """One task's line: what it is doing now."""

    name: str
    state: str = "queued"  # queued | running | waiting | done | <stop cause> | merged…
    backend: str = ""
    iteration: int = 0
    cost: float | None = None
    started: float | None = None
    ended: float | None = None
    activity: str = ""  # the last thing the task's events said (calling, text, gates…)

    def text(self, now: float) -> str:
        elapsed = "" if self.started is None else _duration((self.ended or now) - self.started)
        cost = "cost ?" if self.cost is None else f"${self.cost:.4f}"
        parts = [
            f"{self.name:<20}",
            f"{self.backend or '-':<8}",
            f"iter {self.iteration:<3}",
            f"{elapsed:>7}",
            f"{cost:>9}",
            f"{self.state} ({self.activity})"
            if self.activity and self.state == "running"
            else self.state,
        ]
        return "  ".join(parts)


class Board:
    """Task lines on ``stream``; ``live`` redraws in place (a terminal), else heartbeats."""

    def __init__(
        self,
        rows: list[Row],
        *,
        stream: TextIO | None = None,
        live: bool | None = None,
        quiet: bool = False,
        on_update: Callable[[list[Row], float], None] | None = None,
    ) -> None:
        """``on_update``: told the rows at every update, quiet or not (the batch's events)."""
        self.rows = rows
        self.on_update = on_update
        self.stream = sys.stderr if stream is None else stream
        self.live = self.stream.isatty() if live is None else live
        self.quiet = quiet
        self._drawn = 0
        self._said: dict[str, tuple[str, int]] = {}
        self._beat: dict[str, float] = {}

    def update(self, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        if self.on_update is not None:
            self.on_update(self.rows, now)
        if self.quiet:
            return
        if self.live:
            self._redraw(now)
            return
        for row in self.rows:
            key = (row.state, row.iteration)
            due = (
                row.state in ("running", "waiting")
                and now - self._beat.get(row.name, now) >= HEARTBEAT_S
            )
            if self._said.get(row.name) != key or due:
                if row.state != "queued" or row.name in self._said:
                    self.stream.write(f"jlgcli: task {row.text(now)}\n")
                self._said[row.name] = key
                self._beat[row.name] = now
        self.stream.flush()

    def _redraw(self, now: float) -> None:
        out = []
        if self._drawn:
            out.append(f"\x1b[{self._drawn}F")  # to the first task line
        for row in self.rows:
            out.append("\x1b[2K" + row.text(now) + "\n")
        self._drawn = len(self.rows)
        self.stream.write("".join(out))
        self.stream.flush()


def table(lines: list[list[str]], header: list[str]) -> str:
    """Columns padded to their widest cell (the end-of-batch table)."""
    rows = [header, *lines]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return (
        "\n".join(
            "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
            for row in rows
        )
        + "\n"
    )


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{seconds:02d}s"
