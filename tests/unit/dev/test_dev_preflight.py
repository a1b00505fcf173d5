"""What the end of the loop needs, checked before the first agent call (issue 36)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.devproject import git, make_project

from jlgcli.dev.config import DevConfig
from jlgcli.dev.gitops import Git
from jlgcli.dev.plan_edit import load_plan
from jlgcli.dev.preflight import check_ready, command_problems, git_problems
from jlgcli.errors import DevExitCode, JlgError


def config(**commands: object) -> DevConfig:
    return DevConfig.model_validate({"validation": {"commands": commands}})


def test_commands_found_on_path_or_in_the_project(tmp_path: Path) -> None:
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "check.sh").write_text("", encoding="utf-8")
    found = config(lint="python -m x", test=["scripts/check.sh"], build="./nope.sh",
                   typecheck="no-such-program-36")  # fmt: skip
    assert [problem for problem, _ in command_problems(found, tmp_path)] == [
        "validation.commands.typecheck: `no-such-program-36` is not found",
        "validation.commands.build: `./nope.sh` is not found",
    ]


def test_a_clean_repository_is_ready(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    task = load_plan(root / "docs" / "implementation-plan.md", "plan").find("TASK-001")
    check_ready(Git(root), config(test="python -V"), task)


def test_every_problem_with_its_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_project(tmp_path / "p")
    task = load_plan(root / "docs" / "implementation-plan.md", "plan").find("TASK-001")
    git(root, "config", "--unset", "user.name")
    git(root, "config", "--unset", "user.email")
    git(root, "config", "user.useConfigOnly", "true")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    (root / "tests" / "README.md").write_text("changed\n", encoding="utf-8")
    (root / "greetings" / "core.py").write_text("x = 1\n", encoding="utf-8")  # untracked: fine
    git_dir = Path(git(root, "rev-parse", "--absolute-git-dir").strip())
    (git_dir / "rebase-merge").mkdir()
    problems = git_problems(Git(root), task)
    assert [p for p, _ in problems] == [
        "git has no identity to commit with (user.name, user.email)",
        f"a rebase is in progress in {root}",
    ]
    (root / "docs" / "implementation-plan.md").write_text("edited\n", encoding="utf-8")
    scoped = task.__class__(**{**task.__dict__, "fields": {"files_in_scope": "`tests/README.md`"}})
    problems = git_problems(Git(root), scoped)
    assert problems[-1][0].startswith("files in scope of TASK-001 have uncommitted changes: "
                                      "tests/README.md")  # fmt: skip
    with pytest.raises(JlgError) as info:
        check_ready(Git(root), config(), scoped)
    assert info.value.code == DevExitCode.CONFIGURATION
    assert "fix: git config --global user.name" in info.value.message


def test_unmerged_files(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    git(root, "checkout", "-q", "-b", "other")
    (root / "README.md").write_text("other\n", encoding="utf-8")
    git(root, "commit", "-qam", "other")
    git(root, "checkout", "-q", "-")
    (root / "README.md").write_text("mine\n", encoding="utf-8")
    git(root, "commit", "-qam", "mine")
    import subprocess

    subprocess.run(["git", "merge", "-q", "other"], cwd=root, capture_output=True, check=False)
    problems = [p for p, _ in git_problems(Git(root), None)]
    assert "unmerged files: README.md" in problems
    assert any(p.startswith("a merge is in progress") for p in problems)
