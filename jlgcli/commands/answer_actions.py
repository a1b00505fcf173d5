"""What ``jlgcli answer`` does at the command line: the answer → ``jlgcli.api`` → print.

A single loop's run goes through ``jlgcli.api`` like ``loop --resume``; a batch's
task resumes its batch (``batch.answer``), which prints its own table and
returns the batch's exit code, as ``loop --resume BATCH`` does.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from jlgcli.errors import usage_error


def execute_answer(args: argparse.Namespace) -> int:
    """``jlgcli answer RUN TEXT`` / ``--answer-file FILE``."""
    from jlgcli import records
    from jlgcli.api import execute
    from jlgcli.batch.lookup import locate
    from jlgcli.commands.run_actions import commands_stopped, report
    from jlgcli.runner.options import RunOptions, runs_root_of

    text = answer_text(args.text, args.answer_file)
    options = RunOptions(
        cwd=str(Path(args.cwd or ".").resolve()),
        max_iterations=args.max_iterations,
        timeout=args.timeout,
        max_cost=args.max_cost,
        verbosity=args.verbosity,
    )
    found = locate(args.run, runs_root_of(options))
    with commands_stopped(data_on_stdout=bool(args.json)):
        if found is not None:
            from jlgcli.batch.answer import answer_task
            from jlgcli.commands.batch_loop import finisher

            flags = argparse.Namespace(json=bool(args.json), github=bool(args.github))
            code, _summary = answer_task(found, text, options, json_mode=bool(args.json),
                                         finish=finisher(flags))  # fmt: skip
            return code
        resumed = records.replace(options, resume=args.run, answer=text)
        summary = execute("loop", resumed, json_mode=bool(args.json))
        return report(summary, json_mode=bool(args.json), github=bool(args.github))


def answer_text(text: str | None, path: str | None) -> str:
    """The answer, given as TEXT or in a file (``-``: stdin); 64 when none, both or empty."""
    if text is not None and path is not None:
        raise usage_error("give the answer as TEXT or with --answer-file, not both",
                          hint='jlgcli answer RUN "your answer"')  # fmt: skip
    if path is not None:
        from jlgcli.prompts import read_prompt

        text = read_prompt(path).text
    if text is None or not text.strip():
        what = "the answer is empty" if text is not None else "no answer given"
        raise usage_error(what, hint='jlgcli answer RUN "your answer" (or --answer-file FILE)')
    return text
