"""One resolution of a batch's options, handed down to its tasks typed (issue 44).

The batch resolves its options once, by the rules of a single loop (flags >
environment > trusted project config > user config > defaults): the runs
root, the gates its merges run, the tasks' backend and the one cost budget
(``--max-cost``, ``JLGCLI_MAX_COST_USD`` or ``maxCostUsd``: one budget for all
the tasks). What the user asked is recorded in the user's own config folder
under the batch's id, and a resume of the batch applies it again.

Each task gets a ``RunOptions`` record (``runner.options_record``): the
batch's options with its task file (or its run to resume), its worktree, the
budget left, and the batch-only fields — its id in the batch, the folder of
the shared rate limits, the versions the batch probed. The record is written
in the user's config folder and the task's loop reads it (``loop
--task-options``): no flag list to keep in step, no environment to consult.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from jlgcli import records
from jlgcli.errors import ExitCode, JlgError
from jlgcli.records import record
from jlgcli.runner.options import RunOptions

# Flags of ``loop`` that are the batch's own (what it does with the tasks, where it
# reports); every other flag of ``loop`` is a field of the options each task gets.
BATCH_FLAGS = frozenset(
    {"prompt", "resume", "cwd", "events", "json", "github", "jobs", "merge", "task_options",
     "retry_conflicts"}
)  # fmt: skip


@record(slots=True)
class BatchSettings:
    """What a batch resolved once for all its tasks."""

    options: RunOptions  # the tasks' options, resolved (no task, no batch-only field yet)
    runs_root: Path
    gates: tuple[str, ...]  # what a merge runs again
    backend: str | None
    budget: float | None  # one for the whole batch
    notify: tuple[str, ...] = ()  # told once, at the batch's end (its tasks tell a question)


def given_options(args: argparse.Namespace) -> RunOptions:
    """The options of the command line that reach every task (``BATCH_FLAGS`` stay here);
    paths made absolute, since each task runs in its own worktree."""
    options = RunOptions.from_namespace(args)
    options = records.replace(options, prompt=None, resume=None, cwd=None, events=None)
    if options.replay:
        options = records.replace(options, replay=str(Path(options.replay).resolve()))
    if options.ledger_dir:
        options = records.replace(options, ledger_dir=str(Path(options.ledger_dir).resolve()))
    return options


def with_recorded(batch_id: str, given: RunOptions) -> RunOptions:
    """A resumed batch: what the user asked at its start under the flags given now; the
    settings applied are printed (the batch has no run of its own to say them)."""
    import sys

    from jlgcli.runner.options_record import describe
    from jlgcli.runner.resume_options import user_asked

    recorded = user_asked(batch_id, given)
    if recorded is None:
        return given
    options = recorded.under(given)
    if given.verbosity != 0:  # -q: only the summary and errors
        sys.stderr.write(f"jlgcli: resuming {batch_id} as you started it: {describe(options)}\n")
    return options


def resolve(options: RunOptions, cwd: Path) -> BatchSettings:
    """The batch's settings from ``options`` and the config, as a loop resolves them; its
    ``options`` hold every setting resolved (``options_record.asked``), so that each task and
    a resume get exactly these whatever the config says meanwhile."""
    from jlgcli.artifacts.project import under_project
    from jlgcli.config.resolve import parse_flag_value, require_trusted_gates, resolve_settings
    from jlgcli.runner.options import flag_settings, notify_targets
    from jlgcli.runner.options_record import asked

    flags = flag_settings(options)
    settings = resolve_settings(cwd=cwd, flags=flags)
    values = settings.values
    if settings.sources.get("gates") == "project":
        require_trusted_gates(settings)
    if "backend" in flags:  # a custom backend of the user's config is a backend too
        custom = tuple(settings.custom_backends)
        values["backend"] = parse_flag_value("backend", flags["backend"], custom)
    root = under_project(Path(values["artifactsDir"]), cwd).resolve()
    resolved = asked(options, values, options.session or "fresh")
    resolved = records.replace(resolved, verbosity=options.verbosity)
    return BatchSettings(
        resolved, root, tuple(values["gates"]), values.get("backend"),
        values["maxCostUsd"] or None, notify=notify_targets(settings)[0],
    )  # fmt: skip


def save_asked(batch_id: str, settings: BatchSettings) -> None:
    """Record what the user asked for this batch in their config folder (73: cannot)."""
    from jlgcli.config import asked
    from jlgcli.runner.options_record import to_json

    try:
        asked.save(batch_id, to_json(records.replace(settings.options, verbosity=None)))
    except OSError as exc:
        raise JlgError(
            ExitCode.CANT_CREATE,
            f"cannot record the batch's settings: {exc}",
            hint="check the user config folder: space, permissions",
        ) from None


def task_options(
    settings: BatchSettings, *, name: str, start: dict[str, Any], cwd: Path, shared: Path,
    left: float | None, versions: tuple[tuple[str, str], ...],
) -> RunOptions:  # fmt: skip
    """A task's options: the batch's, its task (``start``: ``prompt`` or ``resume``), where it
    runs, the budget left and what marks it as the batch's task."""
    return records.replace(
        settings.options,
        **start,
        cwd=str(cwd),
        events="-",  # on stdout, ahead of the summary: read as they come (batch.child)
        artifacts_dir=str(settings.runs_root),
        max_cost=None if left is None else max(left, 1e-6),
        batch_task=name,
        shared_limits=str(shared),
        known_versions=versions,
    )


def write_task_options(batch_id: str, name: str, options: RunOptions) -> Path:
    """The task's options, where its loop reads them (the user's config folder)."""
    from jlgcli.config import asked
    from jlgcli.runner.options_record import to_json

    try:
        return asked.save(f"{batch_id}.{name}", to_json(options))
    except OSError as exc:
        raise JlgError(
            ExitCode.CANT_CREATE,
            f"cannot write the options of task {name}: {exc}",
            hint="check the user config folder: space, permissions",
        ) from None
