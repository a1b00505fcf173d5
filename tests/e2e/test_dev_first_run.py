"""A new user's first dev-loop runs, through ``jlgcli dev``, ``aidevloop``, ``adl`` (issue 36).

``dev init`` instead of a wall of setup; what the end of the loop needs
(git identity, a tree the task's changes can be told apart in, validation
commands found and trusted) checked before the first agent call is paid for;
setup warnings once per project; seed 003's exit codes 0/1/2/3 (FR-8.3)
whatever fails; and the path ``dev init`` → fill the plan → ``config trust`` →
``dev run --yes`` ending in a commit of the task's files only.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from support.dev_e2e import (
    ENTRY_POINTS,
    commits,
    committed_files,
    entry_argv,
    env_with,
    implement,
    prompts_sent,
    review,
    run_entry,
    write_script,
)
from support.devproject import git, make_project

from jlgcli.dev.plan import parse_plan

pytestmark = pytest.mark.slow

PLAN = """# Implementation plan: greetings

## Milestone M1

### TASK-001: Greeting function

- **ID:** TASK-001
- **Milestone:** M1
- **Status:** pending
- **Complexity:** S
- **Dependencies:** none
- **What to build:** `greet(name)` in `greetings/core.py` returns `Hello, <name>!`.
- **Files in scope:** `greetings/core.py`, `tests/test_core.py`
- **Constraints:** Standard library only.
- **Validation criteria:**
  - the unit tests pass
