"""``jlgcli loop PROMPT_FILE``: iterate until done, within guardrails (F-004, seed 001 §12.4)."""

from __future__ import annotations

import argparse

from jlgcli.commands._run_options import add_run_options
from jlgcli.errors import exit_codes_epilog
from jlgcli.input_limits import bounded_int

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_JOBS = 256  # tasks at once: each is an agent, a worktree and a jlgcli process

EPILOG = f"""examples:
  jlgcli loop task.md                                  loop until the model ends with DONE
  jlgcli loop task.md --max-iterations 10 --timeout 30m --max-cost 2
  jlgcli loop task.md --gate "pytest -q"               done only once the tests pass
  jlgcli loop task.md --backend claude --fallback codex   go on with codex if claude's quota is out
  jlgcli loop --resume latest --max-iterations 30      continue the last loop where it stopped
  jlgcli loop task.md --completion json --json         JSON status protocol, JSON summary
  jlgcli loop task.md --completion rebound             the model may run sandboxed scripts
  jlgcli loop task.md --events events.jsonl            a JSON-lines event stream for tools
  jlgcli loop task.md --notify desktop                 a desktop notification when it ends
  jlgcli loop a.md b.md c.md -j 2 --merge --gate "pytest -q"
                                   each task in its own worktree and branch, 2 at a time,
                                   merged back one by one only when the gates pass again
  jlgcli loop schema.md api.md -j 2 --merge
                                   api.md begins with ---, depends-on: [schema], ---:
                                   it starts after schema is done, from its merged result
  jlgcli loop --resume latest                          continue a batch's unfinished tasks
  jlgcli loop --resume BATCH_ID --retry-conflicts      run the conflicting tasks again on
                                                       the merged result, then merge them

{exit_codes_epilog()}
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``loop``."""
    parser = subparsers.add_parser(
        "loop",
        help="loop a task until it is done (guarded)",
        description="Send the task to a backend again and again until the model signals "
        "completion, or a guardrail stops it.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_run_options(parser, loop=True)
    parser.add_argument(
        "--jobs",
        "-j",
        type=bounded_int(1, MAX_JOBS),
        metavar="N",
        help="several TASKs: run N at a time, each in its own git worktree and branch "
        "jlgcli/<task> (default 2; outside git only -j 1, in place)",
    )
    parser.add_argument(
        "--merge",
        action="store_true",
        help="several TASKs: rebase each done branch onto yours, run the gates again, "
        "fast-forward (needs a clean tree); else the branches are left and listed",
    )
    parser.add_argument(
        "--retry-conflicts",
        action="store_true",
        help="with --resume BATCH: run each task whose merge stopped on a conflict again "
        "on the merged result (its old branch kept as jlgcli-backup/<task>), then merge it "
        "with the gates",
    )
    parser.add_argument("--task-options", metavar="FILE", help=argparse.SUPPRESS)  # a batch's
    parser.set_defaults(handler="jlgcli.commands.loop_entry:execute_loop")
