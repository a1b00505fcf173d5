"""Every acceptance box of seed 003 (AC-1..AC-6), one test each, on the real program.

Two full runs are shared by module fixtures (a verbose happy run with every
validation command configured, and a run whose reviewer never clears its
BLOCKING finding); the other boxes use short runs that stop early.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.dev_e2e import (
    BLOCKING_REVIEW,
    BROKEN,
    commits,
    dev_argv,
    env_with,
    fix,
    implement,
    isolated_env,
    plan_status,
    prompts_sent,
    review,
    run_dev,
    write_script,
)
from support.devproject import (
    git,
    make_project,
)

pytestmark = pytest.mark.slow

ALL_COMMANDS = {
    kind: ["python", "-c", f"print('{kind} ran')"] for kind in ("lint", "typecheck", "build")
} | {"test": "python -m unittest discover -s tests -q"}


@dataclass
class Run:
    root: Path
    script: Path
    done: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def happy(tmp_path_factory: pytest.TempPathFactory, fake_bin: Path, system_bin: Path) -> Run:
    base = tmp_path_factory.mktemp("happy")
    env = isolated_env(base / "home", fake_bin, system_bin)
    commands = {"validation": {"commands": ALL_COMMANDS}}
    root = make_project(base / "p", commands, trust_dir=Path(env["JLGCLI_CONFIG_DIR"]))
    script = write_script(base / "s.json", implement(), review())
    env["JLGCLI_FAKE_SCRIPT"] = str(script)
    return Run(root, script, run_dev(root, "run", "--yes", "--verbose", env=env))


@pytest.fixture(scope="module")
def stuck(tmp_path_factory: pytest.TempPathFactory, fake_bin: Path, system_bin: Path) -> Run:
    base = tmp_path_factory.mktemp("stuck")
    root = make_project(base / "p", {"validation": {"maxReviewIterations": 2}})
    script = write_script(
        base / "s.json", implement(), review(BLOCKING_REVIEW), fix(), repeat_last=False
    )
    data = json.loads(script.read_text())
    data["turns"] += [review(BLOCKING_REVIEW), fix()] * 4
    script.write_text(json.dumps(data))
    env = isolated_env(base / "home", fake_bin, system_bin)
    env["JLGCLI_FAKE_SCRIPT"] = str(script)
    return Run(root, script, run_dev(root, "run", "--yes", env=env))


def test_happy_run_succeeded(happy: Run) -> None:
    assert happy.done.returncode == 0, happy.done.stderr


# -- AC-1: project setup ----------------------------------------------------------------------
def test_ac1_validates_mandatory_docs_before_any_task(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    (root / "docs" / "requirements.md").unlink()
    script = write_script(tmp_path / "s.json", implement(), review())
    done = run_dev(root, "run", "--yes", script=script)
    assert done.returncode == 2
    assert f"missing mandatory Phase 1 document(s):\n  {root / 'docs' / 'requirements.md'}" in (
        done.stderr
    )
    assert prompts_sent(script) == []
    assert plan_status(root, "TASK-001") == "pending"


def test_ac1_warns_on_optional_docs_and_continues(happy: Run) -> None:
    out = happy.done.stdout
    for name in ("data-models.md", "ui-design.md", "test-strategy.md"):
        assert f"warning: optional document docs/{name} not found; continuing" in out
    assert "code-style.md not found" not in out
    assert "[8/8] Commit" in out


def test_ac1_creates_context_dirs(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    plan = root / "docs" / "implementation-plan.md"
    plan.write_text(plan.read_text().replace("pending", "done"), encoding="utf-8")
    done = run_dev(root, "run")
    assert done.returncode == 0
    assert (root / "context").is_dir() and (root / "context" / "completed").is_dir()


# -- AC-2: task execution flow ----------------------------------------------------------------
def test_ac2_auto_selects_next_pending_task_with_done_dependencies(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    plan = root / "docs" / "implementation-plan.md"
    plan.write_text(plan.read_text().replace("pending", "done", 1), encoding="utf-8")
    done = run_dev(root, "run")  # stops at the commit question: nobody at the terminal
    assert "[1/8] Select Task → TASK-002: Farewell function" in done.stdout
    assert "TASK-002 (dependencies done: TASK-001)" in done.stdout


def test_ac2_runs_the_given_task(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    plan = root / "docs" / "implementation-plan.md"
    plan.write_text(plan.read_text().replace("pending", "done", 2), encoding="utf-8")
    script = write_script(tmp_path / "s.json", implement(), review())
    done = run_dev(root, "run", "TASK-003", "--yes", script=script)
    assert done.returncode == 0, done.stderr
    assert commits(root)[0].startswith("feat(TASK-003): command-line entry point")


def test_ac2_status_in_progress_when_implementation_begins(happy: Run) -> None:
    out = happy.done.stdout
    marked = out.index("[write] docs/implementation-plan.md (TASK-001: in-progress)")
    assert marked < out.index("calling the implement agent")
    assert marked > out.index("[3/8] Implement")


def test_ac2_implement_agent_gets_the_context_files(happy: Run) -> None:
    prompt = prompts_sent(happy.script)[0]
    assert prompt.startswith("# Implement task TASK-001")  # prompts/implement-task.prompt.md
    assert "## Current task: `context/current-task.md`" in prompt
    assert "## Context reference: `docs/architecture.md`" in prompt
    assert "## Context reference: `docs/code-style.md`" in prompt


def test_ac2_runs_every_configured_validation_command(happy: Run) -> None:
    out = happy.done.stdout
    for kind in ("lint", "typecheck", "build"):
        assert f"{kind} ran" in out
        assert f"{kind}: passed: python -c" in out
    assert "test: passed: python -m unittest discover -s tests -q" in out


def test_ac2_review_agent_and_blocking_parsed(stuck: Run) -> None:
    assert "review iteration 1: 1 BLOCKING, 0 NON-BLOCKING, 0 NITPICK" in stuck.done.stdout
    assert "BLOCKING: `greetings/core.py`: empty names are not handled" in stuck.done.stdout
    assert prompts_sent(stuck.script)[1].startswith("# Review task TASK-001 (iteration 1)")


def test_ac2_fix_agent_when_blocking(stuck: Run) -> None:
    fix_prompt = prompts_sent(stuck.script)[2]
    assert fix_prompt.startswith("# Fix the review findings of task TASK-001 (iteration 1)")
    assert "empty names are not handled" in fix_prompt


def test_ac2_review_loop_stops_at_max_and_asks(stuck: Run) -> None:
    err = stuck.done.stderr
    assert "the review loop used its 2 iteration(s) and 1 BLOCKING finding(s)" in err
    assert "Continue with another review iteration? (y/n/abort) [y]: y (--yes)" in err
    assert "Continue with another review iteration? (y/n/abort) [y]: abort (--yes)" in err
    assert stuck.done.returncode == 3


def test_ac2_archives_context_files(happy: Run) -> None:
    archive = happy.root / "context" / "completed" / "TASK-001"
    assert sorted(p.name for p in archive.iterdir()) == [
        "current-task.md",
        "implementation-notes.md",
        "review.md",
    ]
    assert "### TASK-001: Greeting function" in (archive / "current-task.md").read_text()


def test_ac2_marks_task_done(happy: Run) -> None:
    assert plan_status(happy.root, "TASK-001") == "done"
    assert plan_status(happy.root, "TASK-002") == "pending"


def test_ac2_pauses_before_commit(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.json", implement(), review())
    done = run_dev(root, "run", "--no-input", script=script)
    assert done.returncode == 1
    assert "Proposed commit message:\n    feat(TASK-001): greeting function" in done.stderr
    assert commits(root) == ["initial"]


def test_ac2_conventional_commit_with_task_id(happy: Run) -> None:
    message = git(happy.root, "log", "-1", "--format=%B")
    assert message.startswith("feat(TASK-001): greeting function\n\nTask TASK-001 (milestone M1)")


# -- AC-3: resume -----------------------------------------------------------------------------
def aborted_at_commit(tmp_path: Path) -> tuple[Path, Path]:
    root = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.json", implement(), review(), review())
    assert run_dev(root, "run", script=script).returncode == 1
    return root, script


def test_ac3_resume_reads_current_task(tmp_path: Path) -> None:
    root, script = aborted_at_commit(tmp_path)
    done = run_dev(root, "resume", "--yes", script=script)
    assert done.returncode == 0
    assert "Resuming TASK-001 from step 8" in done.stdout


def test_ac3_resumes_at_the_step_the_files_show(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.json", implement(BROKEN), review(), fix(), review())
    assert (
        run_dev(root, "run", "--no-input", script=script).returncode == 3
    )  # FR-8.3: stopped at step 4
    done = run_dev(root, "resume", "--yes", script=script)
    assert done.returncode == 0, done.stderr
    assert "Resuming TASK-001 from step 4" in done.stdout


def test_ac3_asks_when_ambiguous(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    script = write_script(
        tmp_path / "s.json", implement(notes=None, error="backend"), implement(), review()
    )
    assert (
        run_dev(root, "run", "--no-input", script=script).returncode == 3
    )  # FR-8.3: the agent failed, nobody to ask
    done = run_dev(root, "resume", "--yes", script=script)
    assert "Resume from step 3? (y/n) [y]: y (--yes)" in done.stderr
    assert done.returncode == 0, done.stderr


def test_ac3_from_step(tmp_path: Path) -> None:
    root, script = aborted_at_commit(tmp_path)
    done = run_dev(root, "resume", "--from-step=5", "--yes", script=script)
    assert done.returncode == 0, done.stderr
    assert "Resuming TASK-001 from step 5" in done.stdout
    assert "[5/8] Review Loop" in done.stdout


# -- AC-4: configuration ----------------------------------------------------------------------
def test_ac4_loads_json_or_yaml(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    root = make_project(tmp_path / "p")
    (root / ".aidevloop.json").unlink()
    (root / ".aidevloop.yaml").write_text("paths:\n  context: state\n", encoding="utf-8")
    done = run_dev(root, "run")
    assert (root / "state" / "completed").is_dir()
    assert not (root / "context").exists()
    assert done.returncode == 3, done.stderr  # it ran; the default fake writes no notes (FR-8.3)
    assert "cannot ask 'Retry the implement agent?'" in done.stderr


def test_ac4_llm_flag_overrides_config(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")  # the config says "claude"
    done = run_dev(root, "run", "--llm=copilot")
    assert done.returncode == 2
    assert "llm copilot is not logged in" in done.stderr


def test_ac4_verbose_flag(happy: Run) -> None:
    assert "-------------------- prompt for the implement agent (claude)" in happy.done.stdout


def test_ac4_config_flag(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"paths": {"context": "elsewhere"}}), encoding="utf-8")
    run_dev(root, "run", f"--config={other}")
    assert (root / "elsewhere" / "completed").is_dir()


# -- AC-5: errors -----------------------------------------------------------------------------
def test_ac5_missing_mandatory_doc(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    (root / "docs" / "implementation-plan.md").unlink()
    done = run_dev(root, "run")
    assert done.returncode == 2
    assert str(root / "docs" / "implementation-plan.md") in done.stderr


def test_ac5_unsatisfied_dependencies(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    done = run_dev(root, "run", "TASK-002")
    assert done.returncode == 2
    assert "TASK-002 has unsatisfied dependencies: TASK-001 (pending)" in done.stderr


def test_ac5_prompts_when_validation_fails(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.json", implement(BROKEN), review(), fix(), review())
    done = run_dev(root, "run", "--yes", script=script)
    assert "error: automated validation failed:" in done.stderr
    assert "Continue with another review iteration? (y/n/abort) [y]: y (--yes)" in done.stderr
    assert done.returncode == 0, done.stderr


def test_ac5_prompts_when_review_loop_exhausts(stuck: Run) -> None:
    assert "Continue with another review iteration?" in stuck.done.stderr


@pytest.mark.parametrize("case", ["success", "abort", "config", "execution"])
def test_ac5_exit_codes(tmp_path: Path, case: str) -> None:
    root = make_project(tmp_path / "p")
    turns = {
        "success": [implement(), review()],
        "abort": [implement(), review()],
        "config": [],
        "execution": [implement(notes=None)],
    }[case]
    script = write_script(tmp_path / "s.json", *turns, repeat_last=True) if turns else None
    args = {"success": ["--yes"], "abort": [], "config": ["--llm", "gpt"], "execution": ["--yes"]}
    done = run_dev(root, "run", *args[case], script=script)
    assert done.returncode == {"success": 0, "abort": 1, "config": 2, "execution": 3}[case]


# -- AC-6: output -----------------------------------------------------------------------------
def test_ac6_normal_mode_shows_steps_and_summaries(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.json", implement(), review())
    out = run_dev(root, "run", "--yes", script=script).stdout
    assert "[2/8] Load Task → context/current-task.md" in out
    assert "implementation notes written (5 lines); " in out
    assert "validation: lint passed, typecheck skipped, test passed, build skipped" in out
    assert "review iteration 1: 0 BLOCKING, 1 NON-BLOCKING, 0 NITPICK" in out
    assert "TASK-001 marked done; archived" in out
    assert "prompt for the implement agent" not in out


def test_ac6_verbose_logs_llm_interactions(happy: Run) -> None:
    out = happy.done.stdout
    assert "### TASK-001: Greeting function" in out  # the full prompt
    assert "-------------------- reply of the implement agent (claude)" in out
    assert "Implemented the task." in out
    assert "[copy] context/review.md -> context/completed/TASK-001/" in out


def test_ac6_errors_are_actionable(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    done = run_dev(root, "resume")
    assert "error: No task in progress (context/current-task.md not found)" in done.stderr
    assert "hint: start one with: jlgcli dev run" in done.stderr


def test_ac6_help_has_usage_commands_and_examples() -> None:
    for args in ([], ["run"], ["resume"]):
        done = subprocess.run(
            dev_argv(*args, "--help"), capture_output=True, text=True, env=env_with(), timeout=60
        )
        assert done.returncode == 0
        assert done.stdout.startswith("usage: ")
        assert "examples:" in done.stdout
    top = subprocess.run(dev_argv("--help"), capture_output=True, text=True, timeout=60).stdout
    assert "{run,resume}" in top or ("run " in top and "resume " in top)
