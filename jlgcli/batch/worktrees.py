"""``jlgcli worktrees [prune]`` (issue 44): what the batches left in git, and its clean-up.

Every worktree under ``.jlgcli/worktrees`` and every branch ``jlgcli/*`` (a
task's) or ``jlgcli-backup/*`` (a task's earlier work, kept by
``--retry-conflicts``), with its state:

- ``running``: its task's run is going on (a live process holds the run's lock);
- ``conflict``: its merge stopped on a conflict (``loop --resume BATCH --retry-conflicts``);
- ``unmerged work``: commits the current branch lacks, or uncommitted changes;
- ``merged``: all of it is in the current branch; ``empty``: it holds no work at all.

``prune`` removes the merged and empty ones (``git worktree remove`` and
``git branch -d``: git itself refuses anything unmerged). Unmerged work goes
only when named with ``--force``, after what is lost (commits, changed files)
is printed; a running task's never. The batch records are input: they only
add what git cannot say (conflict, running, which batch).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jlgcli.batch import gitops
from jlgcli.batch.record import BatchRecord, TaskRecord, list_batches, load
from jlgcli.batch.setup import WORKTREES
from jlgcli.errors import ExitCode, JlgError
from jlgcli.records import field, record

PREFIXES = ("jlgcli/", "jlgcli-backup/")
REMOVABLE = ("merged", "empty")


@record(frozen=False)
class Entry:
    """A worktree and/or branch jlgcli made."""

    name: str  # the branch (jlgcli/<task>), or the worktree's folder when it has none
    branch: str | None
    worktree: Path | None
    state: str = "empty"
    ahead: int = 0  # commits the current branch does not have
    uncommitted: list[str] = field(default_factory=list)
    batch: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "branch": self.branch,
            "worktree": str(self.worktree) if self.worktree else None,
            "state": self.state,
            "commitsAhead": self.ahead,
            "uncommitted": list(self.uncommitted),
            "batchId": self.batch,
        }

    def matches(self, wanted: str) -> bool:
        return wanted in (self.name, self.branch, self.name.removeprefix("jlgcli/"))


def main_tree(cwd: Path) -> Path | None:
    """The repository's main work tree, also from inside a task's worktree (None: not in
    a repository)."""
    top = gitops.toplevel(cwd)
    if top is None:
        return None
    done = gitops.git(top, "worktree", "list", "--porcelain", check=False)
    first = done.stdout.splitlines()[0] if done.ok and done.stdout else ""
    return Path(first.removeprefix("worktree ")) if first.startswith("worktree ") else top


def survey(repo: Path, runs_root: Path) -> list[Entry]:
    """Every worktree and branch jlgcli made in ``repo``, with its state."""
    gitops.git(repo, "worktree", "prune", check=False)  # folders removed by hand
    entries: dict[str, Entry] = {}
    for path, branch in _worktrees(repo):
        key = branch or str(path)
        entries[key] = Entry(name=branch or path.name, branch=branch, worktree=path)
    for prefix in PREFIXES:
        for branch in sorted(gitops.branches(repo, prefix)):
            entries.setdefault(branch, Entry(name=branch, branch=branch, worktree=None))
    known = _tasks_by_branch(runs_root)
    busy = _running_in(runs_root)
    for entry in entries.values():
        _assess(repo, entry, known.get(entry.branch or ""), busy)
    return sorted(entries.values(), key=lambda entry: entry.name)


def _running_in(runs_root: Path) -> set[Path]:
    """The folders where a run is going on (a live process holds its lock; its meta.json
    says where). Only run folders with a lock file are opened."""
    import json

    from jlgcli.config.started import LOCK_FILE, is_running

    found: set[Path] = set()
    try:
        folders = [p for p in runs_root.iterdir() if (p / LOCK_FILE).is_file()]
    except OSError:
        return found
    for folder in folders:
        if not is_running(folder):
            continue
        try:
            cwd = json.loads((folder / "meta.json").read_text("utf-8")).get("cwd")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(cwd, str):
            found.add(Path(cwd).resolve())
    return found


def _worktrees(repo: Path) -> list[tuple[Path, str | None]]:
    """The worktrees under ``.jlgcli/worktrees``, with their branch (None: detached)."""
    root = (repo / WORKTREES).resolve()
    done = gitops.git(repo, "worktree", "list", "--porcelain", check=False)
    found: list[tuple[Path, str | None]] = []
    path: Path | None = None
    branch: str | None = None
    for line in [*done.stdout.splitlines(), ""]:
        if line.startswith("worktree "):
            path, branch = Path(line.removeprefix("worktree ")), None
        elif line.startswith("branch refs/heads/"):
            branch = line.removeprefix("branch refs/heads/")
        elif not line and path is not None:
            if path.resolve().parent == root:
                found.append((path, branch))
            path = None
    return found


def _tasks_by_branch(runs_root: Path) -> dict[str, tuple[BatchRecord, TaskRecord]]:
    """Each task branch's newest batch record and task (records are input: names only)."""
    found: dict[str, tuple[BatchRecord, TaskRecord]] = {}
    for batch_id in list_batches(runs_root):
        try:
            record = load(runs_root, batch_id)
        except JlgError:
            continue
        for task in record.tasks:
            if task.branch:
                found.setdefault(task.branch, (record, task))
    return found


