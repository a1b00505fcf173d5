"""The batch record (issue 37): which tasks, their branches, runs and endings.

Kept at ``<runs root>/.batches/<batch id>/batch.json`` (the dot keeps it out of
``jlgcli runs``' run folders), rewritten atomically after every change, so a
Ctrl-C or a crash leaves what ``jlgcli loop --resume BATCH_ID|latest`` needs.
Read back it is input: names are re-validated and every path jlgcli acts on
(worktrees, branches) is derived from them again, never taken as written.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from jlgcli.errors import ExitCode, JlgError
from jlgcli.moments import datetime, timezone
from jlgcli.records import asdict, field, fields, record

BATCHES = ".batches"
RECORD = "batch.json"
SCHEMA_VERSION = 1
_NAME_RE = re.compile(r"[a-z0-9][a-z0-9._-]{0,47}")
_BATCH_RE = re.compile(r"batch-\d{8}T\d{6}Z-[0-9a-f]{6}")
_COMMIT_RE = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_BACKUP_RE = re.compile(r"jlgcli-backup/[a-z0-9][a-z0-9._-]{0,55}")
# Endings a resume runs again: never started, stopped by a signal, or by the shared budget.
RESUMABLE = frozenset({None, 129, 130, 131, 143})


@record(frozen=False)
class TaskRecord:
    """One task of a batch; ``name`` is its id, its worktree folder and its branch's tail."""

    name: str
    task: str  # the task file, absolute
    branch: str = ""
    runId: str | None = None
    exitCode: int | None = None
    stopCause: str | None = None
    iterations: int = 0
    costUsd: float | None = None
    budgetStopped: bool = False
    committed: bool = False
    merged: bool = False
    mergeNote: str | None = None
    diffStat: str = ""
    dependsOn: list[str] = field(default_factory=list)  # names of this batch's tasks (waves)
    start: str | None = None  # the commit its branch started from, when not the batch's base
    skipped: str | None = None  # why it did not start (a dependency that did not end done)
    conflict: bool = False  # its merge stopped on a conflict (--retry-conflicts runs it again)
    backup: str | None = None  # the branch holding its work from before --retry-conflicts
    question: str | None = None  # parked (exit 7): what its agent asks (``jlgcli answer``)

    @property
    def finished(self) -> bool:
        return self.exitCode not in RESUMABLE and not self.budgetStopped


@record(frozen=False)
class BatchRecord:
    """A batch: where it started (base commit, branch) and its tasks."""

    batchId: str
    base: str | None  # the commit the worktrees start from (None: in place, no git)
    target: str | None  # the branch --merge integrates into
    merge: bool
    isolated: bool
    tasks: list[TaskRecord] = field(default_factory=list)
    started: str = ""
    updated: str = ""
    exitCode: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"schemaVersion": SCHEMA_VERSION, **asdict(self)}


def new_batch_id() -> str:
    from jlgcli.artifacts.ids import new_run_id

    return f"batch-{new_run_id()}"


def task_name(path: Path, taken: set[str]) -> str:
    """A short, safe, unique id from a task file's stem (``Fix Login.md`` → ``fix-login``)."""
    stem = re.sub(r"[^a-z0-9._-]+", "-", path.stem.lower()).strip("-._") or "task"
    stem = stem[:40]
    name, n = stem, 2
    while name in taken:
        name, n = f"{stem}-{n}", n + 1
    taken.add(name)
    return name


def batch_dir(runs_root: Path, batch_id: str) -> Path:
    return runs_root / BATCHES / batch_id


def now_text() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def save(runs_root: Path, record: BatchRecord) -> Path:
    """Write the record atomically (a full disk: 73, as for a run's state)."""
    from jlgcli.artifacts.atomic import atomic_write_text

    record.updated = now_text()
    folder = batch_dir(runs_root, record.batchId)
    try:
        if not runs_root.exists():  # a new runs root stays out of git, as a run's would
            runs_root.mkdir(parents=True)
            atomic_write_text(
                runs_root / ".gitignore", "# created by jlgcli: run artifacts stay local\n*\n"
            )
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(folder / RECORD, json.dumps(record.to_json(), indent=2) + "\n")
    except OSError as exc:
        raise JlgError(
            ExitCode.CANT_CREATE,
            f"cannot write the batch record in {folder}: {exc.strerror or exc}",
            hint="check the runs folder: space, permissions",
        ) from None
    return folder / RECORD


