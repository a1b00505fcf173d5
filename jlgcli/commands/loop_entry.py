"""The ``loop`` command's handler: the ordinary loop, or a batch of tasks (issue 37).

Kept apart from ``commands.batch_loop`` so that a single ``jlgcli loop task.md``
imports none of the batch machinery (~14 ms of every loop's start).
"""

from __future__ import annotations

import argparse


def execute_loop(args: argparse.Namespace) -> int:
    """``jlgcli loop``: several tasks, ``-j``, ``--merge`` or ``--resume`` go to the batch
    door (which also tells a batch's resume from a single loop's); one task runs as is; a
    batch's task runs with the options its batch resolved (``--task-options``)."""
    if getattr(args, "task_options", None):
        from jlgcli.commands.run_actions import execute_task

        return execute_task(args.task_options)
    tasks: list[str] = list(args.prompt or [])
    batch_flags = args.jobs is not None or args.merge or getattr(args, "retry_conflicts", False)
    if len(tasks) > 1 or batch_flags or args.resume is not None:
        from jlgcli.commands.batch_loop import execute_loop as batch_or_single
        from jlgcli.commands.run_actions import commands_stopped

        data_on_stdout = bool(args.json) or getattr(args, "events", None) == "-"
        with commands_stopped(data_on_stdout=data_on_stdout):  # issue 33: the tasks' text
            return batch_or_single(args)
    from jlgcli.commands.run_actions import execute_loop as single

    args.prompt = tasks[0] if tasks else None
    return single(args)
