"""``jlgcli loop TASK... -j N [--merge]`` and ``--resume BATCH_ID|latest`` (issue 37).

One task with neither ``-j`` nor ``--merge`` is the ordinary loop. Several
tasks are a batch: each its own child loop in its own worktree and branch
(``jlgcli.batch.child`` says why a child process), N at a time, one shared
cost budget (``jlgcli.batch.run_tasks``), results merged back only with evidence
(``jlgcli.batch.finish``). This module sets a batch up (or resumes it) and reports it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from jlgcli.batch.child import TASK_ENV, Forking, task_server
from jlgcli.batch.options import BatchSettings, given_options, resolve, with_recorded
from jlgcli.batch.record import BatchRecord, batch_dir, load, record_started, save
from jlgcli.batch.report import batch_code, render, to_json
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
    summaries, signalled = run_tasks(
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
