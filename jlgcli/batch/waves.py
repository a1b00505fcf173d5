"""Dependency waves (issue 44): a task starts after the tasks it depends on ended done.

A task file's front matter (``jlgcli.front_matter``) names the tasks it
depends on by id, the stem of their files (``depends-on: [schema]``). A batch
reads them before anything is made: an unknown id or a cycle is 64 before any
agent call. The tasks are put in wave order (the ones that depend on nothing,
then the ones that depend only on those, …; in the order given within a wave),
which is also the order of the merges and of ``jlgcli matrix``'s jobs.

The scheduler asks ``Waves.verdict`` before starting a task: start, wait (a
dependency is still to end) or skip (a dependency did not end done — or, with
``--merge``, was not merged: the task would not see its work). A task starts
from the result of merging its dependencies: with ``--merge``, the user's
branch just after their merge (``Waves.after_done`` merges a dependency as soon
as it ends, with the gates, instead of at the end of the batch); without, its
branch starts at its first dependency's branch and the others are merged into
it (``git merge``; a conflict skips the task, saying so).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from jlgcli.batch import gitops
from jlgcli.batch.record import BatchRecord, TaskRecord, task_name
from jlgcli.errors import ExitCode, JlgError


class DependencyConflictError(Exception):
    """The branches of a task's dependencies do not merge: the task is skipped."""


def read_dependencies(record: BatchRecord, paths: Sequence[Path]) -> None:
    """Each new task's ``dependsOn`` from its file's front matter, as names of this batch,
    then the tasks in wave order; an unknown id or a cycle is 64 (nothing made yet)."""
    from jlgcli.front_matter import split

    by_id: dict[str, str] = {}  # a file's id (its stem) -> its task's name in this batch
    taken: set[str] = set()
    for path, task in zip(paths, record.tasks, strict=True):
        by_id[task_name(path, taken)] = task.name
    for path, task in zip(paths, record.tasks, strict=True):
        try:
            text = path.read_text("utf-8-sig")
        except (OSError, UnicodeError):  # the task's own loop says what is wrong with it
            continue
        wanted = split(text, str(path)).depends_on
        unknown = [dep for dep in wanted if _id(dep) not in by_id]
        if unknown:
            raise JlgError(
                ExitCode.USAGE,
                f"{path.name} depends on {', '.join(unknown)}, not a task of this batch",
                hint=f"the ids are the task files' stems: {', '.join(sorted(by_id))}",
            )
        task.dependsOn = [by_id[_id(dep)] for dep in wanted]
    record.tasks = in_waves(record.tasks)


def _id(text: str) -> str:
    return task_name(Path(text.strip()), set())


def waves(names: Sequence[str], depends_on: dict[str, list[str]]) -> list[list[str]]:
    """The names in waves (each one's dependencies in earlier waves), the given order kept
    within a wave; a cycle is 64 naming it."""
    placed: dict[str, int] = {}
    result: list[list[str]] = []
    left = list(names)
    while left:
        wave = [n for n in left if all(dep in placed for dep in depends_on.get(n, []))]
        if not wave:
            raise JlgError(
                ExitCode.USAGE,
                f"the tasks' depends-on make a cycle: {' -> '.join(_cycle(left, depends_on))}",
                hint="a task can only depend on tasks that do not depend on it",
            )
        for name in wave:
            placed[name] = len(result)
        result.append(wave)
        left = [n for n in left if n not in placed]
    return result


def _cycle(left: list[str], depends_on: dict[str, list[str]]) -> list[str]:
    """One cycle among ``left`` (each of them waits on another of them)."""
    path, at = [left[0]], left[0]
    while True:
        at = next(dep for dep in depends_on.get(at, []) if dep in left)
        if at in path:
            return [*path[path.index(at) :], at]
        path.append(at)


