"""The git commands a batch needs (issue 37): worktrees, commits, rebase, fast-forward.

Every command goes through ``jlgcli.process.git`` (the one way jlgcli runs git: argv
lists, own process group, its time limit, the kill ladder); nothing goes through a
shell. What git prints is only read for yes/no answers, branch names and diff stats.
"""

from __future__ import annotations

import functools
from pathlib import Path

from jlgcli.process import git as gitrun
from jlgcli.process.git import GitError
from jlgcli.process.result import CommandResult

__all__ = ["CommandResult", "GitError", "git"]

# jlgcli's own folders never go into a task's commit (runs, worktrees, ledgers).
OWN_PATHS = (":(exclude).jlgcli", ":(exclude)ledger")
# Who commits and rebases a task's work (the user's git may have no identity set).
AS_JLGCLI = ("-c", "user.name=jlgcli", "-c", "user.email=jlgcli@localhost")
# A task's commit starts no repository maintenance (``git maintenance run --auto``, the
# auto gc): several tasks commit at once into one object store, where a second gc waits
# on the first's lock, and each costs a process; the user's next commit runs it instead.
NO_MAINTENANCE = ("-c", "maintenance.auto=false", "-c", "gc.auto=0")


def git(cwd: Path, *argv: str, check: bool = True) -> CommandResult:
    """``git argv`` in ``cwd``, its words in English; with ``check``, a failure raises
    ``GitError`` (a batch's git must mostly succeed: checked unless told otherwise)."""
    return gitrun.run(cwd, *argv, check=check, env=gitrun.C_LOCALE)


def toplevel(cwd: Path) -> Path | None:
    """The root of the git work tree holding ``cwd``, or None outside a repository."""
    top = git(cwd, "rev-parse", "--show-toplevel", check=False).answer  # no git: None too
    return Path(top) if top else None


def head(cwd: Path) -> str:
    """The commit checked out in ``cwd``."""
    return git(cwd, "rev-parse", "HEAD").stdout.strip()


def current_branch(cwd: Path) -> str | None:
    """The branch checked out in ``cwd`` (None when detached)."""
    done = git(cwd, "symbolic-ref", "--quiet", "--short", "HEAD", check=False)
    return done.stdout.strip() or None if done.ok else None


def dirty(cwd: Path) -> list[str]:
    """Changed, staged or untracked paths in ``cwd`` (jlgcli's own folders left out)."""
    done = git(cwd, "status", "--porcelain", "--untracked-files=normal", "--", ".", *OWN_PATHS)
    return [line[3:] for line in done.stdout.splitlines() if line.strip()]


def branch_exists(repo: Path, branch: str) -> bool:
    return git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", check=False).ok


def branches(repo: Path, prefix: str) -> set[str]:
    """The local branches whose names start with ``prefix`` (one git call for them all)."""
    done = git(repo, "for-each-ref", "--format=%(refname)", f"refs/heads/{prefix}", check=False)
    names = (line.strip().removeprefix("refs/heads/") for line in done.stdout.splitlines())
    return {name for name in names if name} if done.ok else set()


def add_worktree(repo: Path, path: Path, branch: str, base: str) -> None:
    """A new worktree at ``path`` on a new ``branch`` starting at ``base``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    git(repo, "worktree", "add", "-b", branch, str(path), base)


@functools.lru_cache(maxsize=8)
def user_identity(repo: Path) -> str | None:
    """``Name <email>`` of the user's git identity in ``repo`` (None when git has none):
    a task's commit is authored by the user who asked for it (jlgcli is its committer).
    Asked once per repository and batch: every task commits with it."""
    done = git(repo, "var", "GIT_AUTHOR_IDENT", check=False)
    name, sep, _ = done.stdout.strip().rpartition(">")
    return f"{name}{sep}" if done.ok and sep and "<" in name else None


def commit_all(worktree: Path, message: str, *, author: str | None = None) -> bool:
    """Commit every change in ``worktree`` (jlgcli's folders left out); False when none.
    ``author``: ``Name <email>`` (else jlgcli's own identity, also always the committer)."""
    git(worktree, "add", "-A", "--", ".", *OWN_PATHS)
    by = ["--author", author] if author else []
    done = git(worktree, *AS_JLGCLI, *NO_MAINTENANCE, "commit", "--quiet", "--no-verify",
               *by, "-m", message, check=False)  # fmt: skip
    if done.ok:
        return True
    # Asked only when the commit failed (one git process less for every done task, each
    # ~25 ms of CPU with its supervisor): nothing staged is "no changes", else a failure.
    if git(worktree, "diff", "--cached", "--quiet", check=False).ok:
        return False
    raise GitError(done)


def ahead(repo: Path, branch: str, base: str) -> int:
    """How many commits ``branch`` has that ``base`` does not."""
    done = git(repo, "rev-list", "--count", f"{base}..{branch}", check=False)
    return int(done.stdout.strip() or 0) if done.ok else 0


def diff_stat(repo: Path, base: str, branch: str) -> str:
    """``N files changed, +A -D`` between ``base`` and ``branch`` ('' when none)."""
    done = git(repo, "diff", "--shortstat", f"{base}...{branch}", check=False)
    return done.stdout.strip() if done.ok else ""


def rebase(worktree: Path, onto: str) -> bool:
    """Rebase the worktree's branch onto ``onto``; on a conflict abort it and return False."""
    done = git(worktree, *AS_JLGCLI, "rebase", "--quiet", onto, check=False)
    if done.ok:
        return True
    git(worktree, "rebase", "--abort", check=False)
    return False


def fast_forward(repo: Path, branch: str) -> bool:
    """Fast-forward the branch checked out in ``repo`` to ``branch`` (only if it is one)."""
    return git(repo, "merge", "--ff-only", "--quiet", branch, check=False).ok


def remove_worktree(repo: Path, path: Path) -> bool:
    """Remove a worktree only when it holds nothing uncommitted (never ``--force``)."""
    if not path.exists():
        git(repo, "worktree", "prune", check=False)
        return True
    if dirty(path):
        return False
    return git(repo, "worktree", "remove", str(path), check=False).ok


def delete_merged_branch(repo: Path, branch: str) -> bool:
    """``git branch -d``: git itself refuses when the branch is not merged."""
    return git(repo, "branch", "-d", branch, check=False).ok
