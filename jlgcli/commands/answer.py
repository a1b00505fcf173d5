"""``jlgcli answer RUN "text"``: answer a parked run's question and resume it (issue 51)."""

from __future__ import annotations

import argparse

from jlgcli.input_limits import bounded_int, path_arg

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EPILOG = """examples:
  jlgcli answer latest "Use PostgreSQL"          the newest run (or batch) parked on a question
  jlgcli answer 20261128T221500Z-1a2b3c "Yes, keep the old API"
  jlgcli answer latest --answer-file answer.md   a longer answer, from a file (- reads stdin)
  jlgcli answer batch-20261128T221500Z-1a2b3c "Skip the migration"
                                                 a batch's one parked task (several: by run id)
  jlgcli answer latest "Use UTC" --max-iterations 30 --json

A run parks (exit 7) when its agent ends a reply with a QUESTION: line, replies
{"status": "question", "question": "..."} in json mode, or asks through its CLI's own
tool. The answer resumes it as 'jlgcli loop --resume' does — the options you started it
with applied again, flags given here winning — with the answer in its next prompt, in
the agent's session where the backend keeps one. A batch's task resumes in its worktree,
and the batch commits and merges it as it would have. Exit codes: those of 'jlgcli loop'
(a batch's task: the batch's).
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``answer``."""
    parser = subparsers.add_parser(
        "answer",
        help="answer a parked run's question and resume it",
        description="Answer the question a loop (or a batch's task) parked on, and resume "
        "it with the answer.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("run", metavar="RUN",
                        help="the parked run's id, latest, or a batch id")  # fmt: skip
    parser.add_argument("text", metavar="TEXT", nargs="?",
                        help="the answer (or --answer-file)")  # fmt: skip
    parser.add_argument("--answer-file", metavar="FILE", type=path_arg,
                        help="read the answer from FILE (UTF-8); - reads stdin")  # fmt: skip
    parser.add_argument("--cwd", metavar="DIR", type=path_arg,
                        help="the project the run belongs to (default: here)")  # fmt: skip
    parser.add_argument("--max-iterations", "-n", type=bounded_int(1, 100_000), metavar="N",
                        help="iterations in all, the earlier ones included")  # fmt: skip
    parser.add_argument("--timeout", metavar="DURATION",
                        help="the whole run's time, earlier part included (e.g. 1h)")  # fmt: skip
    parser.add_argument("--max-cost", metavar="USD", help="the cost budget, spent so far included")
    parser.add_argument("--github", action="store_true",
                        help="write the GitHub step outputs and job summary")  # fmt: skip
    parser.set_defaults(handler="jlgcli.commands.answer_actions:execute_answer")
