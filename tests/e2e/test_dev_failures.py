"""Failures, unattended runs and exit codes (seed 003 FR-2, FR-3, FR-6.3, FR-8, AC-5).

Exit codes: 0 committed, 1 aborted, 2 configuration error, 3 task execution
error (FR-8.3).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.dev_e2e import (
    BLOCKING_REVIEW,
    BROKEN,
    commits,
    env_with,
    fix,
    implement,
    plan_status,
    prompts_sent,
    review,
    run_dev,
    write_script,
)
from support.devproject import (
    make_project,
)

pytestmark = pytest.mark.slow


def test_no_tty_and_no_yes_never_waits(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.json", implement(), review())
    done = run_dev(root, "run", script=script)  # stdin is /dev/null, nobody can answer
    assert done.returncode == 1
    assert (
        "error: cannot ask 'Commit these changes with this message?': stdin is not a terminal"
        in done.stderr
    )
    assert "hint: pass --yes" in done.stderr
    assert commits(root) == ["initial"]


def test_no_input_refuses_even_before_the_commit(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.json", implement(BROKEN), review())
    done = run_dev(root, "run", "--no-input", script=script)
    assert done.returncode == 3  # FR-8.3: a task execution failure nobody can answer
    assert (
        "cannot ask 'Continue with another review iteration?': --no-input was given" in done.stderr
    )


def test_blocking_twice_then_clear_unattended(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    script = write_script(
        tmp_path / "s.json",
        implement(),
        review(BLOCKING_REVIEW),
        fix(),
        review(BLOCKING_REVIEW),
        fix(),
        review(),
    )
    done = run_dev(root, "run", "--yes", script=script)
    assert done.returncode == 0, done.stderr
    kinds = [p.splitlines()[0] for p in prompts_sent(script)]
    assert kinds == [
        "# Implement task TASK-001",
        "# Review task TASK-001 (iteration 1)",
        "# Fix the review findings of task TASK-001 (iteration 1)",
        "# Review task TASK-001 (iteration 2)",
        "# Fix the review findings of task TASK-001 (iteration 2)",
        "# Review task TASK-001 (iteration 3)",
    ]
    assert "empty names are not handled" in prompts_sent(script)[2]


def test_validation_that_keeps_failing_is_exit_3(tmp_path: Path) -> None:
    commands = {"test": "python -m unittest discover -s tests -q"}
    root = make_project(
        tmp_path / "p", {"validation": {"maxReviewIterations": 1, "commands": commands}}
    )
    script = write_script(
        tmp_path / "s.json", implement(BROKEN), review(), fix(BROKEN), repeat_last=True
    )
    done = run_dev(root, "run", "--yes", script=script)
    assert done.returncode == 3, done.stderr
    assert "test failed: `python -m unittest discover -s tests -q` (exit 1)" in done.stderr
    assert "AssertionError" in done.stderr  # an excerpt of the failing output
    assert "--yes does not retry forever" in done.stderr
    assert plan_status(root, "TASK-001") == "in-progress"
    assert commits(root) == ["initial"]


def test_agent_that_never_writes_the_notes_is_exit_3(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.json", implement(notes=None), repeat_last=True)
    done = run_dev(root, "run", "--yes", script=script)
    assert done.returncode == 3
    notes = root / "context" / "implementation-notes.md"
    assert f"did not write context/implementation-notes.md (expected at {notes})" in done.stderr
    assert "command: " in done.stderr and "claude" in done.stderr
    assert "Implemented the task." in done.stderr  # the end of the agent's reply
    assert len(prompts_sent(script)) == 3  # first try + 2 automatic retries (agent.retries)


def test_agent_error_is_retried_then_exit_3(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", {"agent": {"retries": 1}})
    script = write_script(tmp_path / "s.json", {"error": "backend"}, repeat_last=True)
    done = run_dev(root, "run", "--yes", script=script)
    assert done.returncode == 3
    assert "the implement agent failed: " in done.stderr
    assert "Internal server error" in done.stderr
    assert len(prompts_sent(script)) == 2


def test_missing_mandatory_docs_is_exit_2(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    (root / "docs" / "architecture.md").unlink()
    (root / "docs" / "implementation-plan.md").unlink()
    done = run_dev(root, "run", "--yes")
    assert done.returncode == 2
    assert str(root / "docs" / "architecture.md") in done.stderr
    assert str(root / "docs" / "implementation-plan.md") in done.stderr


def test_unmet_dependencies_is_exit_2(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    done = run_dev(root, "run", "TASK-003", "--yes")
    assert done.returncode == 2
    assert (
        "TASK-003 has unsatisfied dependencies: TASK-001 (pending), TASK-002 (pending)"
        in done.stderr
    )


def test_malformed_plan_is_exit_2_with_the_line(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    plan = root / "docs" / "implementation-plan.md"
    plan.write_text(plan.read_text().replace("- **Complexity:** S\n", "", 1), encoding="utf-8")
    done = run_dev(root, "run", "--yes")
    assert done.returncode == 2
    assert "docs/implementation-plan.md:9: task TASK-001 is missing: Complexity" in done.stderr


def test_invalid_config_is_exit_2(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    (root / ".aidevloop.json").write_text(json.dumps({"llm": "claude", "retry": 3}))
    done = run_dev(root, "run", "--yes")
    assert done.returncode == 2
    assert "retry: unknown key" in done.stderr


def test_logged_out_agent_is_exit_2_before_any_change(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    done = run_dev(root, "run", "--yes", env=env_with(JLGCLI_FAKE_LOGGED_OUT="1"))
    assert done.returncode == 2
    assert "llm claude is not logged in" in done.stderr
    assert not (root / "context" / "current-task.md").exists()


def test_a_folder_named_like_the_config_is_a_configuration_error(tmp_path: Path) -> None:
    """Issue 49: a folder ``.aidevloop.json`` was skipped: the loop ran with the defaults
    and ended 3, not the configuration error (2) it is."""
    root = make_project(tmp_path / "p")
    (root / ".aidevloop.json").unlink(missing_ok=True)
    (root / ".aidevloop.json").mkdir()
    script = write_script(tmp_path / "s.json", implement(), review())
    done = run_dev(root, "run", "--yes", script=script)
    assert done.returncode == 2, done.stderr
    assert ".aidevloop.json is not a file" in done.stderr
    assert prompts_sent(script) == []  # no agent was paid for
