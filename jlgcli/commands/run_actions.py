"""What ``run`` and ``loop`` do at the command line: options → ``jlgcli.api`` → print, publish."""

from __future__ import annotations

import argparse
import contextlib
import os

from jlgcli.errors import ExitCode, JlgError
from jlgcli.output import emit_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jlgcli.runner.spec import Command
    from jlgcli.runner.summary import RunSummary


TASK_OPTIONS_HINT = "--task-options is what a batch gives its tasks: run the batch again"


def execute_run(args: argparse.Namespace) -> int:
    """``jlgcli run``."""
    return _execute(args, "run")


def execute_loop(args: argparse.Namespace) -> int:
    """``jlgcli loop``."""
    return _execute(args, "loop")


def execute_task(path: str) -> int:
    """``jlgcli loop --task-options FILE``: one task of a batch, run with the options the batch
    resolved for it (issue 44): its events on stdout ahead of its ``--json`` summary."""
    from jlgcli.api import execute
    from jlgcli.runner.options_record import from_json

    try:
        options = from_json(_task_record(path))
    except ValueError as exc:
        raise JlgError(ExitCode.INVALID_JSON, f"the task's options {path} are damaged: {exc}",
                       hint=TASK_OPTIONS_HINT) from None  # fmt: skip
    with commands_stopped(data_on_stdout=True):
        summary = execute("loop", options, json_mode=True)
        return report(summary, json_mode=True, publish=False)  # the batch publishes, once


def _task_record(path: str) -> dict[str, object]:
    import json
    from pathlib import Path

    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise JlgError(ExitCode.NO_INPUT, f"cannot read the task's options {path}: {exc}",
                       hint=TASK_OPTIONS_HINT) from None  # fmt: skip
    if not isinstance(data, dict):
        raise JlgError(ExitCode.INVALID_JSON, f"the task's options {path} are not an object",
                       hint=TASK_OPTIONS_HINT)  # fmt: skip
    return data


def _execute(args: argparse.Namespace, command: Command) -> int:
    from jlgcli.process import warm_up

    warm_up()  # the fork server's interpreter starts while the run path is imported (issue 49)
    from jlgcli.api import execute
    from jlgcli.runner.options import RunOptions

    options = RunOptions.from_namespace(args)
    if options.events == "-" and args.json:
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


def report(
    summary: RunSummary, *, json_mode: bool, github: bool = False, publish: bool = True
) -> int:
    """What the command line does with a summary: publish it, print it; the exit code."""
    in_actions = github or os.environ.get("GITHUB_ACTIONS")
    if in_actions and publish:
        from jlgcli.integrations.github import publish as publish_summary

        publish_summary(summary, force=github)
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
