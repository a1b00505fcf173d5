"""The command line's commands: one module per command, ``register(subparsers)`` (argparse
only) and ``execute(args) -> int``; beside them what those commands share (``run_actions``,
``_run_options``…), the parser that gathers them (``parser``), what a TAB offers
(``complete``, ``complete_words``) and the dev loop's own programs ``aidevloop``/``adl``
(``dev_program``, over the same parser as ``jlgcli dev``: ``dev_args``).

Below every module here: ``quiet`` and ``add_common_options``, which each command shares.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def quiet(args: argparse.Namespace) -> bool:
    """``-q`` / ``--verbosity 0`` was given: print only the summary and errors (issue 38)."""
    return getattr(args, "verbosity", None) == 0


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
