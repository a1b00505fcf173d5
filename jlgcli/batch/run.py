"""A batch's run (issue 37): set up or resume, run the tasks N at a time, merge, record.

``run_batch`` is what ``jlgcli loop A.md B.md -j N`` (``commands.batch_loop``, the door)
and ``jlgcli answer`` (``batch.answer``) run: each task its own child loop in its
own worktree and branch (``batch.child`` says why a child process), one shared
cost budget, results merged back only with evidence (``batch.finish``). How the
ending is shown — the table, ``--json``, the GitHub outputs — is the caller's
``finish``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from jlgcli.batch.child import TASK_ENV, Forking, task_server
from jlgcli.batch.events import BatchEvents
from jlgcli.batch.lookup import reopen_answered
from jlgcli.batch.options import BatchSettings, given_options, resolve, with_recorded
from jlgcli.batch.record import (
    BatchRecord,
    batch_dir,
    load,
    record_started,
    save,
)
from jlgcli.batch.report import batch_code
from jlgcli.batch.run_tasks import run_tasks
from jlgcli.batch.setup import (
    check_tasks,
    make_worktrees,
    new_record,
    probe_for_tasks,
    repository,
    worktrees_folder,
)
from jlgcli.batch.waves import read_dependencies
from jlgcli.errors import ExitCode, JlgError

# (the record, each task's summary, the batch's code, the notify targets) → the exit code
Finish = Callable[[BatchRecord, "dict[str, dict[str, Any] | None]", "int | None",
                   "tuple[str, ...]"], int]  # fmt: skip


def run_batch(
    args: argparse.Namespace,
    tasks: list[str],
    *,
    resume: str | None,
    finish: Finish,
    answers: dict[str, str] | None = None,
) -> int:
    """A batch, new (``tasks``) or resumed; ``answers``: task → the user's answer to the
    question it parked on (``jlgcli answer``): those tasks run again, with it (issue 51).
    ``finish`` shows the ending (the door's: table, JSON, GitHub) and returns the code."""
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
        return _set_up_and_run(args, tasks, resume, settings, forking, answers or {}, finish)


def _set_up_and_run(
    args: argparse.Namespace,
    tasks: list[str],
    resume: str | None,
    settings: BatchSettings,
    forking: Forking,
    answers: dict[str, str],
    finish: Finish,
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
        reopen_answered(record, answers)  # a parked task runs again with its answer
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
    with _batch_events(runs_root, record, jobs) as events:
        summaries, signalled = run_tasks(
            args, record, repo, settings, jobs=jobs, forking=forking, versions=versions,
            batch_events=events, answers=answers,
        )  # fmt: skip
        if not signalled:  # else stopped by a signal: every task's state is written
            if repo is not None and record.merge:
                from jlgcli.batch.finish import merge_all

                merge_all(repo, record, settings.gates, save=lambda: save(runs_root, record))
            record.exitCode = batch_code(record)
            save(runs_root, record)
        events.emit("batch-ended", exitCode=record.exitCode)
    return finish(record, summaries, record.exitCode, settings.notify)


@contextlib.contextmanager
def _batch_events(runs_root: Path, record: BatchRecord, jobs: int) -> Iterator[BatchEvents]:
    """The batch's ``events.ndjson``, and its folder's lock held while it runs: what
    ``jlgcli watch`` follows, and how it tells a batch still going from one that died."""
    from jlgcli.artifacts.layout import EVENTS_FILE
    from jlgcli.config.started import RunLock

    folder = batch_dir(runs_root, record.batchId)
    lock = RunLock(folder)
    with contextlib.suppress(OSError):
        lock.acquire()
    events = BatchEvents(folder / EVENTS_FILE, record.batchId, warn=_warn)
    events.emit("batch-started", tasks=[task.name for task in record.tasks], jobs=jobs,
                merge=record.merge)  # fmt: skip
    try:
        yield events
    finally:
        events.close()
        lock.release()


def _warn(message: str) -> None:
    sys.stderr.write(f"jlgcli: warning: {message}\n")
    sys.stderr.flush()


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
