"""What ``run`` and ``loop`` do at the command line: options → ``jlgcli.api`` → print, publish."""

from __future__ import annotations

import argparse
import contextlib
import os
from typing import TYPE_CHECKING

from jlgcli.batch.entry import in_batch_task  # a batch's task: see there what differs
from jlgcli.errors import ExitCode, JlgError
from jlgcli.output import emit_json

if TYPE_CHECKING:
    from jlgcli.runner.spec import Command
    from jlgcli.runner.summary import RunSummary


def execute_run(args: argparse.Namespace) -> int:
    """``jlgcli run``."""
    return _execute(args, "run")


def execute_loop(args: argparse.Namespace) -> int:
    """``jlgcli loop``."""
    return _execute(args, "loop")


def _execute(args: argparse.Namespace, command: Command) -> int:
    from jlgcli.api import execute
    from jlgcli.runner.options import RunOptions

    options = RunOptions.from_namespace(args)
    if options.events == "-" and args.json and not in_batch_task():
        raise JlgError(ExitCode.USAGE, "--events - and --json both want stdout",
                       hint="write the events to a file: --events events.jsonl")  # fmt: skip
    github = bool(getattr(args, "github", False))
    with commands_stopped(data_on_stdout=bool(args.json) or options.events == "-"):
        summary = execute(command, options, json_mode=bool(args.json))
        return report(summary, json_mode=bool(args.json), github=github)


def commands_stopped(*, data_on_stdout: bool) -> contextlib.AbstractContextManager[object]:
    """Workflow commands stopped around what the model writes, in GitHub Actions (issue 33).

    For ``run``/``loop``/``hook``/a batch in a user's own workflow step: the model's
    text streams to the step log there too. With ``--json`` (or ``--events -``)
    stdout holds data, so the marks go to stderr, where the text streams (the
    runner parses both streams).
    """
    if os.environ.get("GITHUB_ACTIONS") != "true":  # the GitHub glue loads only where it acts
        return contextlib.nullcontext()
    import sys

    from jlgcli.integrations.github import workflow_commands_stopped

    return workflow_commands_stopped(sys.stderr if data_on_stdout else sys.stdout)


def report(summary: RunSummary, *, json_mode: bool, github: bool = False) -> int:
    """What the command line does with a summary: publish it, print it; the exit code."""
    in_actions = github or os.environ.get("GITHUB_ACTIONS")
    if in_actions and not in_batch_task():  # a batch's task: the batch publishes, once (issue 37)
        from jlgcli.integrations.github import publish

        publish(summary, force=github)
    if json_mode:
        emit_json(summary.to_json())
    else:
        import sys

        from jlgcli.artifacts.redact import Redactor
        from jlgcli.colour import Palette
        from jlgcli.runner.console import Console
        from jlgcli.runner.report import human_summary

        # composed here from the summary's texts: redacted here, once (issue 32)
        Console(0).summary(Redactor().redact(human_summary(summary, Palette(sys.stderr))))
    return summary.exitCode
