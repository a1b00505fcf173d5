"""Starting a batch (issue 37): the checks, the names, the worktrees, the record.

Checks come before anything is created: task files readable, a git repository
for isolation (outside one only ``-j 1``, in place, one after another), and
with ``--merge`` a clean work tree on a branch — the user's tree and index are
only ever touched by a fast-forward, and only while they hold no uncommitted
work, so the batch refuses to start rather than risk it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jlgcli.artifacts.project import require_own_folder
from jlgcli.batch import gitops
from jlgcli.batch.record import BatchRecord, TaskRecord, new_batch_id, now_text, task_name
from jlgcli.errors import ExitCode, JlgError

WORKTREES = Path(".jlgcli") / "worktrees"


def settings_for(args: Any, cwd: Path) -> tuple[Path, tuple[str, ...], str | None]:
    """The runs root, the gates and the tasks' backend of a command line, resolved as a
    loop resolves them (``batch.options``)."""
    from jlgcli.batch.options import given_options, resolve

    settings = resolve(given_options(args), cwd)
    return settings.runs_root, settings.gates, settings.backend


def probe_for_tasks(name: str | None) -> tuple[tuple[str, str], ...]:
    """Probe the tasks' backend ``name`` once, for all of them: the versions found.

    A CLI that is missing or too old stops the batch here, with the error and hint a
    loop gives, before any worktree is made (not once per task). The version found is
    handed to every task in its options (``known_versions``, issue 44), whose probe then
    runs no ``--version`` of its own: one process per task less, on the start of every
    round. Only for the backends whose run probe leaves the login to the call (claude,
    codex); the others, auto and custom ones are probed by each task as in a single loop.
    """
    from jlgcli.config.backend_ids import BUILTIN_BACKENDS

    if name not in BUILTIN_BACKENDS:
        return ()
    from jlgcli.backends.registry import get_backend
    from jlgcli.runner.select import unusable

    fast = getattr(get_backend(name), "probe_installed", None)
    if fast is None:
        return ()
    availability = fast()
    problem = unusable(availability)
    if problem is not None:
        raise problem
    if availability.path is None or availability.version is None:
        return ()
    return ((availability.path, availability.version),)


def check_tasks(paths: list[str]) -> list[Path]:
    """Every task file exists and is a file (66 otherwise); stdin cannot be shared."""
    found = []
    for raw in paths:
        if raw == "-":
            raise JlgError(
                ExitCode.USAGE,
                "several tasks cannot all read stdin",
                hint="give each task as a file: jlgcli loop a.md b.md -j 2",
            )
        path = Path(raw).expanduser()
        if not path.is_file():
            raise JlgError(
                ExitCode.NO_INPUT,
                f"task file not found: {raw}",
                hint="each TASK is a UTF-8 file holding the task",
            )
        found.append(path.resolve())
    return found


def repository(cwd: Path, *, jobs: int | None, merge: bool) -> Path | None:
    """The git root of ``cwd`` (None: in place, allowed only with ``-j 1`` and no --merge)."""
    repo = gitops.toplevel(cwd)
    if repo is None:
        if jobs != 1 or merge:
            raise JlgError(
                ExitCode.USAGE,
                f"several tasks at once need a git repository: {cwd} is not in one "
                "(each task runs in its own git worktree, so the agents never share files)",
                hint="run them one after another in place with -j 1, or git init first",
            )
        return None
    if merge:
        changed = gitops.dirty(repo)
        if changed:
            raise JlgError(
                ExitCode.USAGE,
                f"--merge fast-forwards your branch, and {repo} has uncommitted changes "
                f"({', '.join(changed[:3])}{'…' if len(changed) > 3 else ''})",
                hint="commit or stash them first, or run without --merge (branches are kept)",
            )
        if gitops.current_branch(repo) is None:
            raise JlgError(
                ExitCode.USAGE,
                "--merge needs a branch checked out (HEAD is detached)",
                hint="git switch -c work, then run again",
            )
    return repo


def new_record(tasks: list[Path], repo: Path | None, *, merge: bool) -> BatchRecord:
    """The record of a new batch; in a repository, a worktree and branch per task."""
    record = BatchRecord(
        batchId=new_batch_id(),
        base=_base_commit(repo, len(tasks)) if repo is not None else None,
        target=gitops.current_branch(repo) if repo is not None else None,
        merge=merge,
        isolated=repo is not None,
        started=now_text(),
    )
    taken: set[str] = set()
    branches = gitops.branches(repo, "jlgcli/") if repo is not None else set()  # one git call
    for path in tasks:
        name = task_name(path, taken)
        if repo is not None:
            stem, n = name, 2
            while f"jlgcli/{name}" in branches or worktree_of(repo, name).exists():
                name, n = f"{stem}-{n}", n + 1
            taken.add(name)
        record.tasks.append(
            TaskRecord(
                name=name, task=str(path), branch=f"jlgcli/{name}" if repo is not None else ""
            )
        )
    return record


def _base_commit(repo: Path, tasks: int) -> str:
    """The commit the tasks start from; a repository with none yet is 64 with what to do."""
    try:
        return gitops.head(repo)
    except gitops.GitError:
        if gitops.git(repo, "rev-parse", "--verify", "--quiet", "HEAD", check=False).ok:
            raise
    raise JlgError(
        ExitCode.USAGE,
        f"{repo} has no commit yet, and each of the {tasks} tasks starts from one "
        "(in its own git worktree and branch)",
        hint='commit first, e.g. git add -A && git commit -m "start", then run again',
    )


def worktrees_folder(repo: Path) -> Path:
    """The folder of the task worktrees, kept out of the user's ``git status``."""
    folder = repo / WORKTREES
    require_own_folder(folder)  # a symlinked .jlgcli or worktrees folder: exit 73 (issue 46)
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# created by jlgcli: task worktrees stay out of git\n*\n", "utf-8")
    return folder


