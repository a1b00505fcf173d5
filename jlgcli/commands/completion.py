"""``jlgcli completion SHELL``: print a tab-completion script (issue 19 item 17)."""

from __future__ import annotations

import argparse
from typing import Any

from jlgcli.shellcomplete import INSTALL, SHELLS

EPILOG = "install (one command, then open a new shell):\n" + "".join(
    f"  {shell:11} {command}\n" for shell, command in INSTALL.items()
)


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``completion``."""
    parser = subparsers.add_parser(
        "completion",
        help="print a tab-completion script for bash, zsh, fish or PowerShell",
        description="Print the script that makes your shell complete jlgcli's commands,\n"
        "flags and their values. The script asks jlgcli at each TAB (backend ids, config\n"
        "keys and values, run ids…), so it never goes stale.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    parser.set_defaults(handler="jlgcli.commands.completion:execute")


def execute(args: argparse.Namespace) -> int:
    """Write the completion script of ``args.shell`` to stdout."""
    import sys

    from jlgcli.shellcomplete import script_for

    sys.stdout.write(script_for(args.shell))
    return 0
