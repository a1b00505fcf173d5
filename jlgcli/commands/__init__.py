"""One module per command: ``register(subparsers)`` (argparse only) and ``execute(args) -> int``."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def quiet(args: argparse.Namespace) -> bool:
    """``-q`` / ``--verbosity 0`` was given: print only the summary and errors (issue 38)."""
    return getattr(args, "verbosity", None) == 0
