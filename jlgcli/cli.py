"""The ``jlgcli`` program: parse and dispatch only; the one error boundary is ``main``.

Start-up stays fast (issue 18): ``--version`` and the top-level ``--help``
answer before argparse or any command module is imported, and for a command
only that command's sub-parser is built (``jlgcli.commands.parser``). ``typing``
is never imported at run time here.
"""

import sys

from jlgcli._version import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import NoReturn


def _dispatch(args: "argparse.Namespace") -> int:
    module_name, _, function = str(args.handler).partition(":")
    __import__(module_name)  # importlib.import_module, without loading importlib and warnings
    handler = getattr(sys.modules[module_name], function)
    from jlgcli import startup_gc

    startup_gc.resume()  # the command's module is in: collect again, skipping start-up's objects
    return int(handler(args))


def console_script() -> "NoReturn":
    """The ``jlgcli`` console script, ``python -m jlgcli`` and the exe: ``console_main``,
    then the process ends without the interpreter's teardown (``startup_gc.exit_now``)."""
    from jlgcli.startup_gc import exit_now

    exit_now(console_main())


def console_main() -> int:
    """Entry point of the ``jlgcli`` console script, ``python -m jlgcli`` and the exe.

    ``main`` with the garbage collector kept off start-up's objects
    (``jlgcli.startup_gc``); in-process callers use ``main`` and keep theirs.
    """
    from jlgcli.startup_gc import run_console

    return run_console(main)


def main(argv: "Sequence[str] | None" = None) -> int:
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
        from jlgcli.commands.complete import complete_entry  # hidden: the scripts' call
        from jlgcli.output import configure_streams

        configure_streams()  # descriptions are UTF-8 text, whatever the console's code page
        sys.stdout.write(complete_entry(arguments[1:]))
        return 0
    if arguments in ([], ["-h"], ["--help"]):
        from jlgcli.commands import print_top_level_help

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
    from jlgcli.commands.parser import build_parser, command_of
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
