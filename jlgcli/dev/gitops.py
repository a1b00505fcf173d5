"""The git operations of the dev loop: the diff shown to reviewers and the final commit.

Every call goes through ``jlgcli.process.git`` (the one way jlgcli runs git); a
failure is a ``JlgError`` naming the command and an output excerpt (FR-8.2).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from jlgcli import records
from jlgcli.dev.fsutil import read_text_capped
from jlgcli.errors import DevExitCode, JlgError
from jlgcli.process import git
from jlgcli.process.result import CommandResult
from jlgcli.records import record


@record
class StatusEntry:
    """One line of ``git status``: the path, whether it is untracked, a rename's source."""

    path: str
    untracked: bool
    source: str | None = None
    unmerged: bool = False  # a merge conflict not resolved yet


_UNMERGED = frozenset({"DD", "AU", "UD", "UA", "DU", "AA", "UU"})
UNTRACKED_LIMIT = 100_000  # bytes of one new file shown in the diff
UNQUOTED = ("-c", "core.quotepath=false")  # paths as they are, not octal escapes


class Git:
    """git in the project root."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _git(self, *args: str, stdin: str | None = None, hooks: bool = False) -> CommandResult:
        """``hooks``: the command runs the user's hooks (a commit), which may run a test
        suite: no time limit (``jlgcli.process.git``)."""
        result = git.run(self.root, *UNQUOTED, *args, stdin=stdin, hooks=hooks)
        return records.replace(result, argv=("git", *args))  # messages: the command asked

    def _checked(
        self,
        *args: str,
        stdin: str | None = None,
        code: int = DevExitCode.TASK_FAILED,
        hooks: bool = False,
    ) -> str:
        result = self._git(*args, stdin=stdin, hooks=hooks)
        if not result.ok:
            raise JlgError(
                code,
                f"`{result.command}` failed in {self.root} ({result.describe()}):\n"
                f"{result.excerpt()}",
                "fix the git problem shown above, then run: jlgcli dev resume",
            )
        return result.stdout

    def check_repository(self) -> None:
        """Raise ``JlgError`` (exit 2) unless the root is inside a git work tree."""
        result = self._git("rev-parse", "--is-inside-work-tree")
        if not result.ok or result.stdout.strip() != "true":
            detail = "git is not installed" if result.missing else result.excerpt(3)
            raise JlgError(
                DevExitCode.CONFIGURATION,
                f"not a git repository: {self.root} ({detail})",
                "the loop commits its work: run `git init` and commit once first",
            )

    def has_identity(self) -> bool:
        """Can ``git commit`` name its author and committer here (user.name, user.email)?"""
        return all(
            self._git("var", name).ok for name in ("GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT")
        )

    def has_head(self) -> bool:
        return self._git("rev-parse", "--verify", "--quiet", "HEAD").ok

    def git_dir(self) -> Path:
        """The repository's git directory (``.git``, or a worktree's own)."""
        return Path(self._checked("rev-parse", "--absolute-git-dir").strip())

    def status(self, exclude: Sequence[str] = ()) -> list[StatusEntry]:
        """Every path with uncommitted changes (staged, unstaged or untracked), in git's order."""
        out = self._checked(
            "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".",
            *_excludes(exclude),
        )  # fmt: skip
        found: list[StatusEntry] = []
        entries = out.split("\0")
        index = 0
        while index < len(entries):
            entry = entries[index]
            index += 1
            if len(entry) < 4:
                continue
            source = None
            if entry[0] in "RC":  # a rename is followed by its source path
                source = entries[index] if index < len(entries) else None
                index += 1
            code = entry[:2]
            found.append(StatusEntry(entry[3:], code == "??", source, code in _UNMERGED))
        return found

    def changed_files(self, exclude: Sequence[str] = ()) -> list[str]:
        """Paths with uncommitted changes (staged, unstaged or untracked), relative to the root."""
        return [entry.path for entry in self.status(exclude)]

    def diff(self, exclude: Sequence[str] = ()) -> str:
        """The working tree's changes since HEAD, new files included, ``exclude`` paths left out."""
        parts: list[str] = []
        if self.has_head():
            parts.append(self._checked("diff", "HEAD", "--", ".", *_excludes(exclude)))
            untracked = self._checked(
                "ls-files", "--others", "--exclude-standard", "-z", "--", ".", *_excludes(exclude)
            )
        else:  # no commit yet: everything is new
            untracked = self._checked(
                "ls-files", "--others", "--cached", "--exclude-standard", "-z", "--", ".",
                *_excludes(exclude),
            )  # fmt: skip
        for name in filter(None, untracked.split("\0")):
            parts.append(self._new_file_diff(name))
        return "".join(parts)

    def _new_file_diff(self, name: str) -> str:
        path = self.root / name
        header = f"diff --git a/{name} b/{name}\nnew file\n--- /dev/null\n+++ b/{name}\n"
        try:
            text, left = read_text_capped(path, UNTRACKED_LIMIT)
        except OSError:
            return header + "(unreadable)\n"
        if "\0" in text:
            return header + "Binary file\n"
        body = "".join(f"+{line}\n" for line in text.splitlines())
        more = f"… ({left} more bytes)\n" if left else ""
        return f"{header}@@ new file @@\n{body}{more}"

    def last_message(self) -> str | None:
        """The message of HEAD, or None when there is no commit."""
        if not self.has_head():
            return None
        return self._checked("log", "-1", "--format=%B").strip()

    def head_sha(self) -> str:
        return self._checked("rev-parse", "HEAD").strip()

    def commit(self, message: str, exclude: Sequence[str] = ()) -> str:
        """Stage every change except ``exclude``, commit with ``message``; return the new sha."""
        self._checked("add", "-A", "--", ".", *_excludes(exclude))
        self._checked("commit", "--quiet", "-F", "-", stdin=message, hooks=True)
        return self.head_sha()

    def commit_paths(self, message: str, paths: Sequence[str]) -> str:
        """Commit exactly ``paths`` as they are in the work tree; return the new sha.

        Whatever else is staged or changed stays as it is, uncommitted. Paths
        are literal (no glob) and go through stdin, so any number fits.
        """
        gone = [p for p in paths if not _on_disk(self.root / p)]
        present = [p for p in paths if _on_disk(self.root / p)]
        literal = ("--literal-pathspecs",)
        from_stdin = ("--pathspec-from-file=-", "--pathspec-file-nul")
        if gone:
            self._checked(
                *literal, "rm", "-q", "--cached", "--ignore-unmatch", *from_stdin,
                stdin=_nul_list(gone),
            )  # fmt: skip
        if present:
            self._checked(*literal, "add", "-A", *from_stdin, stdin=_nul_list(present))
        self._checked(
            *literal, "commit", "--quiet", "--only", "-m", message, *from_stdin,
            stdin=_nul_list(paths), hooks=True,
        )  # fmt: skip
        return self.head_sha()


def _on_disk(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def _nul_list(paths: Sequence[str]) -> str:
    return "".join(f"{p}\0" for p in paths)


def _excludes(paths: Sequence[str]) -> list[str]:
    return [f":(exclude){p}" for p in paths]
