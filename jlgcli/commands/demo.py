"""``jlgcli demo``: the offline quickstart — the real loop replaying a recorded run (issue 19).

The first thing a new user can run after ``pipx install``: no agent CLI, no
network, any directory. It is ``jlgcli loop <task> --backend replay --replay
<recording>`` on the recording shipped in ``jlgcli/demo/``, run by the same core
(``jlgcli.api``) as ``jlgcli loop`` (F-004 loop, the
replay backend of F-005), so everything but the model is real.
"""

from __future__ import annotations

import argparse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jlgcli.runner.options import RunOptions

EPILOG = """examples:
  jlgcli demo                        replay the recorded loop (three iterations, then DONE)
  jlgcli demo --json                 the same, with the run summary as one JSON object
  jlgcli demo --max-iterations 2     see a guardrail stop the loop (exit 4)
  jlgcli demo --artifacts            also record this replay under .jlgcli/runs/

This is a replay: no model is called and no file is changed. Each iteration runs a child
process that prints the next recorded message; the rest is the real loop (prompts, the
DONE line that ends it, guardrails, the summary, --json and --artifacts).
"""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``demo``."""
    parser = subparsers.add_parser(
        "demo",
        help="replay a recorded loop offline: no AI CLI needed (start here)",
        description="Run the real loop on a task with a recorded run as the backend: "
        "a replay, so no AI CLI is needed and nothing is changed. Works from any directory.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--max-iterations", "-n", metavar="N",
                        help="stop after N iterations without completion (exit 4)")  # fmt: skip
    parser.add_argument("--artifacts", action="store_true",
                        help="also write .jlgcli/runs/<id>/ for this replay")  # fmt: skip
    parser.set_defaults(handler="jlgcli.commands.demo:execute")


def demo_options(args: argparse.Namespace) -> RunOptions:
    """The loop options of the demo: the shipped task and recording, pinned."""
    from jlgcli.demo import RECORDING_DIR, TASK_FILE
    from jlgcli.runner.options import RunOptions

    recorded = len(list((RECORDING_DIR / "iterations").glob("*/final.md")))
    # Pinned so that a project's or user's config cannot change what the replay shows.
    return RunOptions(
        prompt=str(TASK_FILE),
        backend="replay",
        replay=str(RECORDING_DIR),
        completion="marker",
        session="fresh",
        max_iterations=args.max_iterations or recorded,
        artifacts=bool(args.artifacts),
        verbosity=args.verbosity,
        resumable=False,  # a replay leaves nothing behind in the user's directory
    )


def execute(args: argparse.Namespace) -> int:
    """Replay the shipped recording through the same core as ``jlgcli loop``."""
    from jlgcli.api import execute as run_core
    from jlgcli.commands.run_actions import report

    summary = run_core("loop", demo_options(args), json_mode=bool(args.json))
    return report(summary, json_mode=bool(args.json))