def _assess(
    repo: Path, entry: Entry, known: tuple[BatchRecord, TaskRecord] | None, busy: set[Path]
) -> None:
    record, task = known if known is not None else (None, None)
    entry.batch = record.batchId if record is not None else None
    if entry.worktree is not None and entry.worktree.is_dir():
        entry.uncommitted = gitops.dirty(entry.worktree)
    if entry.branch is not None:
        entry.ahead = gitops.ahead(repo, entry.branch, "HEAD")
    if entry.worktree is not None and entry.worktree.resolve() in busy:
        entry.state = "running"
    elif task is not None and task.conflict and not task.merged and entry.ahead:
        entry.state = "conflict"
    elif entry.ahead or entry.uncommitted:
        entry.state = "unmerged work"
    elif task is not None and not (task.merged or task.committed):
        entry.state = "empty"
    else:
        entry.state = "merged" if entry.branch else "empty"


@record(frozen=False)
class Pruned:
    """What ``prune`` did: removed, kept (with why) and, for forced ones, what was lost."""

    removed: list[str] = field(default_factory=list)
    kept: dict[str, str] = field(default_factory=dict)
    lost: dict[str, list[str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"removed": self.removed, "kept": self.kept, "lost": self.lost}


def check_forced(entries: list[Entry], forced: list[str]) -> None:
    """Every name given to ``--force`` is one of ``entries`` (64 otherwise)."""
    for wanted in forced:
        if not any(entry.matches(wanted) for entry in entries):
            names = ", ".join(entry.name for entry in entries) or "none"
            raise JlgError(
                ExitCode.USAGE,
                f"no worktree or branch of jlgcli named {wanted!r}",
                hint=f"jlgcli worktrees lists them ({names})",
            )


def lost_work(repo: Path, entry: Entry) -> list[str]:
    """What removing ``entry`` loses: its commits the current branch lacks, its changes."""
    lines: list[str] = []
    if entry.branch is not None and entry.ahead:
        done = gitops.git(repo, "log", "--oneline", "--no-decorate", f"HEAD..{entry.branch}",
                          check=False)  # fmt: skip
        lines += [f"commit {line}" for line in done.stdout.splitlines() if line.strip()]
    lines += [f"uncommitted {path}" for path in entry.uncommitted]
    return lines


def prune(repo: Path, entries: list[Entry], forced: list[str]) -> Pruned:
    """Remove the merged and empty entries, and the ones named in ``forced``."""
    result = Pruned()
    for entry in entries:
        force = any(entry.matches(wanted) for wanted in forced)
        if entry.state == "running":
            result.kept[entry.name] = "running: stop its batch first"
            continue
        if entry.state not in REMOVABLE and not force:
            result.kept[entry.name] = f"{entry.state}: name it with --force to remove it"
            continue
        if entry.state not in REMOVABLE:
            result.lost[entry.name] = lost_work(repo, entry)
        problem = _remove(repo, entry, force=force)
        if problem:
            result.kept[entry.name] = problem
        else:
            result.removed.append(entry.name)
    return result


def _remove(repo: Path, entry: Entry, *, force: bool) -> str | None:
    """Remove the worktree, then the branch; the reason when git refused."""
    if entry.worktree is not None and entry.worktree.exists():
        argv = ["worktree", "remove", *(["--force"] if force else []), str(entry.worktree)]
        done = gitops.git(repo, *argv, check=False)
        if not done.ok:
            return f"git kept the worktree: {(done.stderr or done.stdout).strip()}"
    if entry.branch is not None:
        done = gitops.git(repo, "branch", "-D" if force else "-d", entry.branch, check=False)
        if not done.ok:
            return f"git kept the branch: {(done.stderr or done.stdout).strip()}"
    return None
