"""The work tree as evidence (issue 17): a snapshot per iteration, and what changed between two.

A snapshot is the git tree id of the whole work tree (tracked and untracked
files, ``.gitignore`` respected), written through a temporary copy of the
index so the user's index is never touched. Two snapshots give the diff stat
of an iteration, and a changed tree counts as progress. Outside a git
repository there is no snapshot (``None``) and the reply alone is judged.

jlgcli's own files are never evidence (issue 31): the caller excludes its
directories, and ``OutputFiles`` finds the files its own stdout and stderr go
to inside the tree (``jlgcli loop task.md > run.log 2>&1``, ``| tee run.log``),
which grow every iteration whatever the agent did.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from jlgcli.process import git

FileId = tuple[int, int]  # (device, inode): the same file whatever the path


def git_dir(cwd: Path, environ: Mapping[str, str] | None = None) -> str | None:
    """The repository's git directory, or None outside a repository (looked up once a run).

    No ``.git`` in ``cwd`` or above it and no ``GIT_DIR``: not a work tree, answered
    without spawning git (a bare repository has no work tree to snapshot either).
    """
    if not _may_be_in_a_work_tree(cwd, os.environ if environ is None else environ):
        return None
    return git.run(cwd, "rev-parse", "--absolute-git-dir").answer or None


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
        inside = (_relative(cwd, path) for path in exclude)
        skip = [f":(exclude,literal){path}" for path in inside if path is not None]
        if not git.run(cwd, "add", "-A", "--", ".", *skip, env=env).ok:
            return None
        return git.run(cwd, "write-tree", env=env).answer


def _relative(cwd: Path, path: Path) -> str | None:
    """``path`` relative to ``cwd``, or None when it is outside (nothing there to exclude)."""
    path = path if path.is_absolute() else cwd / path
    try:
        return path.resolve().relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return None


class OutputFiles:
    """The files in the work tree that jlgcli's own stdout and stderr are written to.

    Found by identity, not by name: the (device, inode) of each output stream
    (``output_file_ids``) is compared with the files git would record as
    changed, so ``> run.log``, ``> ../logs/x`` or a hard link all work, with one
    git call per snapshot until each stream's file is found.
    """

    def __init__(self, wanted: Iterable[FileId]) -> None:
        self._wanted = set(wanted)
        self.found: list[Path] = []

    @property
    def wanted(self) -> bool:
        """Some output stream's file is still to be found."""
        return bool(self._wanted)

    def paths(self, cwd: Path) -> tuple[Path, ...]:
        """The output files found in ``cwd`` so far (looked for again while some are missing)."""
        if self._wanted:
            listed = git.run(cwd, "ls-files", "-z", "--others", "--modified", "--exclude-standard")
            self.claim(cwd, (listed.answer or "").split("\0"))
        return tuple(self.found)

    def claim(self, cwd: Path, names: Iterable[str]) -> list[str]:
        """Those of ``names`` (relative to ``cwd``) that are an output stream's file, now found."""
        claimed = []
        for name in names:
            if not name or not self._wanted:
                continue
            try:
                info = (cwd / name).stat()
            except OSError:
                continue
            if (info.st_dev, info.st_ino) in self._wanted:
                self._wanted.discard((info.st_dev, info.st_ino))
                self.found.append(cwd / name)
                claimed.append(name)
        return claimed


def output_file_ids(fds: tuple[int, ...] = (1, 2), *, within: Path | None = None) -> set[FileId]:
    """(device, inode) of the regular files that ``fds`` (stdout, stderr) end in.

    A redirected stream is the file itself. ``os.fstat`` gives both numbers on
    every OS (on Windows CPython fills them from GetFileInformationByHandle: the
    volume serial number and the file index, as ``os.stat`` does for a path).
    A pipe ends in another program: on Linux the files it writes are found
    through ``/proc`` (``| tee run.log``), those under ``within`` only; elsewhere
    a pipe's files are not known.
    """
    ids: set[FileId] = set()
    for fd in fds:
        try:
            info = os.fstat(fd)
        except OSError:  # closed
            continue
        if stat.S_ISREG(info.st_mode):
            ids.add((info.st_dev, info.st_ino))
        elif stat.S_ISFIFO(info.st_mode):
            ids |= _files_written_by_pipe_readers(info.st_ino, within=within)
    return ids


def _files_written_by_pipe_readers(
    pipe: int, proc: Path = Path("/proc"), *, within: Path | None = None
) -> set[FileId]:
    """Files open for writing in the other processes that hold pipe ``pipe`` (Linux only).

    ``within``: only files whose path (the fd's link) is under it, such as the work
    tree; a pipe's reader may write many files elsewhere (a CI runner's own logs).
    """
    if sys.platform != "linux":
        return set()  # macOS and Windows: no /proc; a pipe's reader stays unknown (documented)
    ids: set[FileId] = set()
    for entry in _listdir(proc):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        fds = proc / entry / "fd"
        names = _listdir(fds)
        if any(_link(fds / name) == f"pipe:[{pipe}]" for name in names):
            for name in names:
                inside = within is None or _is_under(_link(fds / name), within)
                file = _written_file(proc / entry, name) if inside else None
                if file is not None:
                    ids.add(file)
    return ids


def _listdir(path: Path) -> list[str]:
    try:
        return [child.name for child in path.iterdir()]
    except OSError:  # gone, or another user's process
        return []


def _is_under(link: str, folder: Path) -> bool:
    try:
        Path(link).relative_to(folder.resolve())
    except ValueError:
        return False
    return True


def _link(path: Path) -> str:
    try:
        return str(path.readlink())
    except OSError:  # closed meanwhile
        return ""


def _written_file(process: Path, fd: str) -> FileId | None:
    try:
        info = (process / "fd" / fd).stat()
        flags = next(
            int(line.split()[1], 8)
            for line in (process / "fdinfo" / fd).read_text().splitlines()
            if line.startswith("flags:")
        )
    except (OSError, StopIteration, ValueError, IndexError):
        return None
    writes = flags & (os.O_WRONLY | os.O_RDWR)
    return (info.st_dev, info.st_ino) if writes and stat.S_ISREG(info.st_mode) else None


def diff_stat(
    cwd: Path, before: str | None, after: str | None, *, exclude: Sequence[str] = ()
) -> dict[str, int] | None:
    """Files changed, insertions and deletions between two snapshots (None when unknown).

    ``exclude``: pathspecs of paths never counted (jlgcli's own files, issue 50).
    """
    if before is None or after is None:
        return None
    if before == after:
        return {"files": 0, "insertions": 0, "deletions": 0}
    paths = ("--", ".", *exclude) if exclude else ()
    out = git.run(cwd, "diff", "--numstat", before, after, *paths).answer
    if out is None:
        return None
    files = insertions = deletions = 0
    for line in out.splitlines():
        added, removed, _path = [*line.split("\t", 2), "", ""][:3]
        files += 1
        insertions += int(added) if added.isdigit() else 0
        deletions += int(removed) if removed.isdigit() else 0
    return {"files": files, "insertions": insertions, "deletions": deletions}
