"""``jlgcli board``: serve the local dashboard of this project's runs and batches (issue 52)."""

from __future__ import annotations

import argparse

from jlgcli.commands import add_dir_option
from jlgcli.input_limits import bounded_int

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EPILOG = """examples:
  jlgcli board                      serve on a free port of 127.0.0.1; prints the address
  jlgcli board --open               and open it in the browser
  jlgcli board --port 8765          on a port of your choice
  jlgcli board --dir build/runs     runs recorded with --artifacts-dir build/runs

The address carries a token: only whoever has it can see the board or press its
buttons (stop with Ctrl-C). Nothing is fetched from the network: the page is the
board's own.
"""

HANDLER = "jlgcli.commands.board:execute"


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``board``."""
    parser = subparsers.add_parser(
        "board",
        help="a live dashboard of this project's runs and batches in the browser",
        description="Serve a dashboard of this project's runs and batches on 127.0.0.1: "
        "the runs and batches, each run's iterations, gates and transcript, each batch's "
        "tasks as they go, the cost per day and backend; buttons to prune worktrees. "
        "Live pages update by themselves. Ctrl-C stops the server.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--port", type=bounded_int(1, 65535), default=None, metavar="PORT",
                        help="the port on 127.0.0.1 (default: a free one)")  # fmt: skip
    parser.add_argument("--open", dest="open_browser", action="store_true",
                        help="open the board in the default browser")  # fmt: skip
    add_dir_option(parser)
    parser.set_defaults(handler=HANDLER)


def execute(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C (or a closed terminal); 0 then."""
    import sys
    from pathlib import Path

    from jlgcli.board.guard import url
    from jlgcli.board.server import Board
    from jlgcli.commands.runs import runs_root
    from jlgcli.errors import ExitCode, JlgError

    cwd = Path.cwd()
    root = cwd / args.runs_dir if args.runs_dir else runs_root(cwd)
    try:
        server = Board(root, cwd, args.port or 0)
    except OSError as exc:
        code = ExitCode.CANT_CREATE if args.port is None else ExitCode.USAGE
        message = f"cannot listen on 127.0.0.1:{args.port or 0}: {exc.strerror or exc}"
        hint = "choose another --port, or leave it out for a free one"
        raise JlgError(code, message, hint=hint) from None
    address = url(server.guard)
    if getattr(args, "json", False):
        import json

        # Not emit_json: its redaction would mask the token, jlgcli's own and meant to be seen.
        facts = {"url": address, "port": server.guard.port, "root": str(root)}
        sys.stdout.write(json.dumps(facts) + "\n")
    else:
        sys.stdout.write(f"jlgcli board: {address}\n(serving {root}; Ctrl-C stops it)\n")
    sys.stdout.flush()
    if args.open_browser:
        import webbrowser

        webbrowser.open(address)
    try:
        server.serve_forever(poll_interval=0.5)  # wakes to see Ctrl-C on Windows too
    except KeyboardInterrupt:
        sys.stderr.write("jlgcli board: stopped\n")
    finally:
        server.closing.set()
        server.server_close()
    return 0
