"""``jlgcli loop --resume BATCH --retry-conflicts`` (issue 44): a conflict you can act on.

A task whose merge stopped on a conflict runs again, from the start, on the
merged result: its worktree (clean after the aborted rebase; one with
uncommitted changes stops the retry, nothing is removed) goes, its branch is
renamed ``jlgcli-backup/<id>`` (its earlier work kept), and a new branch starts
at the tip of the user's branch. The batch then runs it like any unfinished
task and merges it with the gates (``--merge`` is implied).
"""

from __future__ import annotations

import sys
from pathlib import Path

from jlgcli.batch import gitops
from jlgcli.batch.record import BatchRecord, TaskRecord
from jlgcli.batch.setup import worktree_of
from jlgcli.errors import ExitCode, JlgError

BACKUP = "jlgcli-backup/"


def conflicting(record: BatchRecord) -> list[TaskRecord]:
    return [task for task in record.tasks if task.conflict and not task.merged]


def retry_conflicts(repo: Path, record: BatchRecord) -> list[TaskRecord]:
    """Set every conflicting task to run again from the user's branch (see the module)."""
    tasks = conflicting(record)
    if not tasks:
        sys.stderr.write(f"jlgcli: no task of {record.batchId} stopped on a conflict\n")
        return []
    for task in tasks:  # checked for all before any is touched
        worktree = worktree_of(repo, task.name)
        changed = gitops.dirty(worktree) if worktree.is_dir() else []
        if changed:
            raise JlgError(
                ExitCode.USAGE,
                f"{task.name}'s worktree {worktree} has uncommitted changes "
                f"({', '.join(changed[:3])}): retrying would lose them",
                hint=f"commit or remove them there first (git -C {worktree} status)",
            )
    tip = gitops.head(repo)
    taken = gitops.branches(repo, BACKUP)
    for task in tasks:
        worktree = worktree_of(repo, task.name)
        if worktree.exists():
            gitops.git(repo, "worktree", "remove", str(worktree))
        backup, n = f"{BACKUP}{task.name}", 2
        while backup in taken:
            backup, n = f"{BACKUP}{task.name}-{n}", n + 1
        taken.add(backup)
        if gitops.branch_exists(repo, task.branch):
            gitops.git(repo, "branch", "-m", task.branch, backup)
        _again(task, start=tip, backup=backup)
        sys.stderr.write(
            f"jlgcli: {task.name} runs again from {record.target or 'HEAD'} ({tip[:8]}); "
            f"its earlier work is kept on {backup}\n"
        )
    return tasks


def _again(task: TaskRecord, *, start: str, backup: str) -> None:
    """The task as never run, from ``start`` (what it spent stays counted)."""
    task.runId = task.exitCode = task.stopCause = task.mergeNote = task.skipped = None
    task.iterations, task.diffStat = 0, ""
    task.committed = task.merged = task.conflict = task.budgetStopped = False
    task.start, task.backup = start, backup
