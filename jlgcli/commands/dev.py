"""``jlgcli dev run|resume``: the plan-driven development loop (seed 003, FR-1..FR-8).

Also installed as ``aidevloop`` / ``adl`` (``jlgcli.commands.dev_program:console_main``),
from the same argparse definition.
"""

from __future__ import annotations

import argparse

from jlgcli.commands.dev_args import DESCRIPTION, add_dev_commands, examples

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``dev`` and its ``run`` / ``resume`` sub-commands."""
    parser = subparsers.add_parser(
        "dev",
        help="plan-driven development loop (implement, validate, review, commit)",
        description=DESCRIPTION,
        epilog=examples("jlgcli dev"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from jlgcli._version import __version__

    parser.add_argument("-V", "--version", action="version", version=f"jlgcli dev {__version__}")
    parser.set_defaults(help_parser=parser)
    add_dev_commands(parser, "jlgcli dev", handler="jlgcli.commands.dev:execute")


def execute(args: argparse.Namespace) -> int:
    """Run ``jlgcli dev run|resume``; returns 0 or raises ``JlgError`` (exit 1/2/3)."""
    from jlgcli.commands.dev_program import run_from_args

    return run_from_args(args)
