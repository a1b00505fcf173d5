"""The work tree as evidence (issue 17): a snapshot per iteration, and what changed between two.

A snapshot is the git tree id of the whole work tree (tracked and untracked
files, ``.gitignore`` respected), written through a temporary copy of the
index so the user's index is never touched. Two snapshots give the diff stat
of an iteration, and a changed tree counts as progress. Outside a git
repository there is no snapshot (``None``) and the reply alone is judged.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

GIT_TIMEOUT_S = 30.0


def _git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str | None:
    from jlgcli.process import ExecutableNotFound, capture

    try:
        result = capture(("git", *args), timeout=GIT_TIMEOUT_S, cwd=str(cwd), env=env)
    except ExecutableNotFound:
        return None
    if result.exit_code != 0:
        return None
    return result.stdout.strip()


def git_dir(cwd: Path, environ: Mapping[str, str] | None = None) -> str | None:
    """The repository's git directory, or None outside a repository (looked up once a run).

    No ``.git`` in ``cwd`` or above it and no ``GIT_DIR``: not a work tree, answered
    without spawning git (a bare repository has no work tree to snapshot either).
    """
    if not _may_be_in_a_work_tree(cwd, os.environ if environ is None else environ):
        return None
    return _git(cwd, "rev-parse", "--absolute-git-dir") or None


def _may_be_in_a_work_tree(cwd: Path, environ: Mapping[str, str]) -> bool:
    if "GIT_DIR" in environ or "GIT_WORK_TREE" in environ:
        return True
    try:
        here = cwd.resolve()
    except OSError:
        return True  # let git say
    return any((directory / ".git").exists() for directory in (here, *here.parents))


def snapshot(cwd: Path, exclude: tuple[Path, ...] = (), *, repo: str | None = "") -> str | None:
    """The tree id of the work tree now, or None (not a git repository, git missing).

    ``exclude``: jlgcli's own directories (run records, the ledger), which change
    every iteration and say nothing about the task. ``repo``: the git directory
    when the caller already knows it (None: not a repository).
    """
    repo = git_dir(cwd) if repo == "" else repo
    if not repo:
        return None
    import tempfile  # with random and hashlib, ~3 ms: only inside a repository

    with tempfile.TemporaryDirectory(prefix="jlgcli-index-") as scratch:
        index = Path(scratch) / "index"
        real_index = Path(repo) / "index"
        if real_index.is_file():
            shutil.copyfile(real_index, index)  # keeps git's stat cache: add -A stays fast
        env = {"GIT_INDEX_FILE": str(index)}
        skip = [f":(exclude){_relative(cwd, path)}" for path in exclude]
        if _git(cwd, "add", "-A", "--", ".", *skip, env=env) is None:
            return None
        return _git(cwd, "write-tree", env=env)


def _relative(cwd: Path, path: Path) -> str:
    path = path if path.is_absolute() else cwd / path
    try:
        return path.resolve().relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def diff_stat(cwd: Path, before: str | None, after: str | None) -> dict[str, int] | None:
    """Files changed, insertions and deletions between two snapshots (None when unknown)."""
    if before is None or after is None:
        return None
    if before == after:
        return {"files": 0, "insertions": 0, "deletions": 0}
    out = _git(cwd, "diff", "--numstat", before, after)
    if out is None:
        return None
    files = insertions = deletions = 0
    for line in out.splitlines():
        added, removed, _path = [*line.split("\t", 2), "", ""][:3]
        files += 1
        insertions += int(added) if added.isdigit() else 0
        deletions += int(removed) if removed.isdigit() else 0
    return {"files": files, "insertions": insertions, "deletions": deletions}
