"""The command line's parser: every command's sub-parser, built from ``commands/`` (issue 18).

For a command only that command's sub-parser is built, so start-up imports one command
module (the top-level ``--help``, a static text, is ``jlgcli.commands.TOP_LEVEL_HELP``).
``help`` is this parser's own command: ``jlgcli help loop`` prints what ``jlgcli loop
--help`` does, and ``jlgcli help`` alone is ``jlgcli --help`` (git, gh and uv answer it too).
Nothing in ``commands/`` imports this module: the doors above it (``jlgcli.cli``, tab
completion, the GitHub Action) read the parser; the commands only fill it.
"""

from __future__ import annotations

import os
import sys

from jlgcli._version import __version__
from jlgcli.commands import EPILOG, add_common_options, print_top_level_help

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence
    from typing import Any, NoReturn

    from _typeshed import SupportsWrite


# The commands --help lists, in this order; each is jlgcli/commands/<name>.py but ``help``,
# which this parser answers itself (it reads the parser back).
COMMANDS: tuple[str, ...] = (
    "demo",
    "run",
    "loop",
    "answer",
    "matrix",
    "backends",
    "doctor",
    "runs",
    "watch",
    "stop",
    "worktrees",
    "board",
    "ledger",
    "hook",
    "dev",
    "config",
    "completion",
    "help",
)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser: global options and the sub-parser of ``command`` (of every command if None)."""
    import argparse

    from jlgcli.errors import ExitCode, JlgError

    reached: list[argparse.ArgumentParser] = []  # parsers a parse went through, outermost first
    guesses: list[str] = []  # "did you mean" for a value outside an argument's choices

    class Parser(argparse.ArgumentParser):
        """Usage errors exit 64 (not argparse's 2, which means "no backend" here)."""

        def error(self, message: str) -> NoReturn:
            leaf = reached[-1] if reached else self
            hint = f"see: {leaf.prog} --help"
            guess = guesses[-1] if guesses else _guess_option(message, leaf)
            if guess:
                hint = f"did you mean {guess}? {hint}"
            raise JlgError(ExitCode.USAGE, message, hint=hint)

        def parse_known_args(  # type: ignore[override]
            self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
        ) -> tuple[argparse.Namespace, list[str]]:
            reached.append(self)
            # Leaf commands get the common options when they are reached, so
            # command modules never declare --json/-q/-v themselves.
            if self._subparsers is None and self is not parser:
                add_common_options(self)
            return super().parse_known_args(args, namespace)

        def _check_value(self, action: argparse.Action, value: object) -> None:
            choices = action.choices
            if choices is not None and value not in choices:
                guess = closest(str(value), [str(choice) for choice in choices])
                if guess:
                    guesses.append(repr(guess))
            super()._check_value(action, value)

        def _get_formatter(self) -> argparse.HelpFormatter:
            # argparse builds a formatter for every add_argument (a metavar check) and
            # its default width imports shutil (with bz2, lzma, fnmatch): ~3 ms a start.
            formatter = self.formatter_class(prog=self.prog, width=help_width())  # type: ignore[call-arg]
            set_color = getattr(formatter, "_set_color", None)  # Python 3.14+
            if set_color is not None:
                set_color(getattr(self, "color", False))
            return formatter

        def print_help(self, file: SupportsWrite[str] | None = None) -> None:
            from jlgcli.colour import style_help, wants_colour

            stream = sys.stdout if file is None else file
            stream.write(style_help(self.format_help(), wants_colour(stream)))

    parser = Parser(
        prog="jlgcli",
        description="Run AI coding-agent CLIs on a task until it is really done.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-V", "--version", action="version", version=f"jlgcli {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="<command>", parser_class=Parser)
    for name in COMMANDS if command is None else (command,):
        if name == "help":
            _register_help(subparsers)
        else:
            # importlib.import_module would load importlib and warnings (~1 ms) for this
            __import__(f"jlgcli.commands.{name}")
            sys.modules[f"jlgcli.commands.{name}"].register(subparsers)
    return parser


def help_width(environ: Mapping[str, str] | None = None) -> int:
    """argparse's help width, ``shutil.get_terminal_size().columns - 2``, without shutil.

    ``COLUMNS`` when it is a positive number, else the width of the terminal on
    stdout, else 80.
    """
    try:
        columns = int((os.environ if environ is None else environ)["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):  # no stdout, closed, not a terminal
            columns = 0
    return (columns or 80) - 2


def closest(word: str, candidates: Sequence[str]) -> str | None:
    """The candidate ``word`` was most likely meant to be, if one is close enough.

    Only called on a miss, so ``difflib`` stays off the start-up path.
    """
    import difflib

    matches = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
    return matches[0] if matches else None


def _guess_option(message: str, parser: argparse.ArgumentParser) -> str | None:
    """The option meant by the first unknown one in argparse's "unrecognized arguments" error."""
    prefix = "unrecognized arguments: "
    if not message.startswith(prefix):
        return None
    options = list(parser._option_string_actions)
    for word in message[len(prefix) :].split():
        if word.startswith("-") and word != "-":
            guess = closest(word.partition("=")[0], options)
            if guess:
                return guess
    return None


def command_of(arguments: Sequence[str]) -> str | None:
    """The command ``arguments`` run, or None when the full parser must decide."""
    from jlgcli.errors import ExitCode, JlgError

    if not arguments or arguments[0].startswith("-"):
        return None
    name = arguments[0]
    if name in COMMANDS:
        return name
    guess = closest(name, COMMANDS)
    hint = "see: jlgcli --help"
    raise JlgError(
        ExitCode.USAGE,
        f"unknown command {name!r}",
        hint=f"did you mean {guess!r}? {hint}" if guess else hint,
    )


def _register_help(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``help``: ``jlgcli help loop`` prints what ``jlgcli loop --help`` does (issue 38)."""
    parser = subparsers.add_parser(
        "help",
        help="show the help of a command (jlgcli help loop = jlgcli loop --help)",
        description="Show the help of a command or of one of its actions, e.g. "
        "'jlgcli help loop' or 'jlgcli help config set'.",
    )
    parser.add_argument("topic", nargs="*", metavar="COMMAND", help="a command and its actions")
    parser.set_defaults(handler="jlgcli.commands.parser:execute_help")


def execute_help(args: argparse.Namespace) -> int:
    """Print the help of ``args.topic`` (the top-level help when it is empty)."""
    from jlgcli.errors import ExitCode, JlgError

    topic: list[str] = list(args.topic)
    if not topic:
        return print_top_level_help()
    command_of(topic)  # an unknown command is a usage error with "did you mean"
    node = children_of(build_parser(topic[0]))[topic[0]]
    for depth, word in enumerate(topic[1:], start=1):
        children = children_of(node)
        if word not in children:
            known = ", ".join(children) or "none"
            raise JlgError(
                ExitCode.USAGE,
                f"'{' '.join(topic[:depth])}' has no action {word!r} (actions: {known})",
                hint=f"see: jlgcli help {' '.join(topic[:depth])}",
            )
        node = children[word]
    if node._subparsers is None:
        add_common_options(node)  # what parsing adds to a leaf before its --help
    node.print_help()
    return 0


def subparsers_of(
    node: argparse.ArgumentParser,
) -> argparse._SubParsersAction[argparse.ArgumentParser] | None:
    """The action holding ``node``'s sub-commands (``config`` → get, set…), if it has any."""
    import argparse

    for action in node._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def children_of(node: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """``node``'s sub-commands by name (none for a leaf command)."""
    action = subparsers_of(node)
    return dict(action.choices) if action is not None else {}
