"""``jlgcli stop [RUN|BATCH|latest]``: stop a running loop or batch from any terminal, as
the board's Stop button does (issue 52: work left alone stays steerable)."""

from __future__ import annotations

import argparse

from jlgcli.commands import add_target_arguments

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EPILOG = """examples:
  jlgcli stop                              the newest run or batch you started here
  jlgcli stop 20261122T023015Z             one run (a unique id prefix is enough)
  jlgcli stop batch-20261126T210000Z-1a2b3c
                                           a batch: its running tasks stop with it
  jlgcli stop latest --no-wait --json      ask, do not wait; a JSON line for scripts

The run ends as on Ctrl-C or a cancelled CI job: it stops its agent's process tree,
writes its ending (stop cause interrupted) and can be resumed with
jlgcli loop --resume ID. Only a run or batch you started is stopped: the process comes
from your own record of starts, never from the run's folder. On Windows the process is
ended at once (no signal reaches another console): its state is kept for --resume.

exit codes: 0 stopped (or asked to, with --no-wait), 64 no such run or batch, or it is
not running, or its process is not one you started, 75 still running after --wait.
"""

HANDLER = "jlgcli.commands.stop:execute"


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``stop``."""
    parser = subparsers.add_parser(
        "stop",
        help="stop a running loop or batch from any terminal (it can be resumed)",
        description="Stop a loop or batch of this project that runs in another terminal or\n"
        "in the background on this machine, and wait until it has written its ending.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_target_arguments(parser, "print one JSON line: id, kind, pid, ended")
    parser.add_argument("--wait", default="60s", metavar="DURATION",
                        help="how long to wait for its ending (default 60s)")  # fmt: skip
    parser.add_argument("--no-wait", action="store_true",
                        help="ask it to stop and return at once")  # fmt: skip
    parser.set_defaults(handler=HANDLER)


def execute(args: argparse.Namespace) -> int:
    import json
    import sys
    from pathlib import Path

    from jlgcli import api
    from jlgcli.durations import parse_duration_flag

    wait_s = None if args.no_wait else parse_duration_flag("--wait", args.wait) / 1000
    target = api.find_run_or_batch(args.run_id, Path.cwd(), runs_dir=args.runs_dir)
    pid = api.stop(target.id, runs_dir=target.runs_root, wait_s=wait_s)
    ended = wait_s is not None
    if args.json:
        line = {"id": target.id, "kind": target.kind, "pid": pid, "ended": ended}
        sys.stdout.write(json.dumps(line) + "\n")
        return 0
    if not ended:
        sys.stderr.write(f"{target.kind} {target.id} was asked to stop (process {pid})\n")
        return 0
    sys.stderr.write(
        f"{target.kind} {target.id} stopped; go on with: jlgcli loop --resume {target.id}\n"
    )
    return 0
