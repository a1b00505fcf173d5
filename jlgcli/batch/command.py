"""``jlgcli loop TASK... -j N [--merge]`` and ``--resume BATCH_ID|latest`` (issue 37).

One task with neither ``-j`` nor ``--merge`` is the ordinary loop. Several
tasks are a batch: each its own child loop in its own worktree and branch
(``jlgcli.batch.child`` says why a child process), N at a time, one shared
cost budget, results merged back only with evidence (``jlgcli.batch.finish``).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jlgcli.batch.board import Board, Row
from jlgcli.batch.child import TASK_ENV, ChildRun, Forking, task_server
from jlgcli.batch.options import BatchSettings, given_options, resolve, with_recorded
from jlgcli.batch.record import (
    BatchRecord,
    TaskRecord,
    batch_dir,
    load,
    record_started,
    save,
)
from jlgcli.batch.report import batch_code, render, to_json
from jlgcli.batch.schedule import SETTLE_S, Schedule, Slot
from jlgcli.batch.setup import (
    WorktreeMaker,
    check_tasks,
    make_worktrees,
    new_record,
    probe_for_tasks,
    repository,
    worktree_of,
    worktrees_folder,
)
from jlgcli.batch.waves import Waves, read_dependencies
from jlgcli.errors import ExitCode, JlgError


def execute_loop(args: argparse.Namespace) -> int:
    """``jlgcli loop``: the ordinary loop, or a batch of tasks."""
    from jlgcli.commands.run_actions import execute_loop as single

    tasks: list[str] = list(args.prompt or [])
    batch = len(tasks) > 1 or (tasks and (args.jobs is not None or args.merge))
    if getattr(args, "retry_conflicts", False) and args.resume is None:
        raise JlgError(
            ExitCode.USAGE,
            "--retry-conflicts runs a batch's conflicting tasks again: give the batch",
            hint="jlgcli loop --resume BATCH_ID --retry-conflicts (jlgcli runs lists batches)",
        )
    if args.resume is not None:
        if tasks:
            raise JlgError(
                ExitCode.USAGE,
                "--resume continues recorded tasks: give no TASK",
                hint="jlgcli loop --resume latest",
            )
        cwd = Path(args.cwd or ".").resolve()
        runs_root = resolve(given_options(args), cwd).runs_root
        if is_batch_ref(str(args.resume), runs_root):
            return run_batch(args, [], resume=str(args.resume))
        if getattr(args, "retry_conflicts", False):
            raise JlgError(
                ExitCode.USAGE,
                f"--retry-conflicts continues a batch, and {args.resume} is a single loop",
                hint="jlgcli loop --resume BATCH_ID --retry-conflicts (jlgcli runs lists batches)",
            )
    elif batch:
        return run_batch(args, tasks, resume=None)
    elif args.merge:
        raise JlgError(
            ExitCode.USAGE,
            "--merge merges the branches of a batch of tasks",
            hint="jlgcli loop a.md b.md -j 2 --merge",
        )
    args.prompt = tasks[0] if tasks else None
    return single(args)


def is_batch_ref(ref: str, runs_root: Path) -> bool:
    """Whether ``--resume ref`` means a batch: its id, or ``latest`` when the newest thing
    started here is a batch (its own tasks' runs are part of it) rather than a single loop;
    a finished batch resumed runs nothing again and shows its table."""
    from datetime import datetime, timezone

    from jlgcli.artifacts.ids import run_id_time
    from jlgcli.batch.record import latest
    from jlgcli.config.started import started_here

    if ref.startswith("batch-"):
        return True
    if ref != "latest":
        return False
    newest = latest(runs_root)
    if newest is None:
        return False
    record = load(runs_root, newest)
    own = {task.runId for task in record.tasks}
    try:  # when the batch last wrote its record: its end, or its Ctrl-C
        ended = datetime.strptime(record.updated, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return True
    for run_id in started_here(runs_root):
        if run_id not in own and not run_id.startswith("batch-"):
            single = run_id_time(run_id)
            return not (single is not None and single >= ended)
    return True


def run_batch(args: argparse.Namespace, tasks: list[str], *, resume: str | None) -> int:
    if os.environ.get(TASK_ENV):  # an agent of a batch's task must not fan out again
        raise JlgError(
            ExitCode.USAGE,
            f"a batch cannot be started from inside a batch's task ({os.environ[TASK_ENV]})",
            hint="run the batch from your own shell",
        )
    if args.events == "-":
        raise JlgError(
            ExitCode.USAGE,
            "a batch writes its events to a file, not stdout",
            hint="--events events.jsonl (each event carries its task id)",
        )
    cwd = Path(args.cwd or ".").resolve()
    settings = resolve(given_options(args), cwd)  # 64 for a bad flag, before anything starts
    with task_server() as forking:  # it warms up while the batch sets up
        return _set_up_and_run(args, tasks, resume, settings, forking)


def _set_up_and_run(
    args: argparse.Namespace,
    tasks: list[str],
    resume: str | None,
    settings: BatchSettings,
    forking: Forking,
) -> int:
    from jlgcli.batch.options import save_asked

    cwd = Path(args.cwd or ".").resolve()
    runs_root = settings.runs_root
    if resume is None:
        versions = probe_for_tasks(settings.backend)
        paths = check_tasks(tasks)
        repo = repository(cwd, jobs=args.jobs, merge=bool(args.merge))
        record = new_record(paths, repo, merge=bool(args.merge))
        read_dependencies(record, paths)  # 64 on an unknown id or a cycle: nothing made yet
        save_asked(record.batchId, settings)  # what a resume applies again (issue 44)
        if repo is not None:  # each task's worktree is made by its thread, side by side
            worktrees_folder(repo)
        save(runs_root, record)
        record_started(runs_root, record)
    else:
        record = load(runs_root, resume)
        settings = resolve(with_recorded(record.batchId, given_options(args)), cwd)
        versions = probe_for_tasks(settings.backend)
        retry = bool(getattr(args, "retry_conflicts", False))
        record.merge = record.merge or bool(args.merge) or retry
        repo = repository(cwd, jobs=args.jobs, merge=record.merge) if record.isolated else None
        if retry:
            from jlgcli.batch.retry import retry_conflicts

            if repo is None:
                raise JlgError(ExitCode.USAGE, f"{record.batchId} ran in place: it has no "
                               "conflict to retry")  # fmt: skip
            retry_conflicts(repo, record)
        if repo is not None:
            make_worktrees(repo, record)  # a worktree removed by hand comes back from its branch
            _commit_the_uncommitted(repo, record, batch_dir(runs_root, record.batchId))
    save(runs_root, record)
    jobs = args.jobs or (2 if repo is not None else 1)
    summaries, signalled = _run(
        args, record, repo, settings, jobs=jobs, forking=forking, versions=versions
    )
    if signalled:  # stopped by a signal: every task's state is written
        return _finish(args, record, summaries, code=record.exitCode)
    if repo is not None and record.merge:
        from jlgcli.batch.finish import merge_all

        merge_all(repo, record, settings.gates, save=lambda: save(runs_root, record))
    record.exitCode = batch_code(record)
    save(runs_root, record)
    return _finish(args, record, summaries, code=record.exitCode)


def _commit_the_uncommitted(repo: Path, record: BatchRecord, folder: Path) -> None:
    """A resume: a task that ended done but whose commit a kill cut short is committed now
    (it is not run again), with the summary its run printed (its ``--json`` output in the
    batch's folder: text for the message only); a rebase a kill cut short during ``--merge``
    is undone."""
    from jlgcli.batch.child import read_summary
    from jlgcli.batch.finish import abort_cut_rebase, commit_done

    for task in record.tasks:
        if task.exitCode == 0 and not task.merged:
            if task.committed:
                abort_cut_rebase(repo, task)
            else:
                summary = read_summary(folder / f"{task.name}.out.json")
                commit_done(repo, record, task, summary=summary)


def _run(
    args: argparse.Namespace,
    record: BatchRecord,
    repo: Path | None,
    settings: BatchSettings,
    *,
    jobs: int,
    forking: Forking,
    versions: tuple[tuple[str, str], ...],
) -> tuple[dict[str, dict[str, Any] | None], bool]:
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
        options = task_options(
            settings, name=task.name, start=start, cwd=slot.child.cwd,
            shared=folder / "limits", left=left, versions=versions,
        )  # fmt: skip
        path = write_task_options(record.batchId, task.name, options)
        slot.child.argv = [*self_argv(), "loop", "--task-options", str(path)]

    def on_end(slot: Slot) -> None:  # in the main thread, once the task's thread is done
        task = by_name[slot.child.name]
        summaries[task.name] = slot.child.summary
        slot.row.state = task.skipped or (
            "done" if task.exitCode == 0 else (task.stopCause or f"exit {task.exitCode}")
        )
        save(runs_root, record)

    if repo is not None:  # a resume: a dependency done before but not yet merged
        from jlgcli.batch.finish import merge_one

        waves.catch_up(lambda done: merge_one(repo, record, done, settings.gates))

    def ready(slot: Slot) -> bool | str:  # in the main thread: dependency waves
        return waves.verdict(by_name[slot.child.name], (s.child.name for s in slots if s.ended))

    quiet = bool(args.json) or args.verbosity == 0
    board = Board([slot.row for slot in slots], quiet=quiet)
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
    """The tasks the batch stopped because it got ``signum`` end with its code and name: each
    child is stopped with the kill ladder's SIGINT, but a TERM to the batch is a TERM to its
    tasks (143, not 130)."""
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


def _finish(
    args: argparse.Namespace,
    record: BatchRecord,
    summaries: dict[str, dict[str, Any] | None],
    *,
    code: int | None,
) -> int:
    if args.github or os.environ.get("GITHUB_ACTIONS"):  # one set of outputs for the batch
        from jlgcli.integrations.github_batch import publish_batch

        publish_batch(record)
    if args.json:
        from jlgcli.output import emit_json

        data = to_json(record, summaries)
        data["exitCode"] = code
        emit_json(data)
    else:
        sys.stderr.write(render(record))
    return int(code if code is not None else ExitCode.INTERNAL)
