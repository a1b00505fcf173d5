"""``jlgcli ledger show|list``: read the rebound ledger back (seed 002 REQ_AUTO_050)."""

from __future__ import annotations

import argparse
from pathlib import Path

from jlgcli.input_limits import path_arg

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EPILOG = """examples:
  jlgcli ledger list                        the rebound sessions of this project
  jlgcli ledger show latest                 the last session's chain, one step per block
  jlgcli ledger show 20260131T10 --full     a session by id prefix, nothing shortened
  jlgcli ledger show latest --json          the index and every step record
  jlgcli ledger list --dir build/ledger     a ledger somewhere else
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``ledger`` and its ``show`` / ``list`` actions."""
    ledger = subparsers.add_parser(
        "ledger",
        help="show the rebound ledger (audit trail of rebound runs)",
        description="Read the rebound ledger: every step of a --completion rebound run "
        "(prompt, reply, artifacts, next_action, script output, continuation).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ledger.set_defaults(help_parser=ledger)
    actions = ledger.add_subparsers(title="actions", metavar="<action>")
    show = actions.add_parser("show", help="one session's chain, one step per block",
                              description="Show one rebound session, step by step.")  # fmt: skip
    show.add_argument("session", help="session id, a unique prefix of one, or 'latest'")
    show.add_argument("--full", action="store_true", help="do not shorten prompts and outputs")
    _dir_option(show)
    show.set_defaults(handler="jlgcli.commands.ledger:show")
    list_ = actions.add_parser("list", help="every session in the ledger",
                               description="List the rebound sessions in the ledger.")  # fmt: skip
    _dir_option(list_)
    list_.set_defaults(handler="jlgcli.commands.ledger:list_")


def _dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dir",
        metavar="DIR",
        type=path_arg,
        help="ledger directory (default: ledger/ at the project root)",
    )


def _ledger_root(args: argparse.Namespace) -> Path:
    """``--dir``, else the ``ledgerDir`` setting (default ``ledger``) at the project root."""
    if getattr(args, "dir", None):
        return Path(args.dir)
    from jlgcli.artifacts.project import under_project
    from jlgcli.config.resolve import resolve_settings

    cwd = Path.cwd()
    configured = resolve_settings(cwd).values.get("ledgerDir")
    return under_project(Path(str(configured or "ledger")), cwd)


def show(args: argparse.Namespace) -> int:
    """``ledger show <session>``: the chain, readable (or the records with --json)."""
    from jlgcli.output import emit_json
    from jlgcli.rebound.ledger_view import load_session, render_session

    session = load_session(_ledger_root(args), args.session)
    if args.json:
        emit_json(session.to_json())
    else:
        print(render_session(session, full=args.full), end="")
    return 0


def list_(args: argparse.Namespace) -> int:
    """``ledger list``: one line per session, oldest first."""
    from jlgcli.commands import quiet
    from jlgcli.output import emit_json, err, print_table
    from jlgcli.rebound.ledger_view import list_sessions, render_list

    root = _ledger_root(args)
    sessions = list_sessions(root)
    if args.json:
        emit_json({"ledger": str(root), "sessions": sessions})
    elif not sessions:
        err(f"no rebound sessions in {root}")
    elif quiet(args):  # -q: the session ids, one a line (issue 38)
        for session in sessions:
            print(session["sessionId"])
    else:
        print_table(render_list(sessions), ["session", "status", "steps", "started", "summary"])
    return 0


def execute(args: argparse.Namespace) -> int:
    """Dispatch for callers that use the module-level ``execute`` convention."""
    handler = show if getattr(args, "session", None) is not None else list_
    return handler(args)
