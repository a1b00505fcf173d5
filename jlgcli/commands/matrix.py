"""``jlgcli matrix TASK...``: the GitHub Actions ``strategy.matrix`` of tasks (issue 37)."""

from __future__ import annotations

import argparse

from jlgcli.input_limits import path_arg

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EPILOG = """examples:
  jlgcli matrix tasks/*.md                    {"include":[{"task":"tasks/a.md","id":"a",...}]}
  jlgcli matrix --gather --gate "pytest -q" tasks/*.md
                                              merge each fetched jlgcli/<id> branch with evidence

Tasks whose files begin with a depends-on front matter are listed in waves, each job
with its "wave" and "dependsOn" (a cycle or an unknown id is exit 64).

The workflow (a plan job, a fan-out job per task, a gather job): docs/loop.md.
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``matrix``."""
    parser = subparsers.add_parser(
        "matrix",
        help="print the GitHub Actions matrix of task files (fan-out, then gather)",
        description="Print the strategy.matrix JSON of task files (path, id, branch); "
        "with --gather, merge the tasks' branches back with evidence.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("tasks", nargs="+", metavar="TASK", type=path_arg,
                        help="task files in the repository")  # fmt: skip
    parser.add_argument(
        "--gather",
        action="store_true",
        help="merge each task's branch jlgcli/<id> into the current branch: rebase, "
        "gates again, fast-forward",
    )
    parser.add_argument(
        "--gate",
        action="append",
        default=[],
        metavar="CMD",
        help="a gate to run again (repeatable)",
    )
    parser.set_defaults(handler="jlgcli.commands.matrix:execute")


def execute(args: argparse.Namespace) -> int:
    """``jlgcli matrix``."""
    import os
    import sys
    from pathlib import Path

    from jlgcli.batch import gitops, matrix

    cwd = Path.cwd()
    root = gitops.toplevel(cwd) or cwd
    if not args.gather:
        text = matrix.matrix_json(matrix.plan(list(args.tasks), root))
        sys.stdout.write(text + "\n")
        if os.environ.get("GITHUB_OUTPUT"):
            from jlgcli.integrations.github import write_outputs

            write_outputs({"matrix": text})
        return 0
    from jlgcli.batch.report import batch_code, render, to_json
    from jlgcli.batch.setup import settings_for

    _, gates, _ = settings_for(args, cwd)
    record = matrix.gather(list(args.tasks), root, gates)
    if args.json:
        from jlgcli.output import emit_json

        emit_json(to_json(record, {}))
    else:
        sys.stderr.write(render(record))
    return batch_code(record)
