"""``jlgcli runs`` and ``jlgcli runs show <id>``: runs recorded with ``--artifacts`` (F-006)."""

from __future__ import annotations

import argparse
from pathlib import Path

from jlgcli.commands import add_dir_option
from jlgcli.commands.runs_table import format_duration
from jlgcli.input_limits import bounded_int

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jlgcli.moments import datetime
    from jlgcli.runner.listing import RunDetail

EPILOG = """examples:
  jlgcli runs                              the 20 most recent runs of this project
  jlgcli runs show latest                  the most recent run, with its iterations
  jlgcli runs log latest                   what its agent said, readable (--follow: live)
  jlgcli runs --limit 5 --json             the 5 most recent, as one JSON object
  jlgcli runs show 20261122T023015Z        one run (a unique id prefix is enough)
  jlgcli runs --dir build/jlgcli-runs      runs recorded with --artifacts-dir build/jlgcli-runs
  jlgcli runs show batch-20261126T210000Z-1a2b3c
                                           a batch: each task's outcome, run and branch
  jlgcli runs -q | head -1                 the newest run or batch id
"""

HANDLER = "jlgcli.commands.runs:execute"
NOT_RECORDED = (
    "every loop is recorded (state.json), and every one-shot run that keeps its transcript "
    "(not with --no-transcript) or runs with --artifacts"
)


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``runs`` and ``runs show``."""
    runs = subparsers.add_parser(
        "runs",
        help="list recent runs; show one, or what its agent said (runs log)",
        description="List the runs recorded in this project's .jlgcli/runs (found from any "
        "sub-directory), newest first: id, date, backends, status, iterations, duration, "
        "cost. Every loop is recorded (its state.json), and so is a one-shot run (its transcript "
        "and result.json; not with --no-transcript). "
        "A run still going is 'running'; a loop killed before it recorded its end "
        "(kill -9, the OOM killer) is 'killed', another run without an end 'incomplete'; "
        "a run directory with corrupt files is 'unreadable'. Batches (jlgcli loop A.md B.md) "
        "follow with their tasks; TASK names the batch task a run was.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_dir_option(runs, default=None)
    runs.add_argument("--limit", type=bounded_int(1, 100_000), default=20, metavar="N",
                      help="show at most N runs (default 20)")  # fmt: skip
    # A parser with sub-commands does not get the common options: add --json and -q here.
    runs.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    runs.add_argument("-q", "--quiet", dest="verbosity", action="store_const", const=0,
                      help="only the ids (runs and batches, newest first), one a line")  # fmt: skip
    runs.set_defaults(handler=HANDLER, runs_action="list")
    actions = runs.add_subparsers(title="actions", metavar="<action>")
    show = actions.add_parser(
        "show",
        help="one run: status, backends, cost, iterations, the resume command",
        description="Show one recorded run in a few lines: status, backends, cost, "
        "iterations, the error and its hint, its files, and how to resume it. "
        "--json prints the full record (meta.json, result.json, state.json).",
    )
    show.add_argument("run_id", metavar="ID",
                      help="a run id, a unique prefix of one, 'latest', or a batch id")  # fmt: skip
    show.add_argument("--json", action="store_true",
                      help="print the full record as one JSON object on stdout")  # fmt: skip
    add_dir_option(show, default=argparse.SUPPRESS)  # keep `runs --dir X show ID` working
    show.set_defaults(handler=HANDLER, runs_action="show")
    from jlgcli.commands import runs_log

    runs_log.add_log_action(actions, add_dir_option, HANDLER)


def execute(args: argparse.Namespace) -> int:
    """List runs, or show one (``args.runs_action``)."""
    root = _root(getattr(args, "runs_dir", None), Path.cwd())
    want_json = bool(getattr(args, "json", False))
    if getattr(args, "runs_action", "list") == "show":
        return _show(root, str(args.run_id), want_json)
    if args.runs_action == "log":
        from jlgcli.commands import runs_log

        return runs_log.execute(args)
    quiet = getattr(args, "verbosity", None) == 0
    return _list(root, int(getattr(args, "limit", 20)), want_json, quiet=quiet)


def runs_root(cwd: Path) -> Path:
    """The runs root of the project holding ``cwd`` (the ``artifactsDir`` setting)."""
    return _root(None, cwd)


def _root(flag: str | None, cwd: Path) -> Path:
    """``--dir`` (relative to the working directory), else the ``artifactsDir`` setting
    relative to the project root: where ``run --artifacts`` writes from any sub-directory."""
    from jlgcli.config.paths import configured_runs_root

    return configured_runs_root(cwd, flag)


def _list(root: Path, limit: int, want_json: bool, *, quiet: bool = False) -> int:
    from jlgcli.batch.listing import batch_lines, batches, tasks_of_runs
    from jlgcli.output import emit_json, err, print_table
    from jlgcli.runner.listing import list_runs

    runs, groups = list_runs(root, limit), batches(root, limit)  # batches: issues 37, 44
    task_of = tasks_of_runs(groups)
    if want_json:
        listed = [{**info.to_json(), "task": task_of.get(info.run_id)} for info in runs]
        emit_json({"root": str(root), "runs": listed, "batches": groups})
        return 0
    if quiet:  # -q (issue 38): the ids, runs' and batches', newest first
        print("\n".join(_newest_first(runs, groups)[:limit]))
        return 0
    if not runs and not groups:
        err(f"no runs recorded in {root}: {NOT_RECORDED}")
        return 0
    rows = [
        [
            info.run_id,
            _date(info.started_at),
            task_of.get(info.run_id, "-"),
            info.backend_words.replace(" ", ""),
            info.outcome,
            "-" if info.iterations is None else str(info.iterations),
            format_duration(info.duration_ms),
            _cost(info.cost_usd),
        ]
        for info in runs
    ]
    headers = ["ID", "DATE", "TASK", "BACKEND", "STATUS", "ITER", "DURATION", "COST"]
    if not any(info.run_id in task_of for info in runs):  # TASK only when a run was a task
        headers, rows = headers[:2] + headers[3:], [row[:2] + row[3:] for row in rows]
    safe = [[_one_line(cell, 40) for cell in row] for row in rows]  # records are input
    if rows:
        print_table(safe, headers)
    if groups:
        print("\n".join(["", "batches (jlgcli runs show BATCH_ID):", *batch_lines(groups)]))
    return 0


def _newest_first(runs: list[Any], groups: list[dict[str, Any]]) -> list[str]:
    """Run and batch ids, newest first; a batch just before its newest task's run (so that
    ``jlgcli runs -q | head -1`` is the batch when a batch was the last thing started)."""
    keyed = [((info.run_id, 0), info.run_id) for info in runs]
    for item in groups:
        started = [item["batchId"].removeprefix("batch-")]
        started += [task["runId"] for task in item.get("tasks", []) if task.get("runId")]
        keyed.append(((max(started), 1), item["batchId"]))
    return [name for _, name in sorted(keyed, reverse=True)]


def _show(root: Path, run_id: str, want_json: bool) -> int:
    import sys

    from jlgcli.output import emit_json
    from jlgcli.runner.listing import load_run

    if run_id.startswith("batch-"):  # a batch and its tasks (issue 44)
        from jlgcli.batch.listing import show, show_lines

        data = show(root, run_id)
        if want_json:
            emit_json({"root": str(root), **data})
        else:
            sys.stdout.write("\n".join(show_lines(data)) + "\n")
        return 0
    detail = load_run(root, run_id)
    if want_json:
        emit_json({"root": str(root), **detail.to_json()})
        return 0
    sys.stdout.write("\n".join(_short_view(detail)) + "\n")
    return 0


def _short_view(detail: RunDetail) -> list[str]:
    """A few lines a person reads: how it ended, on what, for how much, and what next."""
    from jlgcli.runner.listing import KILLED

    info = detail.info
    status = info.outcome if info.exit_code is None else f"{info.outcome} (exit {info.exit_code})"
    record = detail.result or {}
    error: dict[str, Any] = record["error"] if isinstance(record.get("error"), dict) else {}
    state = detail.state or {}
    task = state.get("task") if isinstance(state.get("task"), str) else None
    ended = info.stop_cause not in (None, "done")
    resumable = detail.state is not None and (ended or info.status == KILLED)
    parked = resumable and info.stop_cause == "question"
    lines = [
        ("run", info.run_id),
        ("status", status),
        ("problem", info.problem),
        ("backend", info.backend_words),
        ("started", _date(info.started_at)),
        ("duration", format_duration(info.duration_ms)),
        ("iterations", None if info.iterations is None else str(info.iterations)),
        ("cost", _cost(info.cost_usd)),
        ("task", _one_line(task) if task else None),
        ("resumed", _text(record.get("resumedFrom"))),
        ("error", _text(error.get("message"))),
        ("hint", _text(error.get("hint"))),
        ("directory", str(info.path)),
        ("transcript", _with_size(detail.transcript)),
        ("log", f"jlgcli runs log {info.run_id}" if detail.transcript else None),
        ("resume", f"jlgcli loop --resume {info.run_id}" if resumable and not parked else None),
        ("question", _text(state.get("question")) if parked else None),  # issue 51
        ("answer", f'jlgcli answer {info.run_id} "your answer"' if parked else None),
    ]
    out = [f"{label:<11} {_one_line(value, 300)}" for label, value in lines if value is not None]
    out.append(f"{'':<11} the full record: jlgcli runs show {info.run_id} --json")
    from jlgcli.commands.runs_table import iteration_table

    table = iteration_table(detail.rows(), _columns())
    return [*out, "", *table] if table else out


def _columns() -> int:
    """The terminal's width (80 when stdout is not a terminal)."""
    import shutil

    return max(shutil.get_terminal_size((80, 24)).columns, 40)


def _text(value: Any) -> str | None:
    return _one_line(value) if isinstance(value, str) and value else None


def _one_line(text: str, limit: int = 120) -> str:
    """One bounded line, without control characters (a record is input: it never drives
    the terminal)."""
    flat = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _cost(value: float | None) -> str:
    return "-" if value is None else f"${value:.4f}"


def _date(moment: datetime | None) -> str:
    return "-" if moment is None else moment.astimezone().strftime("%Y-%m-%d %H:%M")


def _with_size(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        size = path.stat().st_size
    except OSError:
        return str(path)
    return f"{path} ({format_size(size)})"


def format_size(size: int) -> str:
    """``512 B``, ``12.3 KiB``, ``4.0 MiB``."""
    if size < 1024:
        return f"{size} B"
    value = size / 1024
    for unit in ("KiB", "MiB"):
        if value < 1024:
            return f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"
