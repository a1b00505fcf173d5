"""Failure answers, exit codes, task selection and what a run writes before it can start
(seed 003 FR-4.1, FR-4.3, FR-8.1, FR-8.3; issue 13).

In-process with the scripted agent and real git (as in ``test_dev_orchestrator.py``).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from support.dev_unit import (
    ScriptedAgent,
    Turn,
    implement_turn,
    review_turn,
    run_loop,
)
from support.devproject import EXAMPLE, git, make_project

from jlgcli.dev.orchestrator import DevOptions, DevResult, execute_dev
from jlgcli.dev.questions import Asker
from jlgcli.errors import DevExitCode, JlgError

GOOD = [Turn(implement_turn()), Turn(review_turn())]
ALWAYS_FAILS = ["python", "-c", "print('tests broken'); raise SystemExit(5)"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "proj")


def set_statuses(root: Path, *statuses: str) -> None:
    plan = root / "docs" / "implementation-plan.md"
    text = plan.read_text(encoding="utf-8")
    for status in statuses:
        text = text.replace("**Status:** pending", f"**Status:** {status}", 1)
    plan.write_text(text, encoding="utf-8")


# -- FR-4.3: "n" goes straight to the commit approval -------------------------------------------


def test_fr_4_3_n_after_an_exhausted_review_loop_skips_the_integration_check(
    tmp_path: Path,
) -> None:
    config = {"validation": {"maxReviewIterations": 1, "commands": {"test": ALWAYS_FAILS}}}
    root = make_project(tmp_path / "p", config)
    agent = ScriptedAgent([Turn(implement_turn()), Turn(review_turn()), Turn()])
    # y: review after the failed validation; n: accept the exhausted loop; y: commit
    result, out, err = run_loop(root, agent, ["y", "n", "y"])
    assert isinstance(result, DevResult) and result.status == "committed"
    assert err.count("Continue with another review iteration?") == 2
    assert "Integration Check" not in out
    body = git(root, "log", "-1", "--format=%B")
    assert "- the review loop used its 1 iteration(s)" in body


def test_fr_4_3_n_in_the_review_loop_after_an_integration_failure_goes_to_the_commit(
    tmp_path: Path,
) -> None:
    # test passes at step 4 and in the first review round, then fails from the integration on
    counter = (
        "import pathlib; p = pathlib.Path('runs.txt'); n = int(p.read_text()) if p.exists() "
        "else 0; p.write_text(str(n + 1)); raise SystemExit(1 if n >= 1 else 0)"
    )
    config = {
        "validation": {"maxReviewIterations": 1, "commands": {"test": ["python", "-c", counter]}}
    }
    root = make_project(tmp_path / "p", config)
    agent = ScriptedAgent(
        [Turn(implement_turn()), Turn(review_turn()), Turn(review_turn()), Turn()]
    )
    # y: back to the review loop after the integration failure; n: accept; y: commit
    result, out, err = run_loop(root, agent, ["y", "n", "y"])
    assert isinstance(result, DevResult) and result.status == "committed"
    assert out.count("Integration Check") == 1
    assert err.count("Continue with another review iteration?") == 2


def test_fr_4_3_the_integration_warning_carries_its_detail(tmp_path: Path) -> None:
    counter = (
        "import pathlib; p = pathlib.Path('runs.txt'); n = int(p.read_text()) if p.exists() "
        "else 0; p.write_text(str(n + 1)); raise SystemExit(1 if n == 1 else 0)"
    )
    root = make_project(
        tmp_path / "p", {"validation": {"commands": {"test": ["python", "-c", counter]}}}
    )
    result, _, err = run_loop(root, ScriptedAgent(list(GOOD)), ["n", "y"])
    assert isinstance(result, DevResult)
    body = git(root, "log", "-1", "--format=%B")
    assert "- integration check failed: test FAILED (exit 1), build skipped" in body
    assert "integration check failed: test FAILED (exit 1)" in err
    assert "warning carried to the commit: integration check failed: test FAILED" in err


# -- FR-8.3: a task failure nobody can answer is exit 3 -----------------------------------------


def run_without_terminal(root: Path, agent: ScriptedAgent) -> JlgError:
    err = io.StringIO()
    asker = Asker(assume_yes=False, interactive=False, err=err)
    with pytest.raises(JlgError) as info:
        execute_dev(
            DevOptions("run", directory=root), agent=agent, asker=asker, out=io.StringIO(), err=err
        )
    return info.value


def test_fr_8_3_validation_failure_without_a_terminal_exits_3(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", {"validation": {"commands": {"test": ALWAYS_FAILS}}})
    error = run_without_terminal(root, ScriptedAgent([Turn(implement_turn())]))
    assert error.code == DevExitCode.TASK_FAILED
    assert "Continue with another review iteration?" in error.message


def test_fr_8_3_agent_failure_without_a_terminal_exits_3(project: Path) -> None:
    error = run_without_terminal(project, ScriptedAgent([Turn(ok=False, error="boom")]))
    assert error.code == DevExitCode.TASK_FAILED
    assert "Retry the implement agent?" in error.message


def test_fr_8_3_commit_approval_without_a_terminal_stays_exit_1(project: Path) -> None:
    error = run_without_terminal(project, ScriptedAgent(list(GOOD)))
    assert error.code == DevExitCode.ABORTED  # nobody approved: not a task failure


# -- FR-4.1: nothing pending left --------------------------------------------------------------


def test_fr_4_1_only_an_in_progress_task_left_points_to_resume(project: Path) -> None:
    set_statuses(project, "done", "done", "in-progress")
    result, out, _ = run_loop(project, ScriptedAgent([]))
    assert isinstance(result, JlgError) and result.code == DevExitCode.CONFIGURATION
    assert "no pending task left: TASK-003 in progress" in result.message
    assert result.hint is not None and "jlgcli dev resume" in result.hint
    assert "are done" not in out


def test_fr_4_1_only_skipped_tasks_left_says_so(project: Path) -> None:
    set_statuses(project, "done", "skipped", "skipped")
    result, out, _ = run_loop(project, ScriptedAgent([]))
    assert isinstance(result, DevResult) and result.status == "nothing-to-do"
    assert "no pending task left in docs/implementation-plan.md" in out
    assert "not done: TASK-002 (skipped), TASK-003 (skipped)" in out
    assert "are done" not in out


# -- checks before writes; optional-document warnings once -------------------------------------


def test_not_a_git_repository_writes_nothing(tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "p"
    shutil.copytree(EXAMPLE, root)
    result, _, _ = run_loop(root, ScriptedAgent([]))
    assert isinstance(result, JlgError) and result.code == DevExitCode.CONFIGURATION
    assert not (root / "context").exists()
    assert not (root / "prompts").exists()


def test_agent_cli_missing_writes_nothing(
    project: Path, monkeypatch: pytest.MonkeyPatch, system_bin: Path
) -> None:
    monkeypatch.setenv("PATH", str(system_bin))  # git and python, no agent CLI
    with pytest.raises(JlgError) as info:
        execute_dev(
            DevOptions("run", directory=project, llm="claude"), out=io.StringIO(), err=io.StringIO()
        )
    assert info.value.code == DevExitCode.CONFIGURATION
    assert "llm claude is not installed" in info.value.message
    assert not (project / "context").exists()
    assert not (project / "prompts").exists()
    assert git(project, "status", "--porcelain") == ""


def test_fr_8_1_optional_document_warnings_are_printed_once(project: Path) -> None:
    first = run_loop(project, ScriptedAgent(list(GOOD)), ["n"])
    second = run_loop(project, ScriptedAgent([]), ["y"], command="resume")
    assert "warning: optional document docs/data-models.md not found" in first[1]
    assert "optional document" not in second[1]
    assert isinstance(second[0], DevResult)
    (project / "docs" / "code-style.md").unlink()  # the list changed: warn again
    third = run_loop(project, ScriptedAgent([]), command="resume")  # no task in progress
    assert "warning: optional document docs/code-style.md not found" in third[1]