def load(runs_root: Path, ref: str) -> BatchRecord:
    """The batch ``ref`` (an id or ``latest``); a missing or damaged record is exit 64/65."""
    if ref == "latest":
        found = latest(runs_root)
        if found is None:
            raise JlgError(
                ExitCode.USAGE,
                f"no batch in {runs_root / BATCHES}",
                hint="start one: jlgcli loop A.md B.md -j 2",
            )
        ref = found
    if not _BATCH_RE.fullmatch(ref):
        raise JlgError(
            ExitCode.USAGE,
            f"{ref!r} is not a batch id",
            hint="batch ids look like batch-20261126T210000Z-1a2b3c (jlgcli runs)",
        )
    path = batch_dir(runs_root, ref) / RECORD
    try:
        data = json.loads(path.read_text("utf-8"))
        return _parse(data)
    except FileNotFoundError:
        raise JlgError(
            ExitCode.USAGE,
            f"no batch {ref} in {runs_root / BATCHES}",
            hint="list batches with: jlgcli runs",
        ) from None
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise JlgError(
            ExitCode.INVALID_JSON,
            f"the batch record {path} is damaged: {exc}",
            hint="its tasks' branches and runs are still there: see jlgcli runs",
        ) from None


def latest(runs_root: Path) -> str | None:
    """The newest batch this user started under ``runs_root`` (the user's own record of
    starts, as for ``--resume latest`` of a loop: never a record a repository brought)."""
    from jlgcli.config.started import started_here

    for name in started_here(runs_root):
        if _BATCH_RE.fullmatch(name) and (batch_dir(runs_root, name) / RECORD).is_file():
            return name
    return None


def record_started(runs_root: Path, record: BatchRecord) -> None:
    """Note in the user's record that they started this batch (what ``latest`` reads)."""
    from jlgcli.config.started import record_start
    from jlgcli.moments import datetime, timezone

    try:
        record_start(runs_root, record.batchId, datetime.now(timezone.utc))
    except OSError as exc:
        raise JlgError(
            ExitCode.CANT_CREATE,
            f"cannot record the batch's start: {exc}",
            hint="check the user config folder: space, permissions",
        ) from None


def list_batches(runs_root: Path) -> list[str]:
    """Batch ids, newest first."""
    try:
        names = [p.name for p in (runs_root / BATCHES).iterdir() if _BATCH_RE.fullmatch(p.name)]
    except OSError:
        return []
    return sorted(names, reverse=True)


def _parse(data: Any) -> BatchRecord:
    if not isinstance(data, dict) or data.get("schemaVersion") != SCHEMA_VERSION:
        raise ValueError("unknown schema version")
    batch_id = str(data["batchId"])
    if not _BATCH_RE.fullmatch(batch_id):
        raise ValueError("bad batch id")
    tasks = []
    for item in data["tasks"]:
        name = str(item["name"])
        if not _NAME_RE.fullmatch(name):
            raise ValueError(f"bad task name {name!r}")
        known = {f.name: item[f.name] for f in fields(TaskRecord) if f.name in item}
        task = TaskRecord(**known)
        task.branch = f"jlgcli/{name}" if task.branch else ""  # derived, never as written
        task.dependsOn = [str(dep) for dep in task.dependsOn or []]
        if task.start is not None and not _COMMIT_RE.fullmatch(str(task.start)):
            raise ValueError(f"bad start commit for {name!r}")
        task.skipped = None if task.skipped is None else str(task.skipped)
        task.conflict = bool(task.conflict)
        task.question = None if task.question is None else str(task.question)
        if task.backup is not None and not _BACKUP_RE.fullmatch(str(task.backup)):
            raise ValueError(f"bad backup branch for {name!r}")
        tasks.append(task)
    names = {task.name for task in tasks}
    for task in tasks:
        if not set(task.dependsOn) <= names:
            raise ValueError(f"{task.name!r} depends on a task not in the batch")
    return BatchRecord(
        batchId=batch_id,
        base=_opt_str(data.get("base")),
        target=_opt_str(data.get("target")),
        merge=bool(data.get("merge")),
        isolated=bool(data.get("isolated")),
        tasks=tasks,
        started=str(data.get("started", "")),
        updated=str(data.get("updated", "")),
        exitCode=data.get("exitCode"),
    )


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)
