"""The work tree's git directory is found once a run, without spawning git outside a
repository (issue 18: loop overhead); snapshots and their diff stat (issue 17)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from jlgcli.runner import worktree


def _no_git(*args: object, **kwargs: object) -> str | None:
    raise AssertionError(f"git was spawned: {args}")


def test_outside_any_repository_git_is_not_spawned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worktree, "_git", _no_git)
    (tmp_path / "sub").mkdir()
    assert worktree.git_dir(tmp_path / "sub", environ={}) is None


def test_inside_a_repository_git_answers(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "deep" / "er").mkdir(parents=True)
    found = worktree.git_dir(tmp_path / "deep" / "er", environ={})
    assert found is not None and Path(found) == (tmp_path / ".git").resolve()


def test_git_environment_variables_always_ask_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[str, ...]] = []

    def fake_git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str | None:
        asked.append(args)
        return "/elsewhere/.git"

    monkeypatch.setattr(worktree, "_git", fake_git)
    assert worktree.git_dir(tmp_path, environ={"GIT_DIR": "/elsewhere/.git"}) == "/elsewhere/.git"
    assert asked == [("rev-parse", "--absolute-git-dir")]


def test_a_changed_file_shows_in_the_diff_stat(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    repo = worktree.git_dir(tmp_path, environ={})
    (tmp_path / "a.txt").write_text("one\n", encoding="utf-8")
    before = worktree.snapshot(tmp_path, repo=repo)
    (tmp_path / "a.txt").write_text("one\ntwo\n", encoding="utf-8")
    after = worktree.snapshot(tmp_path, repo=repo)
    assert before and after and before != after
    assert worktree.diff_stat(tmp_path, before, after) == {
        "files": 1, "insertions": 1, "deletions": 0,
    }  # fmt: skip
