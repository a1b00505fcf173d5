"""A loop's snapshots of its work tree: at most one git process per unchanged iteration (issue 50).

``worktree.snapshot`` copies the user's index into a temporary one, ``git add -A`` and
``git write-tree`` every time: two git processes per iteration, three with the diff
stat, each one a process start between two agent calls. ``TreeSnapshots`` keeps one
private index for the whole run instead (the user's index is still never touched):

* the first snapshot copies the user's index (git's stat cache), ``add -A`` and
  ``write-tree``, as before;
* a later one first checks the stamps (``tree_proof``) taken with the snapshot before:
  if no directory and no file of the tree changed, the tree is the one before and no
  process starts at all;
* otherwise it is a single ``git add -A -v`` on that index: git compares each file
  with the stat data it kept, re-reads what changed and names every path it added,
  updated or removed. Nothing named: the tree is the one before, and the diff stat is
  zero without asking git again. Something named: ``write-tree`` gives the new tree and
  ``git diff --numstat`` the stat, as before.

jlgcli's own files (``.jlgcli/``, the runs root, the ledger, the workbench, the events
file) are left out of every ``add`` and every diff by pathspec. The files jlgcli's own
stdout and stderr go to are found by identity (``worktree.OutputFiles``) once, at the
first snapshot, and afterwards among the paths ``add -v`` names, so a stream's file that
appears in the tree later costs no extra git process either.
"""

from __future__ import annotations

import shutil
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from jlgcli.process import git
from jlgcli.runner import worktree
from jlgcli.runner.worktree import OutputFiles

if TYPE_CHECKING:
    from jlgcli.runner.tree_proof import TreeProof, Walk

Stat = dict[str, int]


class TreeSnapshots:
    """The snapshots of one run's work tree through a private index kept for the run."""

    def __init__(
        self, cwd: Path, own: Callable[[], tuple[Path, ...]], outputs: OutputFiles
    ) -> None:
        """``own``: jlgcli's own files in the tree (its directories, the events file and the
        output files found so far); ``outputs``: the files jlgcli's stdout and stderr go to."""
        self.cwd, self._own, self._outputs = cwd, own, outputs
        self.tree: str | None = None  # the last snapshot's tree id
        self._index: Path | None = None
        self._skip: list[str] = []  # the exclude pathspecs of jlgcli's own files
        self._known = -1  # how many output files the pathspecs above leave out
        self._proof: TreeProof | None = None  # the stamps taken with the last snapshot
        self._walkable = True  # False once the tree proved too big to stamp

    def take(self, repo: str) -> str | None:
        """The tree id of the work tree now, or None (git failed: no evidence)."""
        if self._proof is not None and self.tree is not None and self._proof.holds():
            return self.tree  # not one stamp changed: the same tree, no process at all
        self._proof = None
        first = self._index is None
        index = self._index if self._index is not None else self._open(repo)
        if first:
            self._outputs.paths(self.cwd)  # one ``ls-files`` at most, once a run
        self._refresh_skip()
        walk = self._walk()  # before git reads the tree: a later change breaks the proof
        env = {"GIT_INDEX_FILE": str(index)}
        named = git.run(self.cwd, "add", "-A", "-v", "--", ".", *self._skip, env=env).answer
        if named is None:
            self.tree = None
            return None
        changed = _named_paths(named)
        if changed and self._outputs.wanted:  # a stream's file that appeared in the tree
            found = set(self._outputs.claim(self.cwd, changed))
            changed = [path for path in changed if path not in found]
            self._refresh_skip()  # left out from now on; every diff leaves it out too
            walk = None  # it was stamped as the tree's: the next walk leaves it out
        if first or changed or self.tree is None:
            self.tree = git.run(self.cwd, "write-tree", env=env).answer
        # else git named nothing: the same tree, no second process
        if walk is not None and self.tree is not None:
            self._proof = walk.proof(index)
        return self.tree

    def _walk(self) -> Walk | None:
        from jlgcli.runner.tree_proof import TooBigError, TreeProof

        if not self._walkable:
            return None
        try:
            return TreeProof.walk(self.cwd, self._own())
        except TooBigError:
            self._walkable = False  # a big tree: one git process an iteration, as before
            return None

    def diff_stat(self, before: str | None, after: str | None) -> Stat | None:
        """Files changed, insertions and deletions between two snapshots, own files left out."""
        return worktree.diff_stat(self.cwd, before, after, exclude=self._skip)

    def close(self) -> None:
        """Remove the private index (also done at exit, or when the object is collected)."""
        if self._index is not None:
            shutil.rmtree(self._index.parent, ignore_errors=True)

    def _open(self, repo: str) -> Path:
        import tempfile  # with random and hashlib, ~3 ms: once a run, inside a repository

        scratch = Path(tempfile.mkdtemp(prefix="jlgcli-index-"))
        weakref.finalize(self, shutil.rmtree, scratch, ignore_errors=True)
        self._index = scratch / "index"
        real = Path(repo) / "index"
        if real.is_file():
            shutil.copyfile(real, self._index)  # git's stat cache: the first add stays fast
        return self._index

    def _refresh_skip(self) -> None:
        if self._known == len(self._outputs.found):
            return
        inside = (worktree._relative(self.cwd, path) for path in self._own())
        self._skip = [f":(exclude,literal){path}" for path in inside if path is not None]
        self._known = len(self._outputs.found)


def _named_paths(verbose: str) -> list[str]:
    """The paths of ``git add -v``'s lines (``add 'x'``, ``remove 'x'``), relative to the tree.

    A line of any other shape still counts as a change (its text stands for the path):
    a change is never missed because git worded it differently.
    """
    paths = []
    for line in verbose.splitlines():
        verb, _, rest = line.partition(" ")
        quoted = verb in ("add", "remove") and len(rest) >= 2 and rest[0] == rest[-1] == "'"
        paths.append(rest[1:-1] if quoted else line)
    return paths
