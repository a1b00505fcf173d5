"""Run a batch's task children N at a time under one cost budget (issue 37).

The parent's main thread does the watching: it starts children while there
are free slots (a slot is free as soon as its task's run has ended, the
``run-ended`` event, or its process is gone; the task's commit goes on in the
task's own thread), adds up the reported cost,
and redraws the board. It sleeps on one event that every task thread sets (an
event of a child, a child gone, a task finished), so nothing waits for a
polling tick; the events themselves reach the batch's ``--events`` file from
the task threads, as they arrive (``jlgcli.batch.child``).
When the shared ``--max-cost`` is spent it stops every running task (the
kill ladder's polite rung: each child writes its state) and starts no more.
A stop signal (Ctrl-C, TERM…) raises ``Interrupted`` here; the caller stops
every child the same way, after which every task's state is on disk.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from jlgcli.batch.board import Board, Row
from jlgcli.batch.child import ChildRun
from jlgcli.records import field, record

TICK_S = 0.5  # with no news, the board's clocks still move (and Windows sees Ctrl-C)
SETTLE_S = 5.0  # the longest an ended task's commit waits for starting tasks (see settled)


@record(frozen=False)
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


@record(frozen=False)
class Schedule:
    """The batch's slots, how many run at once, and the shared budget (None: no cap)."""

    slots: list[Slot]
    jobs: int
    budget: float | None
    board: Board
    on_start: Callable[[Slot, float | None], None]
    on_end: Callable[[Slot], None]
    # Dependency waves (batch.waves): True starts the slot, False keeps it waiting, a text
    # skips it (its reason shown); None: every slot may start in turn.
    ready: Callable[[Slot], bool | str] | None = None
    budget_spent: bool = False
    wake: threading.Event = field(default_factory=threading.Event)
    # Set while no task is starting (child begun, its agent not heard from yet: the start
    # spawns a probe, a supervisor server, the snapshot's gits and the agent): an ended
    # task's commit waits for it (SETTLE_S at most), so the git work of one round does not
    # slow the next round's start on a small machine; nobody waits for it before the end.
    settled: threading.Event = field(default_factory=threading.Event)
    _queue: list[Slot] = field(default_factory=list)

    def spent(self) -> float:
        return sum(slot.cost for slot in self.slots)

    def run(self) -> None:
        """Until every task has ended (or the budget stopped them)."""
        self._queue = [slot for slot in self.slots if not slot.ended]
        for slot in self._queue:
            slot.child.wake = self.wake
        while True:
            self._start_more()
            running = [s for s in self.slots if s.started and not s.ended]
            if not running and (not self._queue or self.budget_spent):
                break
            if not running:  # waiting on nothing that runs: never (waves are acyclic)
                raise RuntimeError(f"tasks wait on nothing: {[s.child.name for s in self._queue]}")
            self.wake.wait(TICK_S)
            self.wake.clear()  # cleared before looking: news after this wakes the next wait
            self._watch(running)
        self.settled.set()
        for slot in self._queue:  # never started: the budget ran out first
            slot.budget_stopped = True
            slot.row.state = "not started (budget)"
        self.board.update()

    def stop_all(self) -> None:
        """Stop every running task and wait for each to write its state (Ctrl-C)."""
        self.settled.set()
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
            busy = sum(1 for s in self.slots if s.started and not self._free(s))
            if busy >= self.jobs:
                return
            slot = self._next()
            if slot is None:  # the others wait for their dependencies
                return
            left = None if self.budget is None else max(self.budget - self.spent(), 0.0)
            self.on_start(slot, left)
            self.settled.clear()
            slot.started = True
            slot.row.state, slot.row.started = "running", time.monotonic()
            slot.child.start()

    def _next(self) -> Slot | None:
        """The first queued slot that may start (the skipped ones end on the way)."""
        for slot in list(self._queue):
            verdict = True if self.ready is None else self.ready(slot)
            if verdict is True:
                self._queue.remove(slot)
                return slot
            if isinstance(verdict, str):
                self._queue.remove(slot)
                slot.ended, slot.row.state = True, verdict
        return None

    @staticmethod
    def _free(slot: Slot) -> bool:
        """A slot is free once its task's run has ended (its process is exiting: result
        written, state saved) or its process is gone."""
        return slot.child.live.run_ended or slot.child.exited.is_set()

    def _watch(self, running: list[Slot]) -> None:
        finished = []
        for slot in running:
            self._show(slot)
            if slot.child.exited.is_set() and slot.row.ended is None:
                slot.row.ended = time.monotonic()
            if not slot.child.running():
                slot.child.join()
                slot.ended = True
                finished.append(slot)
        if self.budget is not None and not self.budget_spent and self.spent() >= self.budget:
            self.budget_spent = True
            for slot in self.slots:
                if slot.started and not slot.ended:
                    slot.budget_stopped = True
                    slot.row.state = "stopping (budget spent)"
                    slot.child.cancel.set()
        self._start_more()  # a slot is free once its child's run has ended
        starting = any(
            s.started and not (s.ended or s.child.exited.is_set() or s.child.live.agent_heard)
            for s in self.slots
        )
        (self.settled.clear if starting else self.settled.set)()
        for slot in finished:
            if slot.child.error is not None:
                raise slot.child.error
            self.on_end(slot)
        self.board.update()

    def _show(self, slot: Slot) -> None:
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
        slot.row.ended = slot.row.ended or time.monotonic()
        self.on_end(slot)
