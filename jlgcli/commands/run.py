"""``jlgcli run PROMPT_FILE``: one backend call (seed 000 F-003, seed 001 §12.3)."""

from __future__ import annotations

import argparse
from typing import Any

from jlgcli.commands._run_options import add_run_options

EPILOG = """examples:
  jlgcli run prompt.md                       one call to the configured backend
  jlgcli run prompt.md --backend codex       override the backend (RG-002)
  cat prompt.md | jlgcli run - --json        prompt on stdin, one JSON object on stdout
  jlgcli run prompt.md -q --artifacts        quiet; keep transcript and result in .jlgcli/runs/

exit codes: 0 success, 1 backend error, 2 backend missing, 6 not logged in, 64 usage,
66 prompt file not found, 73 artifacts not writable, 75 timeout, 130 interrupted.
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``run``."""
    parser = subparsers.add_parser(
        "run",
        help="run a prompt once on a backend",
        description="Run a prompt file once on a backend, streaming its output (F-003).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_run_options(parser, loop=False)
    parser.set_defaults(handler="jlgcli.commands.run_actions:execute_run")
