"""The standalone ``aidevloop`` / ``adl`` entry point (FR-1), and the bridge used by ``jlgcli dev``.

Same parser as ``jlgcli dev`` (``dev_args``) and the one error boundary
(``jlgcli.boundary``) with this program's exit-code map: ``error: …`` and
``hint: …`` on stderr (one JSON object on stdout with ``--json``), exit codes
0/1/2/3 (FR-8.3): an interruption is 1 (aborted), a bug 3.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path, PurePosixPath, PureWindowsPath

from jlgcli._version import __version__
from jlgcli.commands import add_common_options
from jlgcli.commands.dev_args import DESCRIPTION, add_dev_commands, examples
from jlgcli.errors import DevExitCode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

PROGRAM_NAMES = ("aidevloop", "adl")


def program_name(argv0: str | None = None, *, is_windows: bool = os.name == "nt") -> str:
    """``adl`` when started as ``adl`` (or ``ADL.exe`` on Windows), else ``aidevloop``."""
    flavour = PureWindowsPath if is_windows else PurePosixPath
    stem = flavour(argv0 if argv0 is not None else sys.argv[0]).stem.lower()
    return stem if stem in PROGRAM_NAMES else PROGRAM_NAMES[0]


def build_parser(prog: str = "aidevloop") -> argparse.ArgumentParser:
    """The standalone parser: ``--version`` plus ``run`` and ``resume``."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description=DESCRIPTION,
        epilog=examples(prog),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "-V", "--version", action="version", version=f"{prog} (jlgcli) {__version__}"
    )
    add_dev_commands(parser, prog, common=add_common_options)
    return parser


def dev_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword options of ``jlgcli.api.dev`` from parsed ``init``/``run``/``resume`` args."""
    return {
        "task_id": getattr(args, "task_id", None),
        "from_step": getattr(args, "from_step", None),
        "directory": Path(args.directory) if args.directory else Path.cwd(),
        "config_path": getattr(args, "config_path", None),
        "llm": getattr(args, "llm", None),
        "verbosity": getattr(args, "verbosity", None),
        "assume_yes": bool(args.assume_yes),
        "no_input": bool(args.no_input),
        "json": bool(getattr(args, "json", False)),
    }


def parse_words(words: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """``run TASK-002 --yes`` → (command, options): the doors' ``args`` strings (Action, Invoke).

    Parsed by the same argparse tree as the command line; a bad word is a
    ``JlgError`` with exit 2 (configuration, FR-8.3), never a ``SystemExit``.
    """
    from jlgcli.errors import JlgError

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            raise JlgError(DevExitCode.CONFIGURATION, message, f"see: {self.prog} --help")

    parser = _Parser(prog="jlgcli dev", add_help=False)
    add_dev_commands(parser, "jlgcli dev", common=add_common_options)  # sub-parsers are _Parsers
    args = parser.parse_args(list(words))
    if args.dev_command is None:
        raise JlgError(DevExitCode.CONFIGURATION, "no dev command given", "use init, run or resume")
    return str(args.dev_command), dev_options(args)


def run_from_args(args: argparse.Namespace) -> int:
    """Run the parsed ``init``/``run``/``resume`` through ``jlgcli.api.dev``; 0 or ``JlgError``."""
    from jlgcli.api import dev
    from jlgcli.output import emit_json

    options = dev_options(args)
    report = dev(str(args.dev_command), **options)
    if options["json"]:
        emit_json(report.to_json())
    return int(DevExitCode.COMMITTED)


def run_door(argv: Sequence[str]) -> int:
    """The Action's and the Invoke task's dev loop: ``[dev] run TASK-002 --yes`` → exit code.

    Parsed by the dev parser, run through ``jlgcli.api.dev`` inside the one
    error boundary with seed 003's codes (0/1/2/3, FR-8.3); no other door's
    ``main`` is called.
    """
    from jlgcli.boundary import DEV_CODES, run_guarded

    words = list(argv[1:] if argv[:1] == ["dev"] else argv)

    def body() -> int:
        from jlgcli.api import dev
        from jlgcli.output import emit_json

        command, options = parse_words(words)
        report = dev(command, **options)
        if options["json"]:
            emit_json(report.to_json())
        return 0

    return run_guarded(body, want_json="--json" in words, codes=DEV_CODES)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``aidevloop`` and ``adl``; returns the exit code."""
    from jlgcli.output import configure_streams

    configure_streams()
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(program_name())
    args = parser.parse_args(arguments)
    if args.dev_command is None:
        parser.print_help(sys.stderr)
        return int(DevExitCode.CONFIGURATION)
    from jlgcli import startup_gc
    from jlgcli.boundary import DEV_CODES, run_guarded

    startup_gc.resume()  # parsed: collect again, skipping start-up's objects
    want_json = bool(getattr(args, "json", False))
    return run_guarded(lambda: run_from_args(args), want_json=want_json, codes=DEV_CODES)


def console_main() -> int:
    """Entry point of the ``aidevloop`` and ``adl`` console scripts.

    ``main`` with the garbage collector kept off start-up's objects
    (``jlgcli.startup_gc``); in-process callers use ``main`` and keep theirs.
    """
    from jlgcli.startup_gc import run_console

    return run_console(main)


if __name__ == "__main__":
    sys.exit(console_main())
