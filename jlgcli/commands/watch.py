"""``jlgcli watch [RUN|BATCH|latest]``: follow a run or a batch from any terminal (issue 51)."""

from __future__ import annotations

import argparse

from jlgcli.commands import add_target_arguments

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EPILOG = """examples:
  jlgcli watch                             the newest run or batch of this project
  jlgcli watch batch-20261126T210000Z-1a2b3c
                                           one batch: a line per task, then its table
  jlgcli watch 20261122T023015Z            one run (a unique id prefix is enough)
  jlgcli watch latest --json | jq .type    its events, one JSON line each, for scripts

It shows what the terminal that started the run shows: the agent's text, the status line
(or a heartbeat when not on a terminal), each iteration as it ends; for a batch, a line per
task. A run or batch that has ended is told from its start to its end. Ctrl-C only
detaches: the run goes on.

exit codes: 0 the run or batch ended (its own exit code is in what is shown and in the
run-ended or batch-ended event), 64 no such run or batch (or an ambiguous prefix),
130 detached with Ctrl-C (128 + the signal for another stop signal).
"""

HANDLER = "jlgcli.commands.watch:execute"


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``watch``."""
    parser = subparsers.add_parser(
        "watch",
        help="follow a running loop or batch from any terminal (Ctrl-C detaches)",
        description="Attach to a loop or batch of this project, running or ended, from any\n"
        "terminal: its story so far, then its live lines until it ends. It only reads what\n"
        "the run writes (its events.ndjson, state and batch record): it stops nothing.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_target_arguments(parser, "print the events on stdout, one JSON line each")
    parser.set_defaults(handler=HANDLER)


def execute(args: argparse.Namespace) -> int:
    from pathlib import Path

    from jlgcli.api import watch

    return watch(args.run_id, cwd=Path.cwd(), runs_dir=args.runs_dir, json_mode=bool(args.json))
