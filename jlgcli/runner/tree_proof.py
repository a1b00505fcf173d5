"""Proof from stat data alone that nothing in the work tree changed: no git process (issue 50).

Taken just before a snapshot's ``git add -A`` and kept with it: the status change time,
modification time, size and inode of every directory of the tree (so that a file created,
removed or renamed anywhere shows in its directory) and of every file the snapshot holds
(so that a file written in place shows itself). The next snapshot checks them with one
``lstat`` each; if every one is as recorded, the tree is the one before and git is not
asked. Whatever the proof cannot see makes it give up (``None``), and git is asked as
before:

* a tree too big to stat quickly (``MAX_PATHS``), a sparse checkout, a split or sparse
  index, a conflict, a submodule, an index format it does not read, ``GIT_DIR`` or
  ``GIT_WORK_TREE`` set;
* a time stamp less than ``RACY_S`` older than the moment it was read: file systems
  stamp with a coarse clock (a few ms), so a change in that same tick could leave the
  stamp as it was (git's own "racily clean" entries);
* a path in the index that the walk before ``git add`` did not see (created meanwhile).

What it does not watch: git's own configuration and ``.git/info/exclude`` (what is
ignored), which an agent changes only through a tool call that also leaves a trace in
the tree it works on.
"""

from __future__ import annotations

import os
import stat
import struct
import time
from pathlib import Path

MAX_PATHS = 5_000  # directories and files stat-ed per check: a few ms, less than one git process
RACY_S = 0.05  # a stamp this recent may hide a change made in the same clock tick
Stamp = tuple[int, int, int, int]  # ctime_ns, mtime_ns, size, inode
_GITLINK = 0o160000


class TooBigError(Exception):
    """The tree has more than ``MAX_PATHS`` directories and files: git is quicker."""


class TreeProof:
    """The stat data of a work tree, taken before a snapshot: does it still hold?"""

    def __init__(self, stamps: dict[str, Stamp]) -> None:
        self._stamps = stamps

    def holds(self) -> bool:
        """Every directory and file is as recorded (False at the first difference)."""
        for path, stamp in self._stamps.items():
            try:
                if _stamp(os.lstat(path)) != stamp:
                    return False
            except OSError:
                return False
        return True

    @classmethod
    def walk(cls, cwd: Path, own: tuple[Path, ...]) -> Walk | None:
        """Stamp every directory and file under ``cwd`` but ``.git`` and jlgcli's own files
        (None: a git set-up the proof cannot see, or a stamp too recent; raises ``TooBigError``)."""
        if "GIT_DIR" in os.environ or "GIT_WORK_TREE" in os.environ:
            return None
        root = cwd.resolve()
        skip = {str(path.resolve()) for path in own}
        since = time.time() - RACY_S
        dirs: dict[str, Stamp] = {}
        files: dict[str, Stamp] = {}
        todo = [str(root)]
        while todo:
            folder = todo.pop()
            try:
                info = os.lstat(folder)
                entries = list(os.scandir(folder))
            except OSError:
                return None
            dirs[folder] = _stamp(info)
            if len(dirs) + len(files) + len(entries) > MAX_PATHS:
                raise TooBigError(folder)
            if _racy(info, since):
                return None
            for entry in entries:
                if entry.name == ".git" or entry.path in skip:
                    continue
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    return None
                if stat.S_ISDIR(info.st_mode):
                    todo.append(entry.path)
                else:
                    files[entry.path] = _stamp(info)
                    if _racy(info, since):
                        files[entry.path] = (-1, -1, -1, -1)  # never holds: git looks again
        return Walk(root, dirs, files, skip)


class Walk:
    """A tree's stamps, before ``git add``; ``proof`` keeps those of the files git holds."""

    def __init__(
        self, root: Path, dirs: dict[str, Stamp], files: dict[str, Stamp], skip: set[str]
    ) -> None:
        self.root, self.dirs, self.files, self.skip = root, dirs, files, skip

    def proof(self, index: Path) -> TreeProof | None:
        """The proof for the snapshot git just wrote into ``index`` (None: give up)."""
        top = _top(self.root)
        try:
            entries = _index_entries(index.read_bytes())
        except (OSError, ValueError, struct.error):
            return None
        if top is None or entries is None:
            return None
        stamps = dict(self.dirs)
        for name, mode in entries:
            path = top + os.sep + os.fsdecode(name).replace("/", os.sep)  # as scandir joins
            if not path.startswith(f"{self.root}{os.sep}"):
                continue  # outside the folder the loop snapshots
            if mode == _GITLINK:
                return None  # a submodule: its commit is not in any stat data
            stamp = self.files.get(path)
            if stamp is not None:
                stamps[path] = stamp
            elif path not in self.skip and path.rpartition(os.sep)[0] in self.dirs:
                return None  # created after the walk (in jlgcli's own folders: left out)
        return TreeProof(stamps)


def _stamp(info: os.stat_result) -> Stamp:
    return (info.st_ctime_ns, info.st_mtime_ns, info.st_size, info.st_ino)


def _racy(info: os.stat_result, since: float) -> bool:
    return max(info.st_ctime, info.st_mtime) >= since


def _top(root: Path) -> str | None:
    """The work tree's top: the nearest folder holding ``.git`` (a folder, or a worktree's file)."""
    for folder in (root, *root.parents):
        if (folder / ".git").exists():
            return str(folder)
    return None


def _index_entries(data: bytes) -> list[tuple[bytes, int]] | None:
    """(path, mode) of each entry of a git index, versions 2 to 4 with SHA-1 ids; None for
    what the proof cannot see (sparse or split index, skip-worktree, conflicts)."""
    if data[:4] != b"DIRC":
        return None
    version, count = struct.unpack_from(">II", data, 4)
    if version not in (2, 3, 4):
        return None
    pos, previous, entries = 12, b"", []
    for _ in range(count):
        mode = struct.unpack_from(">I", data, pos + 24)[0]
        flags = struct.unpack_from(">H", data, pos + 60)[0]
        start = pos + 62
        if flags & 0x3000:
            return None  # a merge conflict's stages
        if flags & 0x4000:  # extended flags (version 3 and up)
            if struct.unpack_from(">H", data, start)[0] & 0x4000:
                return None  # skip-worktree: a sparse checkout
            start += 2
        if version == 4:
            strip, start = _varint(data, start)
            end = data.index(b"\0", start)
            path = previous[: len(previous) - strip] + data[start:end]
            pos = end + 1
        else:
            end = data.index(b"\0", start)
            path = data[start:end]
            pos += (end - pos + 8) // 8 * 8  # 1 to 8 NULs pad each entry to 8 bytes
        if flags & 0xFFF != min(len(path), 0xFFF):
            return None  # not the layout read here (a SHA-256 repository)
        previous = path
        entries.append((path, mode))
    while pos + 8 <= len(data) - 20:  # the extensions, before the checksum
        signature, size = data[pos : pos + 4], struct.unpack_from(">I", data, pos + 4)[0]
        if signature in (b"link", b"sdir"):
            return None  # a split index (entries elsewhere) or a sparse one
        pos += 8 + size
    return entries


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """Git's offset varint (index version 4's prefix length)."""
    byte = data[pos]
    pos += 1
    value = byte & 0x7F
    while byte & 0x80:
        byte = data[pos]
        pos += 1
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, pos
