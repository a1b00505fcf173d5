"""``project_root``: where runs and the ledger live (issue 19 item 9, F-006)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jlgcli.artifacts import project_root, under_project
from jlgcli.artifacts.project import PROJECT_FILE_NAME, require_own_folder
from jlgcli.config import resolve as config
from jlgcli.errors import ExitCode, JlgError


def test_the_project_file_name_is_the_configs() -> None:
    assert PROJECT_FILE_NAME == config.PROJECT_FILE_NAME


def test_the_nearest_project_file_wins_over_the_git_root(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    project = tmp_path / "app"
    sub = project / "src"
    sub.mkdir(parents=True)
    (project / PROJECT_FILE_NAME).write_text("{}", encoding="utf-8")
    assert project_root(sub) == project.resolve()


def test_else_the_git_work_tree_root(tmp_path: Path) -> None:
    (tmp_path / ".git").write_text("gitdir: elsewhere\n", encoding="utf-8")  # a worktree
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    assert project_root(sub) == tmp_path.resolve()


def test_else_the_working_directory(tmp_path: Path) -> None:
    assert project_root(tmp_path) == tmp_path.resolve()


def test_under_project_keeps_absolute_paths(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    sub = tmp_path / "sub"
    sub.mkdir()
    assert under_project(Path(".jlgcli/runs"), sub) == tmp_path.resolve() / ".jlgcli" / "runs"
    assert under_project(tmp_path / "elsewhere", sub) == tmp_path / "elsewhere"


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_a_symlink_from_jlgcli_down_is_refused_with_its_path(tmp_path: Path) -> None:
    """Issue 46: .jlgcli, .jlgcli/worktrees, the ledger: never through a symlink."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    require_own_folder(tmp_path / ".jlgcli" / "worktrees")  # nothing there yet: fine
    (tmp_path / ".jlgcli").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(JlgError, match="symlink") as info:
        require_own_folder(tmp_path / ".jlgcli" / "worktrees")
    assert info.value.code == ExitCode.CANT_CREATE
    assert str(tmp_path / ".jlgcli") in info.value.message
    (tmp_path / "ledger").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(JlgError, match="symlink"):
        require_own_folder(tmp_path / "ledger")


def test_a_folder_of_another_user_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".jlgcli" / "runs").mkdir(parents=True)
    mine = (tmp_path / ".jlgcli").stat().st_uid
    require_own_folder(tmp_path / ".jlgcli" / "runs", owner=mine)
    with pytest.raises(JlgError, match="another user") as info:
        require_own_folder(tmp_path / ".jlgcli" / "runs", owner=mine + 1)
    assert str(tmp_path / ".jlgcli" / "runs") in info.value.message