def make_worktrees(repo: Path, record: BatchRecord) -> None:
    """One worktree per task, from the batch's base commit (a resume: every one missing)."""
    worktrees_folder(repo)
    for task in record.tasks:
        make_worktree(repo, record, task)


def make_worktree(repo: Path, record: BatchRecord, task: TaskRecord) -> None:
    """A task's worktree on its branch (new from the base commit), unless it is there or the
    task was merged (its worktree and branch are gone). A new batch makes each one in the
    task's own thread just before it starts: the first tasks start without waiting for the
    others' worktrees, and the later ones are made side by side while tasks run."""
    path = worktree_of(repo, task.name)
    if task.merged or path.exists():
        return
    try:  # the usual case first: a new branch (asking git first cost a git call per task)
        gitops.add_worktree(repo, path, task.branch, task.start or record.base or "HEAD")
    except gitops.GitError:
        if not gitops.branch_exists(repo, task.branch):
            raise
        # the branch is there (a resume; the worktree removed by hand): back from it
        gitops.git(repo, "worktree", "add", "--quiet", str(path), task.branch)


def worktree_of(repo: Path, name: str) -> Path:
    """A task's worktree, always derived from its (validated) name."""
    return repo / WORKTREES / name


class WorktreeMaker:
    """Makes a batch's worktrees one at a time (git reads the other worktrees' admin folders
    and fails on one being written: "failed to read .../commondir"): the worktree of a task
    about to start (``make``, from its thread), and the others ahead of their start, in the
    order given, from a thread of their own (``start_ahead``), while the first tasks run.
    Neither waits for all of them: the first task starts after its own worktree only."""

    def __init__(self, repo: Path, record: BatchRecord) -> None:
        self.repo, self.record = repo, record
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._made: set[str] = set()  # its folder alone says nothing: git makes it, then fills it
        self._starting = 0  # task threads waiting for their own worktree: they go first
        self._turn = threading.Condition()

    def make(self, task: TaskRecord) -> None:
        """The worktree of a task about to start (made ahead already, most of the time)."""
        if task.name in self._made:
            return
        with self._turn:
            self._starting += 1
        try:
            self._make(task)
        finally:
            with self._turn:
                self._starting -= 1
                self._turn.notify_all()

    def _make(self, task: TaskRecord) -> None:
        with self._lock:
            if task.name not in self._made:
                make_worktree(self.repo, self.record, task)
                self._made.add(task.name)

    def start_ahead(
        self, tasks: list[TaskRecord], *, at_once: int = 0, pause: Callable[[], object] = bool
    ) -> None:
        """Make ``tasks``' worktrees in turn; before each one after the first ``at_once``
        (the tasks that start at once), ``pause``: until the starting tasks are under way,
        so that this git work does not slow their start on a small machine."""

        def run() -> None:
            for number, task in enumerate(tasks):
                if number >= at_once:
                    pause()
                with self._turn:  # a starting task never queues behind a later one's
                    self._turn.wait_for(lambda: self._starting == 0 or self._stop.is_set())
                if self._stop.is_set():
                    return
                try:
                    self._make(task)
                except (gitops.GitError, OSError):  # the task's own thread tries, and says why
                    continue

        self._thread = threading.Thread(target=run, name="worktrees-ahead", daemon=True)
        self._thread.start()

    def finish(self) -> None:
        """Make no more; wait for the one being made (never leave a half-made worktree)."""
        with self._turn:
            self._stop.set()
            self._turn.notify_all()
        if self._thread is not None:
            self._thread.join()
