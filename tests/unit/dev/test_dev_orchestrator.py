"""The whole loop in-process with a scripted agent and real git (seed 003 FR-4, FR-5, FR-6.3).

The agent is a test double (``support.dev_unit.ScriptedAgent``); everything else is
real: files, the plan, validation commands, git. The subprocess/pty
versions of these scenarios are in ``tests/e2e/test_dev_*.py``.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from support.dev_unit import (
    BLOCKING_REVIEW,
    NOTES,
    ScriptedAgent,
    Turn,
    implement_turn,
    review_turn,
    typed,
    unattended,
)
from support.devproject import (
    CLEAN_REVIEW,
    git,
    make_project,
)

from jlgcli.dev.orchestrator import DevOptions, DevResult, execute_dev
from jlgcli.dev.questions import Asker
from jlgcli.errors import DevExitCode, JlgError

GOOD = [Turn(implement_turn()), Turn(review_turn())]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "proj")


def run(
    root: Path,
    agent: ScriptedAgent,
    answers: list[str] | None = None,
    **options: object,
) -> tuple[DevResult | JlgError, str, str]:
    """Run the loop; ``answers``: what a person types (None: unattended, --yes)."""
    out, err = io.StringIO(), io.StringIO()
    asker: Asker = unattended(err) if answers is None else typed(*answers, err=err)
    opts = DevOptions(
        command=str(options.pop("command", "run")),  # type: ignore[arg-type]
        directory=root,
        **options,  # type: ignore[arg-type]
    )
    try:
        result: DevResult | JlgError = execute_dev(opts, agent=agent, asker=asker, out=out, err=err)
    except JlgError as exc:
        result = exc
    return result, out.getvalue(), err.getvalue()


def status_of(root: Path, task_id: str) -> str:
    from jlgcli.dev.plan_edit import load_plan

    task = load_plan(root / "docs" / "implementation-plan.md", "plan").find(task_id)
    assert task is not None
    return task.status


def test_happy_path_commits(project: Path) -> None:
    agent = ScriptedAgent(list(GOOD))
    result, out, _ = run(project, agent)
    assert isinstance(result, DevResult)
    assert (result.status, result.task_id) == ("committed", "TASK-001")
    assert result.commit == git(project, "rev-parse", "HEAD").strip()
    assert git(project, "log", "-1", "--format=%s").strip() == "feat(TASK-001): greeting function"
    # issue 36: jlgcli's own new files stay out of the task's commit; issue 49: nothing is
    # left untracked: the templates have a commit of their own, the notices are ignored
    assert git(project, "status", "--porcelain", "-uall") == ""
    assert git(project, "log", "-2", "--format=%s").split("\n")[:2] == [
        "feat(TASK-001): greeting function",
        "jlgcli dev: add prompt templates",
    ]
    assert git(project, "show", "--name-only", "--format=", "HEAD~1").split() == [
        "prompts/code-review.prompt.md",
        "prompts/fix-issues.prompt.md",
        "prompts/implement-task.prompt.md",
    ]
    assert status_of(project, "TASK-001") == "done"
    archive = project / "context" / "completed" / "TASK-001"
    assert sorted(p.name for p in archive.iterdir()) == [
        "current-task.md",
        "implementation-notes.md",
        "review.md",
    ]
    assert not (project / "context" / "current-task.md").exists()
    for number in range(1, 9):
        assert f"[{number}/8] " in out
    implement_prompt, review_prompt = agent.prompts
    assert "# Implement task TASK-001" in implement_prompt
    assert "### TASK-001: Greeting function" in implement_prompt
    assert "# Architecture: greetings" in implement_prompt  # a context reference
    assert "`context/implementation-notes.md`" in implement_prompt
    assert "# Review task TASK-001 (iteration 1)" in review_prompt
    assert "+def greet(name: str) -> str:" in review_prompt  # the diff of a new file
    assert NOTES.strip() in review_prompt
    data = result.to_json()
    calls = data.pop("agentCalls")
    assert data == {
        "status": "committed",
        "task": "TASK-001",
        "commit": result.commit,
        "leftOut": [],
        "jlgcliFiles": [
            "prompts/code-review.prompt.md",
            "prompts/fix-issues.prompt.md",
            "prompts/implement-task.prompt.md",
        ],
        "costUsd": None,  # the scripted agent reports no cost: unknown, never 0
        "inputTokens": None,
        "outputTokens": None,
        "exitCode": 0,
    }
    assert [(call["kind"], call["agent"], call["ok"]) for call in calls] == [
        ("implement", "scripted", True),
        ("review", "scripted", True),
    ]
    assert "TASK-001: 2 agent call(s) · cost unknown" in out


def test_nothing_to_do(project: Path) -> None:
    plan = project / "docs" / "implementation-plan.md"
    plan.write_text(plan.read_text().replace("pending", "done"), encoding="utf-8")
    result, out, _ = run(project, ScriptedAgent([]))
    assert isinstance(result, DevResult) and result.status == "nothing-to-do"
    assert "all 3 tasks" in out


def test_explicit_task_with_unmet_dependencies_writes_nothing(project: Path) -> None:
    result, _, _ = run(project, ScriptedAgent([]), task_id="TASK-003")
    assert isinstance(result, JlgError) and result.code == DevExitCode.CONFIGURATION
    assert "TASK-001 (pending), TASK-002 (pending)" in result.message
    assert not (project / "context" / "current-task.md").exists()


def test_run_refuses_while_a_task_is_in_progress(project: Path) -> None:
    agent = ScriptedAgent([Turn(implement_turn()), Turn(review_turn())])
    run(project, agent, ["n"])  # stops at the commit question
    result, _, _ = run(project, ScriptedAgent([]))
    assert isinstance(result, JlgError) and result.code == DevExitCode.CONFIGURATION
    assert "TASK-001 is in progress" in result.message


def test_blocking_twice_then_clean(project: Path) -> None:
    fix = Turn({"greetings/core.py": "# fixed\n" + implement_turn()["greetings/core.py"]})
    agent = ScriptedAgent(
        [
            Turn(implement_turn()),
            Turn(review_turn(BLOCKING_REVIEW)),
            fix,
            Turn(review_turn(BLOCKING_REVIEW)),
            fix,
            Turn(review_turn()),
        ]
    )
    result, out, _ = run(project, agent)
    assert isinstance(result, DevResult)
    assert "review iteration 2: 1 BLOCKING" in out
    assert "review iteration 3: 0 BLOCKING" in out
    fix_prompt = agent.prompts[2]
    assert "# Fix the review findings of task TASK-001 (iteration 1)" in fix_prompt
    assert "greet ignores empty names" in fix_prompt
    assert "review iterations: 3" in git(project, "log", "-1", "--format=%B")


def exhausting_agent() -> ScriptedAgent:
    blocked = [Turn(review_turn(BLOCKING_REVIEW)), Turn({"context/implementation-notes.md": "x"})]
    return ScriptedAgent([Turn(implement_turn()), *blocked, *blocked, Turn(review_turn())])


@pytest.mark.parametrize("answer", ["y", "n", "abort"])
def test_exhausted_review_loop_asks(tmp_path: Path, answer: str) -> None:
    root = make_project(tmp_path / "p", {"validation": {"maxReviewIterations": 2}})
    result, _, err = run(root, exhausting_agent(), [answer, "y"])
    assert "Continue with another review iteration? (y/n/abort) [y]: " in err
    if answer == "abort":
        assert isinstance(result, JlgError) and result.code == DevExitCode.ABORTED
        assert "aborted at step 5 (Review Loop)" in result.message
        assert status_of(root, "TASK-001") == "in-progress"  # FR-4.4
        return
    assert isinstance(result, DevResult)
    body = git(root, "log", "-1", "--format=%B")
    if answer == "n":
        assert "Warnings accepted at approval:" in body
        assert "the review loop used its 2 iteration(s)" in body
    else:
        assert "review iterations: 3" in body


def test_unattended_exhaustion_gives_up_with_exit_3(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", {"validation": {"maxReviewIterations": 1}})
    blocked = [Turn(review_turn(BLOCKING_REVIEW)), Turn({"context/implementation-notes.md": "x"})]
    agent = ScriptedAgent([Turn(implement_turn()), *blocked * 3])
    result, _, _ = run(root, agent)
    assert isinstance(result, JlgError) and result.code == DevExitCode.TASK_FAILED
    assert "--yes does not retry forever" in result.message
    assert len(agent.prompts) == 5  # implement, then review+fix twice (one automatic extra round)


FAILING = {
    "validation": {"commands": {"test": ["python", "-c", "import sys; print('boom'); sys.exit(3)"]}}
}


@pytest.mark.parametrize("answer", ["n", "abort"])
def test_validation_failure_asks(tmp_path: Path, answer: str) -> None:
    root = make_project(tmp_path / "p", FAILING)
    result, _, err = run(root, ScriptedAgent(list(GOOD)), [answer, "y"])
    text = err
    assert "automated validation failed:" in text
    assert (
        "test failed: `python -c 'import sys; print('\"'\"'boom'\"'\"'); sys.exit(3)'` (exit 3)"
        in text
    )
    assert "boom" in text
    if answer == "abort":
        assert isinstance(result, JlgError) and result.code == DevExitCode.ABORTED
    else:  # skip to the commit approval with warnings
        assert isinstance(result, DevResult)
        assert "automated validation failed:" in git(root, "log", "-1", "--format=%B")


def test_validation_failure_goes_to_the_fixer(tmp_path: Path) -> None:
    script = "import pathlib, sys; sys.exit(0 if pathlib.Path('fixed').exists() else 1)"
    root = make_project(
        tmp_path / "p", {"validation": {"commands": {"test": ["python", "-c", script]}}}
    )
    agent = ScriptedAgent(
        [Turn(implement_turn()), Turn(review_turn()), Turn({"fixed": "1"}), Turn(review_turn())]
    )
    result, out, _ = run(root, agent, ["y", "y"])
    assert isinstance(result, DevResult)
    assert "test FAILED (exit 1)" in agent.prompts[1]  # the reviewer sees the failure
    assert "# Fix the review findings" in agent.prompts[2]
    assert "validation: lint skipped, typecheck skipped, test passed, build skipped" in out


def test_agent_failure_retry_then_success(project: Path) -> None:
    agent = ScriptedAgent([Turn(ok=False, error="rate limited"), *GOOD])
    result, _, text = run(project, agent, ["retry", "y"])
    assert isinstance(result, DevResult)
    assert "error: the implement agent failed: rate limited" in text
    assert "command: fake --edit" in text
    assert "tail of output" in text
    assert "Retry the implement agent? (retry/abort) [retry]: " in text


def test_notes_never_written_unattended_is_exit_3(project: Path) -> None:
    agent = ScriptedAgent([Turn({"greetings/core.py": "x = 1\n"}, text="I wrote code")] * 3)
    result, _, err = run(project, agent)
    assert isinstance(result, JlgError) and result.code == DevExitCode.TASK_FAILED
    assert "the implement agent did not write context/implementation-notes.md" in result.message
    assert str(project / "context" / "implementation-notes.md") in result.message
    assert "command: fake --edit" in result.message
    assert "I wrote code" in result.message
    assert len(agent.prompts) == 3  # the first call and two automatic retries
    assert err.count("Retry the implement agent?") == 3


def test_notes_never_written_abort_is_exit_1(project: Path) -> None:
    result, _, _ = run(project, ScriptedAgent([Turn()]), ["abort"])
    assert isinstance(result, JlgError) and result.code == DevExitCode.ABORTED
    assert status_of(project, "TASK-001") == "in-progress"


def test_malformed_review_is_retried(project: Path) -> None:
    agent = ScriptedAgent([Turn(implement_turn()), Turn(review_turn("LGTM")), Turn(review_turn())])
    result, _, err = run(project, agent, None)
    assert isinstance(result, DevResult)
    assert "context/review.md: no BLOCKING / NON-BLOCKING / NITPICK section" in err


def test_fix_agent_not_updating_notes_is_a_warning(project: Path) -> None:
    agent = ScriptedAgent(
        [Turn(implement_turn()), Turn(review_turn(BLOCKING_REVIEW)), Turn(), Turn(review_turn())]
    )
    result, out, _ = run(project, agent)
    assert isinstance(result, DevResult)
    assert "warning: the fix agent did not update context/implementation-notes.md" in out


def test_commit_rejected_then_resumed(project: Path) -> None:
    result, _, _ = run(project, ScriptedAgent(list(GOOD)), ["n"])
    assert isinstance(result, JlgError) and result.code == DevExitCode.ABORTED
    assert "commit not approved" in result.message
    assert git(project, "log", "--format=%s").strip() == "initial"
    result, out, _ = run(project, ScriptedAgent([]), ["y"], command="resume")
    assert isinstance(result, DevResult)
    assert "Resuming TASK-001 from step 8" in out
    assert git(project, "log", "-1", "--format=%s").startswith("feat(TASK-001)")


def test_interrupt_then_resume(project: Path) -> None:
    def interrupt() -> None:
        raise KeyboardInterrupt

    result, _, _ = run(project, ScriptedAgent([Turn(action=interrupt)]))
    assert isinstance(result, JlgError) and result.code == DevExitCode.ABORTED
    assert result.message == "interrupted at step 3 (Implement)"
    result, out, _ = run(project, ScriptedAgent(list(GOOD)), command="resume")
    assert isinstance(result, DevResult)
    assert "Resuming TASK-001 from step 3" in out


def test_resume_with_nothing_in_progress(project: Path) -> None:
    result, _, _ = run(project, ScriptedAgent([]), command="resume")
    assert isinstance(result, JlgError) and result.code == DevExitCode.CONFIGURATION
    assert result.message.startswith("No task in progress")


def test_resume_ambiguous_asks(project: Path) -> None:
    def interrupt() -> None:
        raise KeyboardInterrupt

    # the implement agent wrote some code, then the run was interrupted before the notes
    (project / "greetings" / "core.py").write_text("partial\n", encoding="utf-8")
    result, _, _ = run(project, ScriptedAgent([Turn(action=interrupt)]))
    assert isinstance(result, JlgError)
    result, _, err = run(project, ScriptedAgent([]), ["n"], command="resume")
    assert isinstance(result, JlgError) and result.code == DevExitCode.ABORTED
    assert "Resume from step 3? (y/n) [y]: " in err
    assert "--from-step" in (result.hint or "")
    result, _, _ = run(project, ScriptedAgent(list(GOOD)), ["y", "y"], command="resume")
    assert isinstance(result, DevResult)


def test_from_step_forces_the_step(project: Path) -> None:
    run(project, ScriptedAgent(list(GOOD)), ["n"])  # everything done but the commit
    agent = ScriptedAgent([Turn(review_turn(CLEAN_REVIEW))])
    result, out, _ = run(project, agent, command="resume", from_step=5)
    assert isinstance(result, DevResult)
    assert "--from-step 5 (the files suggest step 8" in out
    assert len(agent.prompts) == 1 and "# Review task" in agent.prompts[0]


def test_from_step_2_reloads_the_task(project: Path) -> None:
    run(project, ScriptedAgent([Turn()]), ["abort"])
    result, out, _ = run(project, ScriptedAgent(list(GOOD)), command="resume", from_step=2)
    assert isinstance(result, DevResult)
    assert "[2/8] Load Task" in out


def test_quiet_prints_nothing_on_stdout(project: Path) -> None:
    result, out, _ = run(project, ScriptedAgent(list(GOOD)), verbosity=0)
    assert isinstance(result, DevResult)
    assert out == ""


def test_verbose_logs_prompts_replies_and_file_operations(project: Path) -> None:
    result, out, _ = run(project, ScriptedAgent(list(GOOD)), verbosity=2)
    assert isinstance(result, DevResult)
    assert "prompt for the implement agent (scripted)" in out
    assert "reply of the review agent (scripted)" in out
    assert "[write] context/current-task.md" in out
    assert "[copy] context/review.md -> context/completed/TASK-001/" in out
    assert "[run] python -m unittest discover -s tests -q" in out


def test_missing_mandatory_docs_are_each_named(project: Path) -> None:
    (project / "docs" / "requirements.md").unlink()
    (project / "docs" / "architecture.md").unlink()
    result, _, _ = run(project, ScriptedAgent([]))
    assert isinstance(result, JlgError) and result.code == DevExitCode.CONFIGURATION
    assert str(project / "docs" / "requirements.md") in result.message
    assert str(project / "docs" / "architecture.md") in result.message
    assert not (project / "context").exists()


def test_not_a_git_repository(tmp_path: Path) -> None:
    import shutil

    from support.devproject import EXAMPLE

    shutil.copytree(EXAMPLE, tmp_path / "p")
    result, _, _ = run(tmp_path / "p", ScriptedAgent([]))
    assert isinstance(result, JlgError) and result.code == DevExitCode.CONFIGURATION
    assert "not a git repository" in result.message


def test_missing_project_directory(tmp_path: Path) -> None:
    result, _, _ = run(tmp_path / "nowhere", ScriptedAgent([]))
    assert isinstance(result, JlgError) and result.code == DevExitCode.CONFIGURATION


def test_unknown_llm_is_a_configuration_error(project: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(JlgError) as info:
        execute_dev(DevOptions("run", directory=project, llm="gpt-9"), out=out, err=err)
    assert info.value.code == DevExitCode.CONFIGURATION
    assert "unknown llm 'gpt-9' (from --llm)" in info.value.message


COUNTER = (
    "import pathlib; p = pathlib.Path('runs.txt'); n = int(p.read_text()) if p.exists() else 0; "
    "p.write_text(str(n + 1)); raise SystemExit(1 if n == 1 else 0)"
)


def test_integration_failure_goes_back_to_the_review_loop(tmp_path: Path) -> None:
    root = make_project(
        tmp_path / "p", {"validation": {"commands": {"test": ["python", "-c", COUNTER]}}}
    )
    agent = ScriptedAgent(
        [
            Turn(implement_turn()),
            Turn(review_turn()),
            Turn(review_turn()),
            Turn(),
            Turn(review_turn()),
        ]
    )
    result, out, err = run(root, agent, ["y", "y"])
    assert isinstance(result, DevResult)
    assert "integration check failed:" in err
    assert out.count("[6/8] Integration Check") == 2
    assert "# Fix the review findings" in agent.prompts[3]


def test_integration_failure_accepted_with_n(tmp_path: Path) -> None:
    root = make_project(
        tmp_path / "p", {"validation": {"commands": {"test": ["python", "-c", COUNTER]}}}
    )
    result, _, _ = run(root, ScriptedAgent(list(GOOD)), ["n", "y"])
    assert isinstance(result, DevResult)
    assert "integration check failed:" in git(root, "log", "-1", "--format=%B")


def restore_live_files(root: Path) -> None:
    archive = root / "context" / "completed" / "TASK-001"
    for item in archive.iterdir():
        (root / "context" / item.name).write_bytes(item.read_bytes())


def test_resume_after_the_commit_only_cleans_up(project: Path) -> None:
    run(project, ScriptedAgent(list(GOOD)))
    head = git(project, "rev-parse", "HEAD").strip()
    restore_live_files(project)  # as if killed between the commit and the clean-up
    result, out, _ = run(project, ScriptedAgent([]), command="resume")
    assert isinstance(result, DevResult) and result.commit == head
    assert "TASK-001 is already committed; cleaning up the context files" in out
    assert not (project / "context" / "current-task.md").exists()


def test_nothing_to_commit_is_an_execution_error(project: Path) -> None:
    run(project, ScriptedAgent(list(GOOD)))
    git(project, "commit", "-q", "--amend", "-m", "someone else's commit")
    restore_live_files(project)
    result, _, _ = run(project, ScriptedAgent([]), command="resume")
    assert isinstance(result, JlgError) and result.code == DevExitCode.TASK_FAILED
    assert "nothing to commit for TASK-001" in result.message


def test_files_not_archived_are_kept_after_the_commit(project: Path) -> None:
    run(project, ScriptedAgent(list(GOOD)), ["n"])
    (project / "context" / "completed" / "TASK-001" / "review.md").unlink()
    result, out, _ = run(project, ScriptedAgent([]), command="resume", from_step=8)
    assert isinstance(result, DevResult)
    assert (
        "warning: context/review.md kept: it is not archived in context/completed/TASK-001/" in out
    )
    assert (project / "context" / "review.md").is_file()
    assert not (project / "context" / "implementation-notes.md").exists()