def in_waves(tasks: list[TaskRecord]) -> list[TaskRecord]:
    """``tasks`` in wave order (64 on a cycle)."""
    order = waves([t.name for t in tasks], {t.name: t.dependsOn for t in tasks})
    by_name = {task.name: task for task in tasks}
    return [by_name[name] for wave in order for name in wave]


class Waves:
    """What the batch asks before a task starts, and does when a dependency ends."""

    def __init__(self, record: BatchRecord, repo: Path | None) -> None:
        self.record, self.repo = record, repo
        self.by_name = {task.name: task for task in record.tasks}
        self.needed = {dep for task in record.tasks for dep in task.dependsOn}
        self.merge_lock = threading.Lock()  # the user's branch moves for one task at a time

    @property
    def any(self) -> bool:
        return bool(self.needed)

    def verdict(self, task: TaskRecord, ended: Iterable[str]) -> bool | str:
        """True: start it; False: wait; a text: skip it, saying why (noted on the task)."""
        gone = set(ended)
        for name in task.dependsOn:
            dep = self.by_name[name]
            if name not in gone:
                return False
            if dep.exitCode != 0 or dep.budgetStopped:
                why = "skipped" if dep.skipped else dep.stopCause or f"exit {dep.exitCode}"
                return self._skip(task, f"{name} did not end done ({why})")
            if self.record.merge and not dep.merged:
                return self._skip(task, f"{name} was not merged")
        task.skipped = None  # skipped by an earlier run of the batch, it may start now
        return True

    def _skip(self, task: TaskRecord, why: str) -> str:
        task.skipped = f"skipped: {why}"
        return task.skipped

    def start_point(self, task: TaskRecord) -> None:
        """Before a dependent task's worktree is made (its thread): where its branch starts.
        With ``--merge`` the user's branch as it is now, after its dependencies' merge;
        else its first dependency's branch (the others are merged in by ``merge_rest``)."""
        if self.repo is None or not task.dependsOn or task.start is not None:
            return
        if self.record.merge:
            with self.merge_lock:
                task.start = gitops.head(self.repo)
        else:
            first = self.by_name[task.dependsOn[0]]
            tip = gitops.git(self.repo, "rev-parse", f"refs/heads/{first.branch}")
            task.start = tip.stdout.strip()

    def merge_rest(self, task: TaskRecord, worktree: Path) -> None:
        """Without ``--merge``: the other dependencies' branches merged into the task's new
        branch; a conflict is ``DependencyConflictError`` (the task is skipped)."""
        if self.repo is None or self.record.merge or len(task.dependsOn) < 2:
            return
        if gitops.ahead(self.repo, task.branch, task.start or "HEAD") > 0:
            return  # merged before (a resume): the task's own work may follow
        for name in task.dependsOn[1:]:
            branch = self.by_name[name].branch
            done = gitops.git(worktree, *gitops.AS_JLGCLI, *gitops.NO_MAINTENANCE, "merge",
                              "--quiet", "--no-edit", branch, check=False)  # fmt: skip
            if not done.ok:
                gitops.git(worktree, "merge", "--abort", check=False)
                self._skip(task, f"the branches of {', '.join(task.dependsOn)} conflict")
                raise DependencyConflictError(task.skipped)

    def catch_up(self, merge: Callable[[TaskRecord], None]) -> None:
        """A resume with ``--merge``: a dependency that ended done in an earlier run but was
        not merged yet (stopped before its merge) is merged first, so its dependents start."""
        for task in self.record.tasks:
            if task.finished and task.mergeNote is None:
                self.after_done(task, merge)

    def after_done(self, task: TaskRecord, merge: Callable[[TaskRecord], None]) -> None:
        """With ``--merge``: a task others depend on is merged as soon as it ends done
        (``merge(task)``: rebase, gates, fast-forward), so that they start from it."""
        if self.record.merge and task.name in self.needed and task.exitCode == 0:
            with self.merge_lock:
                if task.committed and not task.merged:
                    merge(task)
