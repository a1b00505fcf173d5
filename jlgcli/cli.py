"""Argument parsing and dispatch only; the one error boundary is ``main``.

Start-up stays fast (issue 18): ``--version`` and the top-level ``--help``
answer before argparse or any command module is imported (the help is a static
text a test keeps equal to the real parser's), and for a command only that
command's sub-parser is built. ``typing`` is never imported at run time here.
"""

from __future__ import annotations

import os
import sys

from jlgcli._version import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence
    from typing import NoReturn

    from _typeshed import SupportsWrite


# Commands listed by --help, in this order; each is jlgcli/commands/<name>.py.
COMMAND_MODULES: tuple[str, ...] = (
    "demo",
    "run",
    "loop",
    "answer",
    "matrix",
    "backends",
    "doctor",
    "runs",
    "watch",
    "worktrees",
    "board",
    "ledger",
    "hook",
    "dev",
    "config",
    "completion",
    "help",
)

EPILOG = """examples:
  jlgcli demo                          watch a recorded loop, offline
  jlgcli loop task.md                  work on task.md until it is done (guarded)
  jlgcli loop task.md -b codex -n 10   with codex, at most 10 iterations
  jlgcli run prompt.md --json          one call, its result as one JSON object
  jlgcli config set backend codex      choose the default backend
  jlgcli completion --help             how to install tab completion in your shell

exit codes: 0 done, 1 run error, 2 no backend, 4 budget spent, 5 no progress, 6 not
logged in, 7 parked, 64 usage, 65 invalid JSON, 66 prompt not found, 70 internal error,
73 artifacts not writable, 75 timeout, 77 permission denied, 78 bad config, 129 hang-up,
130 interrupted, 131 quit, 141 stdout closed, 143 terminated.
"""

# `jlgcli --help` without importing argparse or any command: the real parser's
# help at a wide terminal (tests/unit/test_cli.py keeps the two equal).
TOP_LEVEL_HELP = (
    """\
usage: jlgcli [-h] [-V] <command> ...

Run AI coding-agent CLIs on a task until it is really done.

options:
  -h, --help     show this help message and exit
  -V, --version  show program's version number and exit

commands:
  <command>
    demo         replay a recorded loop offline: no AI CLI needed (start here)
    run          run a prompt once on a backend
    loop         loop a task until it is done (guarded)
    answer       answer a parked run's question and resume it
    matrix       print the GitHub Actions matrix of task files (fan-out, then gather)
    backends     list the agent CLIs and whether they are ready
    doctor       diagnose the environment: config, backends, PATH, terminal
    runs         list recent runs; show one, or what its agent said (runs log)
    watch        follow a running loop or batch from any terminal (Ctrl-C detaches)
    worktrees    list the worktrees and branches batches made, and prune them
    board        a live dashboard of this project's runs and batches in the browser
    ledger       show the rebound ledger (audit trail of rebound runs)
    hook         pre-commit hook: one agent call over the staged change
    dev          plan-driven development loop (implement, validate, review, commit)
    config       read and write settings
    completion   print a tab-completion script for bash, zsh, fish or PowerShell
    help         show the help of a command (jlgcli help loop = jlgcli loop --help)

"""
    + EPILOG
)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser: global options and the sub-parser of ``command`` (of every command if None)."""
    import argparse
    import importlib

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
    for name in COMMAND_MODULES if command is None else (command,):
        importlib.import_module(f"jlgcli.commands.{name}").register(subparsers)
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
    if name in COMMAND_MODULES:
        return name
    guess = closest(name, COMMAND_MODULES)
    hint = "see: jlgcli --help"
    raise JlgError(
        ExitCode.USAGE,
        f"unknown command {name!r}",
        hint=f"did you mean {guess!r}? {hint}" if guess else hint,
    )


def print_top_level_help() -> int:
    from jlgcli.colour import style_help, wants_colour

    sys.stdout.write(style_help(TOP_LEVEL_HELP, wants_colour(sys.stdout)))
    return 0


def add_common_options(parser: argparse.ArgumentParser) -> None:
    """``--json`` and verbosity options, shared by every command (added once)."""
    if "--json" in parser._option_string_actions:
        return
    # In the "output" section where a command's help has one (run, loop).
    from jlgcli.input_limits import bounded_int

    section = next((g for g in parser._action_groups if g.title == "output"), parser)
    section.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    group = section.add_mutually_exclusive_group()
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
        type=bounded_int(0, 3),
        choices=range(4),  # what TAB offers; the type says the range first
        metavar="{0,1,2,3}",
        help="0 quiet, 1 normal, 2 verbose, 3 debug",
    )


def _dispatch(args: argparse.Namespace) -> int:
    import importlib

    module_name, _, function = str(args.handler).partition(":")
    handler = getattr(importlib.import_module(module_name), function)
    from jlgcli import startup_gc

    startup_gc.resume()  # the command's module is in: collect again, skipping start-up's objects
    return int(handler(args))


def console_main() -> int:
    """Entry point of the ``jlgcli`` console script, ``python -m jlgcli`` and the exe.

    ``main`` with the garbage collector kept off start-up's objects
    (``jlgcli.startup_gc``); in-process callers use ``main`` and keep theirs.
    """
    from jlgcli.startup_gc import run_console

    return run_console(main)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``jlgcli`` console script; returns the exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments in (["--version"], ["-V"]):
        sys.stdout.write(f"jlgcli {__version__}\n")
        return 0
    if arguments[:1] == ["__jlgcli_run_script__"]:
        from jlgcli import startup_gc
        from jlgcli.rebound.execute import run_script_command  # hidden: scripts, frozen exe

        startup_gc.resume()  # a model's script may run long: it gets a working collector
        return run_script_command(arguments[1:])
    if arguments[:1] == ["__jlgcli_task_server__"] and sys.platform.startswith("linux"):
        from jlgcli.batch.task_server import serve  # hidden: forks a batch's tasks (issue 37)

        return serve(arguments[1:], main)
    if len(arguments) == 2 and arguments[0] == "__jlgcli_print_file__":
        from jlgcli.selfcmd import print_file_entry  # hidden: the replay backend's child

        return print_file_entry(arguments[1])
    if arguments[:1] == ["__complete"]:
        from jlgcli.output import configure_streams
        from jlgcli.shellcomplete import complete_entry  # hidden: the completion scripts' call

        configure_streams()  # descriptions are UTF-8 text, whatever the console's code page
        sys.stdout.write(complete_entry(arguments[1:]))
        return 0
    if arguments in ([], ["-h"], ["--help"]):
        return print_top_level_help()
    from jlgcli.output import configure_streams

    configure_streams()
    from jlgcli.boundary import DEV_CODES, JLGCLI_CODES, run_guarded

    # `jlgcli dev` keeps seed 003's exit codes 0/1/2/3 (FR-8.3), whatever fails in it.
    codes = DEV_CODES if arguments[0] == "dev" else JLGCLI_CODES
    return run_guarded(
        lambda: _parse_and_dispatch(arguments), want_json="--json" in arguments, codes=codes
    )


def _parse_and_dispatch(arguments: list[str]) -> int:
    from jlgcli.errors import ExitCode

    parser = build_parser(command_of(arguments))
    args = parser.parse_args(arguments)
    if getattr(args, "handler", None) is None:
        if getattr(args, "help_parser", None) is not None:
            args.help_parser.print_help(sys.stderr)
            return ExitCode.USAGE
        parser.print_help()
        return 0 if not arguments else ExitCode.USAGE
    return _dispatch(args)
