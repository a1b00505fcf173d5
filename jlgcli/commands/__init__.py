"""The command line's commands: one module per command, ``register(subparsers)`` (argparse
only) and ``execute(args) -> int``; beside them what those commands share (``run_actions``,
``_run_options``…) and the dev loop's own programs ``aidevloop``/``adl`` (``dev_program``,
over the same parser as ``jlgcli dev``: ``dev_args``)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def quiet(args: argparse.Namespace) -> bool:
    """``-q`` / ``--verbosity 0`` was given: print only the summary and errors (issue 38)."""
    return getattr(args, "verbosity", None) == 0
