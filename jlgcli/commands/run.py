"""``jlgcli run PROMPT_FILE``: one backend call (seed 000 F-003, seed 001 §12.3)."""

from __future__ import annotations

import argparse

from jlgcli.commands._run_options import add_run_options
from jlgcli.errors import exit_codes_epilog

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EPILOG = f"""examples:
  jlgcli run prompt.md                       one call to the configured backend
  jlgcli run prompt.md --backend codex       override the backend
  jlgcli run prompt.md --fallback gemini     go on with gemini if the backend's quota is out
  cat prompt.md | jlgcli run - --json        prompt on stdin, one JSON object on stdout
  jlgcli run prompt.md -q --artifacts        quiet; keep transcript and result in .jlgcli/runs/

{exit_codes_epilog()}
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``run``."""
    parser = subparsers.add_parser(
        "run",
        help="run a prompt once on a backend",
        description="Run a prompt file once on a backend, streaming its output.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_run_options(parser, loop=False)
    parser.set_defaults(handler="jlgcli.commands.run_actions:execute_run")
