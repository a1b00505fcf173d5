"""Run a batch's task children N at a time under one cost budget (issue 37).

The parent's main thread does the watching: it starts children while there
are free slots, copies each child's events (with ``task`` added) to the
batch's ``--events`` file, adds up the reported cost, and redraws the board.
When the shared ``--max-cost`` is spent it stops every running task (the
kill ladder's polite rung: each child writes its state) and starts no more.
A stop signal (Ctrl-C, TERM…) raises ``Interrupted`` here; the caller stops
every child the same way, after which every task's state is on disk.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from jlgcli.batch.board import Board, Row
from jlgcli.batch.child import ChildRun

POLL_S = 0.1


@dataclass
class Slot:
    """A task waiting, running or ended, with its display row."""

    child: ChildRun
    row: Row
    cost_before: float = 0.0  # spent by earlier runs of this task (a resumed batch)
    budget_stopped: bool = False
    started: bool = False
    ended: bool = False

    @property
    def cost(self) -> float:
        return self.cost_before + self.child.live.cost


@dataclass
class Schedule:
    """The batch's slots, how many run at once, and the shared budget (None: no cap)."""

    slots: list[Slot]
    jobs: int
    budget: float | None
    board: Board
    emit: Callable[[dict[str, Any]], None]
    on_start: Callable[[Slot, float | None], None]
    on_end: Callable[[Slot], None]
    budget_spent: bool = False
    _queue: list[Slot] = field(default_factory=list)

    def spent(self) -> float:
        return sum(slot.cost for slot in self.slots)

    def run(self) -> None:
        """Until every task has ended (or the budget stopped them)."""
        self._queue = [slot for slot in self.slots if not slot.ended]
        while True:
            self._start_more()
            running = [s for s in self.slots if s.started and not s.ended]
            if not running and (not self._queue or self.budget_spent):
                break
            self._watch(running)
            time.sleep(POLL_S)
        for slot in self._queue:  # never started: the budget ran out first
            slot.budget_stopped = True
            slot.row.state = "not started (budget)"
        self.board.update()

    def stop_all(self) -> None:
        """Stop every running task and wait for each to write its state (Ctrl-C)."""
        for slot in self.slots:
            if slot.started and not slot.ended:
                slot.child.cancel.set()
        for slot in self.slots:
            if slot.started and not slot.ended:
                slot.child.join()
                self._ended(slot)
        self.board.update()

    def _start_more(self) -> None:
        while self._queue and not self.budget_spent:
            if sum(1 for s in self.slots if s.started and not s.ended) >= self.jobs:
                return
            slot = self._queue.pop(0)
            left = None if self.budget is None else max(self.budget - self.spent(), 0.0)
            self.on_start(slot, left)
            slot.started = True
            slot.row.state, slot.row.started = "running", time.monotonic()
            slot.child.start()

    def _watch(self, running: list[Slot]) -> None:
        finished = []
        for slot in running:
            self._copy_events(slot)
            if not slot.child.running():
                slot.child.join()
                self._copy_events(slot)
                slot.ended, slot.row.ended = True, time.monotonic()
                finished.append(slot)
        if self.budget is not None and not self.budget_spent and self.spent() >= self.budget:
            self.budget_spent = True
            for slot in self.slots:
                if slot.started and not slot.ended:
                    slot.budget_stopped = True
                    slot.row.state = "stopping (budget spent)"
                    slot.child.cancel.set()
        if finished:
            self._start_more()  # the next tasks start before the ended ones' git work
        for slot in finished:
            self.on_end(slot)
        self.board.update()

    def _copy_events(self, slot: Slot) -> None:
        for event in slot.child.read_events():
            self.emit({**event, "task": slot.child.name})
        live, row = slot.child.live, slot.row
        known = live.cost_known or slot.cost_before > 0
        row.backend, row.iteration = live.backend, live.iteration
        row.cost = slot.cost if known else None
        row.activity = live.activity
        if not slot.ended and not slot.budget_stopped:
            row.state = "waiting" if live.waiting else "running"

    def _ended(self, slot: Slot) -> None:
        if slot.ended:
            return
        slot.ended = True
        slot.row.ended = time.monotonic()
        self.on_end(slot)
