"""git for the dev loop: the reviewer's diff and the approved commit (seed 003 step 5, step 8)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.devproject import (
    git,
)

from jlgcli.dev.gitops import Git
from jlgcli.errors import DevExitCode, JlgError


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.name", "T")
    git(root, "config", "user.email", "t@example.invalid")
    return root


def test_no_commit_yet_everything_is_new(repo: Path) -> None:
    (repo / "a.txt").write_text("one\ntwo\n", encoding="utf-8")
    (repo / "skip").mkdir()
    (repo / "skip" / "x.md").write_text("hidden", encoding="utf-8")
    ops = Git(repo)
    ops.check_repository()
    assert not ops.has_head()
    assert ops.last_message() is None
    diff = ops.diff(exclude=["skip"])
    assert "diff --git a/a.txt b/a.txt\nnew file\n" in diff
    assert "+one\n+two\n" in diff
    assert "hidden" not in diff


def test_diff_changed_untracked_binary_and_commit(repo: Path) -> None:
    (repo / "a.txt").write_text("one\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "init")
    (repo / "a.txt").write_text("one\nmore\n", encoding="utf-8")
    (repo / "b.bin").write_bytes(b"\x00\x01")
    (repo / "é.txt").write_text("accent\n", encoding="utf-8")
    (repo / "ctx").mkdir()
    (repo / "ctx" / "live.md").write_text("live", encoding="utf-8")
    ops = Git(repo)
    diff = ops.diff(exclude=["ctx"])
    assert "+more" in diff
    assert "b/b.bin\nnew file\n--- /dev/null\n+++ b/b.bin\nBinary file\n" in diff
    assert "+accent" in diff
    assert "live" not in diff
    assert sorted(ops.changed_files(exclude=["ctx/live.md"])) == ["a.txt", "b.bin", "é.txt"]
    sha = ops.commit("feat(T-1): thing\n\nbody\n", exclude=["ctx/live.md"])
    assert sha == git(repo, "rev-parse", "HEAD").strip()
    assert ops.last_message() == "feat(T-1): thing\n\nbody"
    assert ops.changed_files() == ["ctx/live.md"]


def test_renames_are_listed_once(repo: Path) -> None:
    (repo / "old.txt").write_text("x\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "init")
    git(repo, "mv", "old.txt", "new.txt")
    assert Git(repo).changed_files() == ["new.txt"]


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(JlgError) as info:
        Git(tmp_path).check_repository()
    assert info.value.code == DevExitCode.CONFIGURATION
    assert f"not a git repository: {tmp_path}" in info.value.message


def test_git_missing_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "empty-bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    with pytest.raises(JlgError) as info:
        Git(tmp_path).check_repository()
    assert "git is not installed" in info.value.message


def test_failed_commit_names_command_and_output(repo: Path) -> None:
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'lint says no' >&2\nexit 1\n", encoding="utf-8")
    hook.chmod(0o755)
    (repo / "a.txt").write_text("x", encoding="utf-8")
    with pytest.raises(JlgError) as info:
        Git(repo).commit("msg\n")
    assert info.value.code == DevExitCode.TASK_FAILED
    assert f"`git commit --quiet -F -` failed in {repo} (exit 1)" in info.value.message
    assert "lint says no" in info.value.message


def test_commit_paths_takes_exactly_those_paths(repo: Path) -> None:
    """FR-4.2 step 8: only the task's files; the user's staged and other changes stay."""
    for name in ("keep.txt", "old.txt", "gone.txt", "br[a]ck.txt", "staged.txt"):
        (repo / name).write_text(name, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "init")
    (repo / "keep.txt").write_text("the user's edit", encoding="utf-8")
    (repo / "staged.txt").write_text("staged by the user", encoding="utf-8")
    git(repo, "add", "staged.txt")
    git(repo, "mv", "old.txt", "new.txt")
    (repo / "gone.txt").unlink()
    (repo / "br[a]ck.txt").write_text("changed", encoding="utf-8")
    (repo / "brack.txt").write_text("a glob of br[a]ck.txt would match it", encoding="utf-8")
    (repo / "added.txt").write_text("new", encoding="utf-8")
    ops = Git(repo)
    entries = {e.path: e for e in ops.status()}
    assert entries["new.txt"].source == "old.txt" and entries["added.txt"].untracked
    task = ["new.txt", "old.txt", "gone.txt", "br[a]ck.txt", "added.txt"]
    sha = ops.commit_paths("feat(T-1): x\n\nbody\n", task)
    assert sha == git(repo, "rev-parse", "HEAD").strip()
    shown = git(repo, "show", "--name-status", "--format=%B", "HEAD")
    assert shown.startswith("feat(T-1): x\n\nbody\n")
    changes = {tuple(line.split("\t")[1:]) for line in shown.splitlines() if "\t" in line}
    assert changes == {("old.txt", "new.txt"), ("gone.txt",), ("br[a]ck.txt",), ("added.txt",)}
    assert sorted(git(repo, "status", "--porcelain").splitlines()) == [
        " M keep.txt",
        "?? brack.txt",
        "M  staged.txt",
    ]
