"""Setup warnings once per project, remembered in context/ (FR-8.1, issue 36)."""

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


def test_a_file_that_is_not_ours_is_ignored(tmp_path: Path) -> None:
    paths = ProjectPaths.from_config(tmp_path, DevConfig())
    paths.context.mkdir()
    for text in ("{", '{"format": 99, "shown": ["a"]}', '{"format": 1, "shown": "a"}'):
        paths.notices.write_text(text, encoding="utf-8")
        assert shown_before(paths) == []


def test_an_unwritable_context_only_repeats_them(tmp_path: Path) -> None:
    paths = ProjectPaths.from_config(tmp_path, DevConfig())
    paths.context.mkdir()
    paths.notices.mkdir()  # a directory where the file should be
    remember(paths, ["a"])
    assert to_show(paths, ["a"], verbose=False) == ["a"]
