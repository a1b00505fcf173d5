"""Setup warnings once per project, remembered under .jlgcli/ (FR-8.1, issues 36, 49)."""

from __future__ import annotations

from pathlib import Path

from jlgcli.dev.config import DevConfig
from jlgcli.dev.notices import remember, shown_before, to_show, unset_commands
from jlgcli.dev.project import ProjectPaths


def test_unset_commands() -> None:
    config = DevConfig.model_validate({"validation": {"commands": {"test": "t", "lint": ""}}})
    assert unset_commands(config) == [
        "validation.commands.lint is not set; lint is skipped",
        "validation.commands.typecheck is not set; typecheck is skipped",
        "validation.commands.build is not set; build is skipped",
    ]


def test_shown_once_then_only_new_ones_and_all_when_verbose(tmp_path: Path) -> None:
    paths = ProjectPaths.from_config(tmp_path, DevConfig())
    assert to_show(paths, ["a"], verbose=False) == ["a"]
    remember(paths, ["a"])  # no context/ yet: nothing is written before the run starts
    assert not paths.notices.exists()
    paths.context.mkdir()
    remember(paths, ["a"])
    assert shown_before(paths) == ["a"]
    assert to_show(paths, ["a"], verbose=False) == []
    assert to_show(paths, ["a"], verbose=True) == ["a"]
    assert to_show(paths, ["a", "b"], verbose=False) == ["b"]


def test_remembered_where_git_ignores_them(tmp_path: Path) -> None:
    """Issue 49: ``context/.jlgcli-notices.json`` stayed untracked after the first commit."""
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    paths = ProjectPaths.from_config(tmp_path, DevConfig())
    paths.context.mkdir()
    remember(paths, ["a"])
    assert shown_before(paths) == ["a"]
    assert paths.notices.is_relative_to(tmp_path / ".jlgcli")
    status = subprocess.run(["git", "status", "--porcelain", "-uall"], cwd=tmp_path,
                            capture_output=True, text=True, check=True)  # fmt: skip
    assert status.stdout == ""


def test_a_file_that_is_not_ours_is_ignored(tmp_path: Path) -> None:
    paths = ProjectPaths.from_config(tmp_path, DevConfig())
    paths.notices.parent.mkdir(parents=True)
    for text in ("{", '{"format": 99, "shown": ["a"]}', '{"format": 1, "shown": "a"}'):
        paths.notices.write_text(text, encoding="utf-8")
        assert shown_before(paths) == []


def test_an_unwritable_context_only_repeats_them(tmp_path: Path) -> None:
    paths = ProjectPaths.from_config(tmp_path, DevConfig())
    paths.context.mkdir()
    paths.notices.mkdir(parents=True)  # a directory where the file should be
    remember(paths, ["a"])
    assert to_show(paths, ["a"], verbose=False) == ["a"]
