"""Argument parsing and dispatch only; the one error boundary is ``main``.

``jlgcli --version`` answers before argparse is even imported, and command
modules are imported only when their command runs, so ``--help`` stays fast.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from jlgcli._version import __version__
from jlgcli.errors import ExitCode, JlgError

if TYPE_CHECKING:
    import argparse

# Commands listed by --help, in this order; each is jlgcli/commands/<name>.py.
COMMAND_MODULES: tuple[str, ...] = (
    "demo",
    "run",
    "loop",
    "backends",
    "doctor",
    "runs",
    "ledger",
    "hook",
    "dev",
    "config",
)

EPILOG = """examples:
  jlgcli config set backend codex      choose the default backend
  jlgcli config show --json            every setting with its source

exit codes: 0 done, 1 run error, 2 no backend, 4 max iterations, 5 no progress,
6 unauthenticated, 64 usage, 65 invalid JSON, 66 prompt not found, 70 internal error,
73 artifacts not writable, 75 timeout, 78 bad config, 130 interrupted.
"""


def build_parser() -> argparse.ArgumentParser:
    """The full parser: global options and every command's sub-parser."""
    import argparse
    import importlib

    class Parser(argparse.ArgumentParser):
        """Usage errors exit 64 (not argparse's 2, which means "no backend" here)."""

        def error(self, message: str) -> NoReturn:
            raise JlgError(ExitCode.USAGE, message, hint=f"see: {self.prog} --help")

        def parse_known_args(  # type: ignore[override]
            self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
        ) -> tuple[argparse.Namespace, list[str]]:
            # Leaf commands get the common options when they are reached, so
            # command modules never declare --json/-q/-v themselves.
            if self._subparsers is None and self is not parser:
                add_common_options(self)
            return super().parse_known_args(args, namespace)

    parser = Parser(
        prog="jlgcli",
        description="Run AI coding-agent CLIs on a task until it is really done.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-V", "--version", action="version", version=f"jlgcli {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="<command>", parser_class=Parser)
    for name in COMMAND_MODULES:
        importlib.import_module(f"jlgcli.commands.{name}").register(subparsers)
    return parser


def add_common_options(parser: argparse.ArgumentParser) -> None:
    """``--json`` and verbosity options, shared by every command (added once)."""
    if "--json" in parser._option_string_actions:
        return
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "-q",
        "--quiet",
        dest="verbosity",
        action="store_const",
        const=0,
        help="only the summary and errors (verbosity 0)",
    )
    group.add_argument(
        "-v",
        "--verbose",
        dest="verbosity",
        action="store_const",
        const=2,
        help="progress details (verbosity 2)",
    )
    group.add_argument(
        "--verbosity",
        dest="verbosity",
        type=int,
        choices=range(4),
        metavar="{0,1,2,3}",
        help="0 quiet, 1 normal, 2 verbose, 3 debug",
    )


def _dispatch(args: argparse.Namespace) -> int:
    import importlib

    module_name, _, function = str(args.handler).partition(":")
    handler: Any = getattr(importlib.import_module(module_name), function)
    return int(handler(args))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``jlgcli`` console script; returns the exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments in (["--version"], ["-V"]):
        sys.stdout.write(f"jlgcli {__version__}\n")
        return 0
    if arguments[:1] == ["__jlgcli_run_script__"]:
        from jlgcli.frozen import run_script_command  # hidden: rebound scripts, frozen exe

        return run_script_command(arguments[1:])
    if len(arguments) == 2 and arguments[0] == "__jlgcli_print_file__":
        from jlgcli.selfcmd import print_file_entry  # hidden: the replay backend's child

        return print_file_entry(arguments[1])
    from jlgcli.output import configure_streams

    configure_streams()
    from jlgcli.boundary import run_guarded

    return run_guarded(lambda: _parse_and_dispatch(arguments), want_json="--json" in arguments)


def _parse_and_dispatch(arguments: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(arguments)
    if getattr(args, "handler", None) is None:
        if getattr(args, "help_parser", None) is not None:
            args.help_parser.print_help(sys.stderr)
            return ExitCode.USAGE
        parser.print_help()
        return 0 if not arguments else ExitCode.USAGE
    return _dispatch(args)