- **Context references:** `docs/architecture.md`
"""


def new_repository(root: Path) -> Path:
    """A small Python project with one commit, as a user has it before the dev loop."""
    (root / "greetings").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "greetings"\n', encoding="utf-8")
    (root / "greetings" / "__init__.py").write_text("", encoding="utf-8")
    (root / "tests" / "README.md").write_text("tests\n", encoding="utf-8")
    git(root, "init", "-q")
    git(root, "config", "user.name", "New User")
    git(root, "config", "user.email", "new@example.invalid")
    git(root, "config", "commit.gpgsign", "false")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def jlgcli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_entry("jlgcli dev", root, *args)


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_a_new_users_path_ends_in_a_commit_of_the_task_only(tmp_path: Path, entry: str) -> None:
    # issue 36: init → fill the plan → config trust → run --yes
    root = new_repository(tmp_path / "p")
    init = run_entry(entry, root, "init", "--yes")
    assert init.returncode == 0, init.stderr
    for name in ("docs/requirements.md", "docs/architecture.md", "docs/implementation-plan.md"):
        assert f"wrote {name}" in init.stdout
    assert "jlgcli config trust .aidevloop.json" in init.stdout
    config = json.loads((root / ".aidevloop.json").read_text(encoding="utf-8"))
    assert config["validation"]["commands"] == {"test": "python -m unittest discover -s tests"}
    example = (root / "docs" / "implementation-plan.md").read_text(encoding="utf-8")
    assert parse_plan(example).tasks[0].id == "TASK-001"  # the accepted format
    (root / "docs" / "implementation-plan.md").write_text(PLAN, encoding="utf-8")
    untrusted = run_entry(entry, root, "run", "--yes")
    assert untrusted.returncode == 2
    assert "jlgcli config trust" in untrusted.stderr
    trusted = subprocess.run(
        [entry_argv("jlgcli dev")[0], "config", "trust", ".aidevloop.json"],
        cwd=root, env=env_with(), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert trusted.returncode == 0, trusted.stderr
    script = write_script(tmp_path / "s.json", implement(), review())
    done = run_entry(entry, root, "run", "--yes", script=script)
    assert done.returncode == 0, done.stdout + done.stderr
    assert commits(root) == [
        "feat(TASK-001): greeting function",
        "jlgcli dev: add prompt templates",
        "initial",
    ]
    assert sorted(committed_files(root)) == [
        "context/completed/TASK-001/current-task.md",
        "context/completed/TASK-001/implementation-notes.md",
        "context/completed/TASK-001/review.md",
        "greetings/core.py",
        "tests/test_core.py",
    ]
    assert (
        'First, in a commit of their own ("jlgcli dev: add prompt templates"): jlgcli\'s '
        "prompt templates (3):" in done.stderr
    )


def test_init_never_overwrites_and_asks_first(tmp_path: Path) -> None:
    root = new_repository(tmp_path / "p")
    (root / "docs").mkdir()
    (root / "docs" / "requirements.md").write_text("# Mine\n", encoding="utf-8")
    unattended = run_entry("adl", root, "init")  # no terminal, no --yes: nothing written
    assert unattended.returncode == 1
    assert "pass --yes" in unattended.stderr and "nothing was written" in unattended.stderr
    assert not (root / ".aidevloop.json").exists()
    done = run_entry("aidevloop", root, "init", "--yes", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["kept"] == ["docs/requirements.md"]
    assert "docs/requirements.md" not in report["written"]
    assert (root / "docs" / "requirements.md").read_text(encoding="utf-8") == "# Mine\n"
    again = jlgcli(root, "init", "--yes", "--json")
    assert json.loads(again.stdout)["written"] == []


# -- before the first agent call -------------------------------------------------------------


def no_identity(root: Path) -> dict[str, str]:
    git(root, "config", "--unset", "user.name")
    git(root, "config", "--unset", "user.email")
    git(root, "config", "user.useConfigOnly", "true")  # no guess from the host name
    return {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_a_missing_git_identity_stops_before_any_agent_call(tmp_path: Path, entry: str) -> None:
    # issue 36: found at the commit (exit 3) after every agent call was paid for, before
    root = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.json", implement(), review())
    done = run_entry(entry, root, "run", "--yes", env=env_with(script, **no_identity(root)))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "git has no identity" in done.stderr
    assert "git config --global user.name" in done.stderr
    assert prompts_sent(script) == []
    assert not (root / "context").exists()


def test_each_problem_is_listed_with_its_fix(tmp_path: Path) -> None:
    root = make_project(
        tmp_path / "p", {"validation": {"commands": {"lint": "no-such-linter --check"}}}
    )
    (root / "greetings" / "core.py").write_text("# my own edit\n", encoding="utf-8")
    git(root, "add", "greetings/core.py")
    git(root, "commit", "-q", "-m", "core")
    (root / "greetings" / "core.py").write_text("# changed again\n", encoding="utf-8")
    script = write_script(tmp_path / "s.json", implement(), review())
    done = run_entry("aidevloop", root, "run", "--yes", script=script)
    assert done.returncode == 2
    assert "validation.commands.lint: `no-such-linter` is not found" in done.stderr
    assert "files in scope of TASK-001 have uncommitted changes: greetings/core.py" in done.stderr
    assert "git stash push -- greetings/core.py" in done.stderr
    assert prompts_sent(script) == []


def test_a_merge_in_progress_stops_resume_too(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    (root / "context").mkdir()
    (root / "context" / "current-task.md").write_text(
        "### TASK-001: x\n\n- **ID:** TASK-001\n", encoding="utf-8"
    )
    git_dir = Path(git(root, "rev-parse", "--absolute-git-dir").strip())
    (git_dir / "MERGE_HEAD").write_text(git(root, "rev-parse", "HEAD"), encoding="utf-8")
    done = run_entry("adl", root, "resume", "--yes")
    assert done.returncode == 2
    assert "a merge is in progress" in done.stderr and "git merge --abort" in done.stderr


# -- exit codes: 0/1/2/3 whatever fails (FR-8.3) ---------------------------------------------


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_an_unreadable_jlgcli_config_is_a_configuration_error(tmp_path: Path, entry: str) -> None:
    # issue 36: exit 78 leaked from jlgcli's own codes, before
    root = make_project(tmp_path / "p")
    (Path(os.environ["JLGCLI_CONFIG_DIR"]) / "config.json").write_text("{", encoding="utf-8")
    done = run_entry(entry, root, "run", "--yes", "--json")
    assert done.returncode == 2, done.stderr
    assert json.loads(done.stdout)["exitCode"] == 2
    assert "is not valid JSON" in done.stderr


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_usage_errors_are_configuration_errors(tmp_path: Path, entry: str) -> None:
    # issue 36: `jlgcli dev resume --from-step 9` exited 64, before
    root = make_project(tmp_path / "p")
    for args in (("resume", "--from-step", "9"), ("run", "--no-such-flag"), ()):
        done = run_entry(entry, root, *args)
        assert done.returncode == 2, (args, done.stderr)


# -- warnings once per project ---------------------------------------------------------------


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_setup_warnings_once_per_project_and_with_verbose(tmp_path: Path, entry: str) -> None:
    # issue 36: five warnings on every run, before
    root = make_project(tmp_path / "p", {"validation": {"commands": {}}})
    plan = root / "docs" / "implementation-plan.md"
    plan.write_text(plan.read_text(encoding="utf-8").replace("pending", "done"), "utf-8")
    first = run_entry(entry, root, "run")
    assert first.returncode == 0, first.stderr
    for warning in (
        "optional document docs/data-models.md not found",
        "validation.commands.test is not set; test is skipped",
    ):
        assert warning in first.stdout
    second = run_entry(entry, root, "run")
    assert second.returncode == 0
    assert "warning:" not in second.stdout
    verbose = run_entry(entry, root, "run", "--verbose")
    assert "validation.commands.lint is not set" in verbose.stdout
    assert "optional document docs/ui-design.md not found" in verbose.stdout
