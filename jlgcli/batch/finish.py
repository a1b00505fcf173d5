"""Results come back only with evidence (issue 37): commit, rebase, gates again, fast-forward.

A task that ended done (its gates passed) gets its changes committed on its
branch. With ``--merge`` the branches are integrated one at a time, in the
order the tasks were given: rebase onto the target branch's tip inside the
task's worktree, run the gates again on that result, then fast-forward the
target — in the user's tree, which the batch checked clean at its start and
checks again before each step. A conflict or a failing gate leaves the branch
unmerged with the commands to look at it. Only a merged task's worktree is
removed (``git worktree remove`` without ``--force``; never unmerged work).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from jlgcli.batch import gitops
from jlgcli.batch.record import BatchRecord, TaskRecord
from jlgcli.batch.setup import worktree_of


def commit_done(
    repo: Path, record: BatchRecord, task: TaskRecord, *, summary: dict[str, Any] | None = None
) -> None:
    """Commit a done task's changes on its branch (``batch.commits``: the user as author,
    the task's title and the agent's summary); note its diff stat against its start."""
    from jlgcli.batch.commits import message

    worktree = worktree_of(repo, task.name)
    if task.exitCode == 0 and worktree.is_dir():
        text = message(Path(task.task), task.name, record.batchId, task.runId, summary)
        gitops.commit_all(worktree, text, author=gitops.user_identity(repo))
        task.committed = True
    start = task.start or record.base
    if start:  # '' when the branch is gone (git's answer, no extra call to ask first)
        task.diffStat = gitops.diff_stat(repo, start, task.branch)


def merge_all(
    repo: Path,
    record: BatchRecord,
    gates: tuple[str, ...],
    save: Callable[[], object] = lambda: None,
) -> None:
    """Integrate every done, committed, unmerged task in turn (see the module docstring);
    ``save`` the record after each, so that a merge cut short (kill -9) resumes where it
    stopped: the merged ones stay merged, the next one is rebased and gated again."""
    for task in record.tasks:
        if task.exitCode == 0 and task.committed and not task.merged:
            merge_one(repo, record, task, gates)
            save()


def abort_cut_rebase(repo: Path, task: TaskRecord) -> None:
    """A resume: a rebase of the task's branch that a kill cut short is undone (its branch
    is as it was before the merge began; the merge does it again)."""
    worktree = worktree_of(repo, task.name)
    if not worktree.is_dir():
        return
    done = gitops.git(worktree, "rev-parse", "--git-path", "rebase-merge", check=False)
    state = Path(done.stdout.strip())
    if done.ok and (state if state.is_absolute() else worktree / state).exists():
        gitops.git(worktree, "rebase", "--abort", check=False)


def merge_one(repo: Path, record: BatchRecord, task: TaskRecord, gates: tuple[str, ...]) -> None:
    target = record.target or "HEAD"
    worktree = worktree_of(repo, task.name)
    look = f"look at it: git -C {repo} log --stat {target}..{task.branch}  (worktree: {worktree})"
    if gitops.current_branch(repo) != record.target or gitops.dirty(repo):
        task.mergeNote = (
            f"not merged: {repo} is no longer clean on {target}; "
            f"merge it yourself: git merge {task.branch}"
        )
        return
    if gitops.ahead(repo, task.branch, target) == 0:
        task.merged, task.mergeNote = True, "nothing to merge (no changes)"
        _clean_up(repo, task)
        return
    if not gitops.rebase(worktree, target):
        task.conflict = True  # jlgcli loop --resume BATCH --retry-conflicts (issue 44)
        task.mergeNote = f"not merged: conflicts with {target}; {look}"
        return
    task.conflict = False
    if gates:
        failed = _failed_gate(gates, worktree)
        if failed:
            task.mergeNote = f"not merged: after the rebase onto {target}, {failed}; {look}"
            return
    tip = gitops.head(repo)
    if not gitops.fast_forward(repo, task.branch):
        task.mergeNote = f"not merged: {target} cannot fast-forward to {task.branch}; {look}"
        return
    task.merged, task.mergeNote = True, f"merged into {target}"
    task.diffStat = gitops.diff_stat(repo, tip, task.branch) or task.diffStat  # its own change
    _clean_up(repo, task)


def _failed_gate(gates: tuple[str, ...], cwd: Path) -> str | None:
    from jlgcli.artifacts.redact import Redactor
    from jlgcli.runner.gates import run_gates

    for result in run_gates(gates, cwd, redact=Redactor().redact):
        if not result.ok:
            return f"the gate {result.command!r} failed (exit {result.exitCode})"
    return None


def _clean_up(repo: Path, task: TaskRecord) -> None:
    """A merged task's worktree and branch go (git refuses if anything is left unmerged)."""
    if gitops.remove_worktree(repo, worktree_of(repo, task.name)):
        gitops.delete_merged_branch(repo, task.branch)
