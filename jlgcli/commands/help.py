"""``jlgcli help [COMMAND…]``: the help of a command, as ``COMMAND… --help`` prints it (issue 38).

git, gh, uv and the original Node jlgcli all answer ``help loop``; here it is
the same text as ``jlgcli loop --help``, and ``jlgcli help`` alone is
``jlgcli --help``.
"""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``help``."""
    parser = subparsers.add_parser(
        "help",
        help="show the help of a command (jlgcli help loop = jlgcli loop --help)",
        description="Show the help of a command or of one of its actions, e.g. "
        "'jlgcli help loop' or 'jlgcli help config set'.",
    )
    parser.add_argument("topic", nargs="*", metavar="COMMAND", help="a command and its actions")
    parser.set_defaults(handler="jlgcli.commands.help:execute")


def execute(args: argparse.Namespace) -> int:
    """Print the help of ``args.topic`` (the top-level help when it is empty)."""
    from jlgcli import cli
    from jlgcli.errors import ExitCode, JlgError

    topic: list[str] = list(args.topic)
    if not topic:
        return cli.print_top_level_help()
    cli.command_of(topic)  # an unknown command is a usage error with "did you mean"
    node = _children(cli.build_parser(topic[0]))[topic[0]]
    for depth, word in enumerate(topic[1:], start=1):
        children = _children(node)
        if word not in children:
            known = ", ".join(children) or "none"
            raise JlgError(
                ExitCode.USAGE,
                f"'{' '.join(topic[:depth])}' has no action {word!r} (actions: {known})",
                hint=f"see: jlgcli help {' '.join(topic[:depth])}",
            )
        node = children[word]
    if node._subparsers is None:
        cli.add_common_options(node)  # what parsing adds to a leaf before its --help
    node.print_help()
    return 0


def _children(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}
