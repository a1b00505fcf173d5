"""``jlgcli loop TASK... -j N [--merge]`` and ``--resume BATCH_ID|latest`` (issue 37).

One task with neither ``-j`` nor ``--merge`` is the ordinary loop. Several
tasks are a batch (``jlgcli.batch.run``): each its own child loop in its own
worktree and branch, N at a time, one shared cost budget, results merged back
only with evidence. This door checks the command line and shows the ending:
the table or ``--json``, the GitHub outputs, the one notification.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from jlgcli.batch.lookup import is_batch_ref
from jlgcli.batch.options import given_options, resolve
from jlgcli.batch.record import BatchRecord
from jlgcli.batch.report import render, to_json
from jlgcli.errors import ExitCode, JlgError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jlgcli.batch.run import Finish


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


def run_batch(
    args: argparse.Namespace,
    tasks: list[str],
    *,
    resume: str | None,
    answers: dict[str, str] | None = None,
) -> int:
    """The batch (``batch.run``), its ending shown at the command line (``finisher``)."""
    from jlgcli.batch import run

    return run.run_batch(args, tasks, resume=resume, answers=answers, finish=finisher(args))


def finisher(args: argparse.Namespace) -> Finish:
    """How the command line shows a batch's ending: ``_finish`` under these flags."""

    def finish(record: BatchRecord, summaries: dict[str, dict[str, Any] | None],
               code: int | None, notify: tuple[str, ...]) -> int:  # fmt: skip
        return _finish(args, record, summaries, code=code, notify=notify)

    return finish


def _finish(
    args: argparse.Namespace,
    record: BatchRecord,
    summaries: dict[str, dict[str, Any] | None],
    *,
    code: int | None,
    notify: tuple[str, ...] = (),
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
    if notify:  # once for the batch, at its end (issue 51)
        from jlgcli.batch.report import notify_end

        notify_end(record, notify, code=int(code if code is not None else ExitCode.INTERNAL))
    return int(code if code is not None else ExitCode.INTERNAL)
