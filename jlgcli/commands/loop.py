"""``jlgcli loop PROMPT_FILE``: iterate until done, within guardrails (F-004, seed 001 §12.4)."""

from __future__ import annotations

import argparse
from typing import Any

from jlgcli.commands._run_options import add_run_options

EPILOG = """examples:
  jlgcli loop task.md                                  loop until the model ends with DONE
  jlgcli loop task.md --max-iterations 10 --timeout 30m
  jlgcli loop task.md --completion json --json         JSON status protocol, JSON summary
  jlgcli loop task.md --completion rebound             the model may run sandboxed scripts
  jlgcli loop examples/quickstart/task.md --backend replay --replay examples/quickstart/recording

exit codes: 0 done, 1 error, 2 backend missing, 4 max iterations, 5 no progress,
6 not logged in, 64 usage, 65 invalid JSON, 66 prompt not found, 73 artifacts not writable,
75 timeout, 130 interrupted.
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``loop``."""
    parser = subparsers.add_parser(
        "loop",
        help="loop a task until it is done (guarded)",
        description="Send the task to a backend again and again until the model signals "
        "completion, or a guardrail stops it (F-004).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_run_options(parser, loop=True)
    parser.set_defaults(handler="jlgcli.commands.run_actions:execute_loop")
