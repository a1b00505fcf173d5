"""``jlgcli worktrees`` and ``jlgcli worktrees prune``: what batches left in git (issue 44)."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EPILOG = """examples:
  jlgcli worktrees                         every task worktree and branch, with its state
  jlgcli worktrees --json                  the same as one JSON object
  jlgcli worktrees -q                      only their names (the branches), one a line
  jlgcli worktrees prune                   remove the merged and empty ones
  jlgcli worktrees prune --force jlgcli/gamma
                                           also remove gamma's unmerged work (printed first)

states: running (its task is going on), conflict (its merge stopped on a conflict: jlgcli
loop --resume BATCH --retry-conflicts), unmerged work (commits or changes your branch
lacks), merged, empty. prune never removes unmerged work unless named with --force, and
never a running task's.
"""

HANDLER = "jlgcli.commands.worktrees:execute"


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``worktrees`` and ``worktrees prune``."""
    parser = subparsers.add_parser(
        "worktrees",
        help="list the worktrees and branches batches made, and prune them",
        description="List every worktree (.jlgcli/worktrees) and branch (jlgcli/*, "
        "jlgcli-backup/*) that jlgcli's batches made in this repository, with its state.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _common(parser)
    parser.add_argument("-q", "--quiet", dest="verbosity", action="store_const", const=0,
                        help="only the names, one a line")  # fmt: skip
    parser.set_defaults(handler=HANDLER, worktrees_action="list")
    actions = parser.add_subparsers(title="actions", metavar="<action>")
    prune = actions.add_parser(
        "prune",
        help="remove the merged and empty worktrees and branches",
        description="Remove the merged and empty task worktrees and branches. Unmerged "
        "work is kept unless named with --force (what it loses is printed first); a "
        "running task's is always kept.",
        epilog="examples:\n"
        "  jlgcli worktrees prune                   the merged and empty ones\n"
        "  jlgcli worktrees prune --force gamma     also gamma's unmerged work "
        "(printed first)\n"
        "  jlgcli worktrees prune --json            what was removed, kept and lost\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _common(prune, default=argparse.SUPPRESS)
    prune.add_argument("--force", action="append", default=[], metavar="NAME",
                       help="also remove NAME (a branch such as jlgcli/gamma, or a task id) "
                       "with its unmerged work (repeatable)")  # fmt: skip
    prune.set_defaults(handler=HANDLER, worktrees_action="prune")


def _common(parser: argparse.ArgumentParser, default: Any = False) -> None:
    parser.add_argument("--json", action="store_true", default=default,
                        help="print one JSON object on stdout")  # fmt: skip


def execute(args: argparse.Namespace) -> int:
    """List, or prune (``args.worktrees_action``)."""
    import sys
    from pathlib import Path

    from jlgcli.batch import worktrees
    from jlgcli.commands.runs import runs_root
    from jlgcli.errors import ExitCode, JlgError
    from jlgcli.output import emit_json, print_table

    cwd = Path.cwd()
    repo = worktrees.main_tree(cwd)
    if repo is None:
        raise JlgError(ExitCode.USAGE, f"{cwd} is not in a git repository",
                       hint="run it in the repository where the batch ran")  # fmt: skip
    entries = worktrees.survey(repo, runs_root(repo))
    want_json = bool(getattr(args, "json", False))
    if getattr(args, "worktrees_action", "list") == "prune":
        forced = list(args.force)
        worktrees.check_forced(entries, forced)
        for entry in entries:  # what a --force loses, before it goes
            if any(entry.matches(name) for name in forced) and entry.state != "running":
                for line in worktrees.lost_work(repo, entry):
                    sys.stderr.write(f"jlgcli: {entry.name} loses {line}\n")
        pruned = worktrees.prune(repo, entries, forced)
        if want_json:
            emit_json(pruned.to_json())
        else:
            for name in pruned.removed:
                sys.stdout.write(f"removed {name}\n")
            for name, why in pruned.kept.items():
                sys.stdout.write(f"kept    {name}  ({why})\n")
        return 0
    if want_json:
        emit_json({"repository": str(repo), "worktrees": [e.to_json() for e in entries]})
    elif getattr(args, "verbosity", None) == 0:
        sys.stdout.write("".join(f"{entry.name}\n" for entry in entries))
    elif not entries:
        sys.stderr.write(f"no worktree or branch of jlgcli in {repo}\n")
    else:
        rows = [[e.name, e.state, _detail(e), str(e.worktree or "-"), e.batch or "-"]
                for e in entries]  # fmt: skip
        print_table(rows, ["NAME", "STATE", "WORK", "WORKTREE", "BATCH"])
    return 0


def _detail(entry: Any) -> str:
    parts = []
    if entry.ahead:
        parts.append(f"{entry.ahead} commit{'s' if entry.ahead != 1 else ''}")
    if entry.uncommitted:
        parts.append(f"{len(entry.uncommitted)} changed")
    return ", ".join(parts) or "-"
