"""``jlgcli runs log RUN|latest``: what the agent said, as a person reads it (issue 51)."""

from __future__ import annotations

import argparse

from jlgcli.input_limits import bounded_int

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EPILOG = """examples:
  jlgcli runs log latest                   the last run's transcript, readable
  jlgcli runs log latest --iteration 2     only its second iteration
  jlgcli runs log latest --follow          a running loop, live, until it ends (Ctrl-C stops
                                           following, never the run)
  jlgcli runs log 20261122T023015Z --json  one JSON object a line: {"iteration": N, "text": …}
"""


def add_log_action(actions: argparse._SubParsersAction[Any], add_dir: Any, handler: str) -> None:
    """Add ``runs log`` to the actions of ``runs`` (``add_dir``: its --dir option)."""
    log = actions.add_parser(
        "log",
        help="what the agent said in a run, readable (text, one line per tool call)",
        description="Print a run's transcript as a person reads it: the assistant's text, "
        "each tool call on one line with how it went, a short usage line and a header per "
        "iteration; never raw JSON, never a terminal control sequence, secrets masked. "
        "Every run keeps its transcript (the newest 20 MB) unless started with "
        "--no-transcript.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    log.add_argument("run_id", metavar="ID", help="a run id, a unique prefix of one, or 'latest'")
    log.add_argument("--iteration", "-i", type=bounded_int(1, 1_000_000), metavar="N",
                     help="only iteration N")  # fmt: skip
    log.add_argument("--follow", "-f", action="store_true",
                     help="follow a running run until it ends (Ctrl-C: stop)")  # fmt: skip
    log.add_argument("--json", action="store_true",
                     help='one JSON object a line: {"iteration": N, "text": "…"}')  # fmt: skip
    add_dir(log, default=argparse.SUPPRESS)
    log.set_defaults(handler=handler, runs_action="log")


def execute(args: argparse.Namespace) -> int:
    """Print the lines (flushed one by one while following)."""
    import json
    import sys
    from pathlib import Path

    from jlgcli.runner.run_log import transcript_entries

    entries = transcript_entries(
        str(args.run_id), cwd=Path.cwd(), iteration=args.iteration, follow=bool(args.follow),
        runs_dir=getattr(args, "runs_dir", None),
    )  # fmt: skip
    out = sys.stdout
    try:
        for iteration, text in entries:
            if args.json:
                out.write(json.dumps({"iteration": iteration, "text": text}, ensure_ascii=False))
            else:
                out.write(text)
            out.write("\n")
            if args.follow:
                out.flush()
    except KeyboardInterrupt:
        if args.follow:
            sys.stderr.write(f"stopped following run {args.run_id}: the run goes on\n")
        raise
    out.flush()
    return 0
