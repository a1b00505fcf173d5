"""A batch's tasks run (issue 37): a child loop per task, ``jobs`` at a time, one budget.

``run_tasks`` makes each task's ``ChildRun`` (its worktree made in its own thread,
dependency waves, its commit once done), schedules them with the shared budget and the
live board, tags each task's events into the batch's ``--events`` file, and on a
signal stops every task and records how each ended. ``jlgcli.commands.batch_loop`` sets the
batch up and reports it.
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jlgcli.batch.board import Board, Row
from jlgcli.batch.child import ChildRun, Forking
from jlgcli.batch.events import BatchEvents
from jlgcli.batch.lookup import is_parked
from jlgcli.batch.options import BatchSettings
from jlgcli.batch.record import BatchRecord, TaskRecord, batch_dir, save
from jlgcli.batch.schedule import SETTLE_S, Schedule, Slot
from jlgcli.batch.setup import WorktreeMaker, worktree_of
from jlgcli.batch.waves import Waves


def run_tasks(
    args: argparse.Namespace,
    record: BatchRecord,
    repo: Path | None,
    settings: BatchSettings,
    *,
    jobs: int,
    forking: Forking,
    versions: tuple[tuple[str, str], ...],
    batch_events: BatchEvents,
    answers: dict[str, str] | None = None,
) -> tuple[dict[str, dict[str, Any] | None], bool]:
    """Run ``record``'s tasks, ``jobs`` at a time, each a child loop in its worktree (or in
    place without ``repo``); each done task committed and, with dependents, merged for them.
    ``batch_events`` is told each task's start, line and end (the batch's events.ndjson).
    Returns each task's ``--json`` summary (None: none printed) and whether a signal
    stopped the batch (every task's state then written). ``answers``: task → the user's
    answer to the question it parked on; that task resumes its run with it (issue 51)."""
    from jlgcli.batch.options import task_options, write_task_options
    from jlgcli.process import install_termination_handlers
    from jlgcli.process.signals import Interrupted
    from jlgcli.selfcmd import self_argv

    runs_root, budget = settings.runs_root, settings.budget
    folder = batch_dir(runs_root, record.batchId)
    summaries: dict[str, dict[str, Any] | None] = {}
    events = open(args.events, "a", encoding="utf-8") if args.events else None  # noqa: SIM115
    emit = _writer(events)
    by_name = {task.name: task for task in record.tasks}
    slots: list[Slot] = []

    maker = WorktreeMaker(repo, record) if repo is not None else None
    waves = Waves(record, repo)

    def prepare(child: ChildRun) -> None:  # in the task's thread: its worktree, if missing
        if maker is not None and repo is not None:
            task = by_name[child.name]
            waves.start_point(task)  # a dependent task starts from its dependencies' result
            maker.make(task)
            waves.merge_rest(task, worktree_of(repo, task.name))

    def after(child: ChildRun) -> None:  # in the task's thread: what it ended with, its commit
        slot = next(slot for slot in slots if slot.child is child)
        task = by_name[child.name]
        if task.skipped:  # its dependencies' branches conflict (Waves.merge_rest)
            return
        _note_ending(task, slot, child.summary)
        if repo is not None:
            from jlgcli.batch.finish import commit_done, merge_one

            schedule.settled.wait(SETTLE_S)  # after the next tasks' start (Schedule.settled)
            commit_done(repo, record, task, summary=child.summary)
            waves.after_done(task, lambda done: merge_one(repo, record, done, settings.gates))

    for task in record.tasks:
        where = (
            worktree_of(repo, task.name) if repo is not None else Path(args.cwd or ".").resolve()
        )
        child = ChildRun(
            task.name,
            [],
            where,
            folder / f"{task.name}.events.jsonl",
            folder / f"{task.name}.out.json",
            folder / f"{task.name}.err.log",
            prepare=prepare,
            after=after,
            on_event=_tagged(emit, task.name),
            fork_server=forking.tasks,
        )
        slot = Slot(child, Row(task.name), cost_before=task.costUsd or 0.0)
        slot.ended = task.finished
        slot.row.state = "finished before" if task.finished else "queued"
        slots.append(slot)

    def on_start(slot: Slot, left: float | None) -> None:  # its options, resolved once (44)
        task = by_name[slot.child.name]
        start = {"resume": task.runId} if task.runId else {"prompt": task.task}
        if answers and task.name in answers and task.runId:
            start["answer"] = answers[task.name]
        options = task_options(
            settings, name=task.name, start=start, cwd=slot.child.cwd,
            shared=folder / "limits", left=left, versions=versions,
        )  # fmt: skip
        path = write_task_options(record.batchId, task.name, options)
        slot.child.argv = [*self_argv(), "loop", "--task-options", str(path)]
        batch_events.emit("task-started", task=task.name)

    def on_end(slot: Slot) -> None:  # in the main thread, once the task's thread is done
        task = by_name[slot.child.name]
        summaries[task.name] = slot.child.summary
        slot.row.state = task.skipped or (
            "done" if task.exitCode == 0 else (task.stopCause or f"exit {task.exitCode}")
        )
        if is_parked(task):
            slot.row.state = "parked (question)"
        save(runs_root, record)
        batch_events.emit(
            "task-ended", task=task.name, exitCode=task.exitCode, stopCause=task.stopCause,
            state=slot.row.state, runId=task.runId, iterations=task.iterations,
        )  # fmt: skip

    if repo is not None:  # a resume: a dependency done before but not yet merged
        from jlgcli.batch.finish import merge_one

        waves.catch_up(lambda done: merge_one(repo, record, done, settings.gates))

    def ready(slot: Slot) -> bool | str:  # in the main thread: dependency waves
        return waves.verdict(by_name[slot.child.name], (s.child.name for s in slots if s.ended))

    quiet = bool(args.json) or args.verbosity == 0
    board = Board([slot.row for slot in slots], quiet=quiet, on_update=batch_events.rows)
    schedule = Schedule(slots, jobs, budget, board, on_start, on_end, ready=ready)
    if maker is not None:  # the later tasks' worktrees are made while the first ones run
        maker.start_ahead(
            [task for task in record.tasks if not task.finished and not task.dependsOn],
            at_once=jobs,
            pause=lambda: schedule.settled.wait(SETTLE_S),
        )
    try:
        with install_termination_handlers():
            forking.take_spawns()
            try:
                schedule.run()
                for slot in slots:  # never started: the shared budget ran out first
                    if slot.budget_stopped and not slot.started:
                        by_name[slot.child.name].budgetStopped = True
            except Interrupted as exc:
                schedule.stop_all()
                record.exitCode = 128 + int(exc.signum)
                started = {slot.child.name for slot in slots if slot.started}
                _stopped_by(exc.signum, [t for t in record.tasks if t.name in started], summaries)
                save(runs_root, record)
                return summaries, True
    finally:
        if maker is not None:
            schedule.settled.set()  # a worktree waiting for the starts is made now, or never
            maker.finish()
        if events is not None:
            events.close()
    return summaries, False


def _note_ending(task: TaskRecord, slot: Slot, summary: dict[str, Any] | None) -> None:
    live = slot.child.live
    task.runId = live.run_id or task.runId
    if summary is not None:
        task.runId = str(summary.get("runId") or task.runId or "") or None
        task.exitCode = int(summary.get("exitCode", 1))
        task.stopCause = str(summary.get("stopCause") or "") or None
        task.iterations = int(summary.get("iterations") or 0)
        question = summary.get("question")  # parked: what its agent asks (issue 51)
        task.question = question if isinstance(question, str) else None
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


def _stopped_by(
    signum: int, tasks: list[TaskRecord], summaries: dict[str, dict[str, Any] | None]
) -> None:
    """The tasks the batch stopped because it got ``signum`` end with its code and name: a TERM
    to the batch is a TERM to its tasks (143, not 130). Each child got the TERM itself (its
    ladder starts at SIGTERM, ``process.run``); one that an earlier Ctrl-C had begun to stop
    still said 130."""
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


def _tagged(emit: Callable[[dict[str, Any]], None], name: str) -> Callable[[dict[str, Any]], None]:
    """A task's events, passed on with its ``task`` id."""
    return lambda event: emit({**event, "task": name})


def _writer(events: Any) -> Any:
    """Writes an event line to the batch's ``--events`` file; called by every task's thread."""
    import json

    lock = threading.Lock()

    def emit(event: dict[str, Any]) -> None:
        if events is not None:
            line = json.dumps(event, ensure_ascii=False) + "\n"
            with lock:
                events.write(line)
                events.flush()

    return emit
