"""Options shared by ``run`` and ``loop`` (seed 001 §12.3–12.4), and turning them into a RunSpec."""

from __future__ import annotations

import argparse

from jlgcli.config.backend_ids import BUILTIN_BACKENDS, SPECIAL_BACKENDS
from jlgcli.input_limits import path_arg

PERMISSIONS = ("read-only", "edit", "full")


def add_run_options(parser: argparse.ArgumentParser, *, loop: bool) -> None:
    """Flags of ``run`` (and, with ``loop=True``, the loop's guardrails), in help sections."""
    from jlgcli.commands._option_groups import RUN_GROUPS, group_options

    _add_run_options(parser, loop=loop)
    group_options(parser, RUN_GROUPS)


def _add_run_options(parser: argparse.ArgumentParser, *, loop: bool) -> None:
    parser.add_argument(
        "prompt",
        metavar="TASK" if loop else "PROMPT_FILE",
        nargs="*" if loop else None,
        type=path_arg,
        help="file holding the task (UTF-8); - reads it from stdin; several: a batch (see -j)"
        if loop
        else "file holding the prompt (UTF-8); - reads it from stdin",
    )
    parser.add_argument(
        "--backend",
        "-b",
        metavar="ID",
        help=f"{', '.join((*BUILTIN_BACKENDS, *SPECIAL_BACKENDS))}, a custom command backend "
        "or auto (overrides the config)",
    )
    parser.add_argument(
        "--fallback",
        action="append",
        default=[],
        type=_comma_list,
        metavar="ID[,ID…]",
        help="backends to go on with when the current one is out of quota or rate-limited "
        "past the time left (repeatable)",
    )
    parser.add_argument(
        "--events",
        metavar="FILE",
        type=path_arg,
        help="write JSON-lines events (run, iterations, agent activity, waits) to FILE; "
        "- for stdout (not with --json)",
    )
    parser.add_argument(
        "--notify",
        action="append",
        metavar="TARGET",
        help="say when the run ends or waits long on a rate limit: desktop (the OS's "
        "notification) or webhook:URL (a JSON POST Slack, Discord and ntfy read; repeatable), "
        "e.g. --notify desktop --notify webhook:https://hooks.slack.com/services/…",
    )
    parser.add_argument("--model", "-m", help="model name passed to the backend")
    parser.add_argument(
        "--permissions",
        choices=PERMISSIONS,
        help="what the agent may do: read-only, edit files (default), or full (shell, network)",
    )
    parser.add_argument("--cwd", metavar="DIR", type=path_arg,
                        help="working directory of the agent (default: .)")  # fmt: skip
    parser.add_argument(
        "--backend-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="extra raw argument for the backend CLI (repeatable)",
    )
    parser.add_argument(
        "--timeout", metavar="DURATION", help="total time limit, e.g. 30s, 2m, 1h (exit 75)"
    )
    parser.add_argument(
        "--idle-timeout",
        metavar="DURATION",
        help="stop a backend call silent for this long (exit 75)",
    )
    parser.add_argument(
        "--artifacts",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="write .jlgcli/runs/<id>/ (transcript, meta, result)",
    )
    parser.add_argument("--artifacts-dir", metavar="DIR", type=path_arg,
                        help="where run artifacts go")  # fmt: skip
    parser.add_argument(
        "--transcript",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="keep what the agent said in the run folder, redacted (default: on; the newest "
        "20 MB); read it with: jlgcli runs log latest",
    )
    parser.add_argument(
        "--replay",
        metavar="RUN_DIR",
        type=path_arg,
        help="with --backend replay: the recorded run to replay",
    )
    parser.add_argument(
        "--github",
        action="store_true",
        help="write GitHub Actions outputs and a job summary (automatic when GITHUB_ACTIONS=true)",
    )
    if not loop:
        return
    parser.add_argument(
        "--max-iterations",
        "-n",
        metavar="N",
        help="stop after N iterations without completion (exit 4)",
    )
    parser.add_argument(
        "--iteration-timeout", metavar="DURATION", help="time limit of one backend call (exit 75)"
    )
    parser.add_argument(
        "--completion",
        choices=("marker", "json", "rebound"),
        help="how the model signals completion: a final DONE line, a JSON "
        'status object ({"status": "done"}), or rebound replies',
    )
    parser.add_argument(
        "--no-progress-limit", metavar="N", help="stop after N near-identical iterations (exit 5)"
    )
    parser.add_argument(
        "--session",
        choices=("fresh", "continue"),
        help="fresh (default): a new backend session each iteration; continue: resume "
        "the backend's own session (--resume keeps the recorded mode unless this is given)",
    )
    parser.add_argument(
        "--script-timeout",
        metavar="DURATION",
        help="rebound: time limit of one sandboxed script (default 60s)",
    )
    parser.add_argument(
        "--ledger-dir",
        metavar="DIR",
        type=path_arg,
        help="rebound: where the ledger goes (default: <cwd>/ledger)",
    )
    parser.add_argument(
        "--gate",
        action="append",
        default=[],
        metavar="CMD",
        help="a command that must exit 0 before a 'done' is accepted, e.g. --gate 'pytest -q' "
        "(repeatable; no shell)",
    )
    parser.add_argument(
        "--no-gates",
        action="store_true",
        default=None,
        help="run no gate, not even those of the config or of the run being resumed",
    )
    parser.add_argument(
        "--max-cost",
        metavar="USD",
        help="stop once the backend-reported cost reaches this many dollars (exit 4)",
    )
    parser.add_argument(
        "--resume",
        metavar="RUN_ID",
        help="continue a recorded loop run (an id from 'jlgcli runs', or latest: the newest "
        "you started here): same task, session and counts, and the gates, backend, "
        "fallbacks, permissions and budgets you started it with (flags given now win); a "
        "batch id (or latest after a batch) continues that batch's unfinished tasks",
    )


def _comma_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]
