"""End to end: the whole loop to a real commit, unattended (seed 003 FR-4.2, AC-2).

Real processes all the way: the loop, the fake agent CLI editing files, the
validation commands, git.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.dev_e2e import (
    commits,
    env_with,
    implement,
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


def test_run_yes_commits_the_task(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    script = write_script(tmp_path / "s.json", implement(), review())
    done = run_dev(root, "run", "--yes", script=script)
    assert done.returncode == 0, done.stderr
    for header in (
        "[1/8] Select Task → TASK-001: Greeting function",
        "[2/8] Load Task → context/current-task.md",
        "[3/8] Implement → context/implementation-notes.md",
        "[4/8] Validation",
        "[5/8] Review Loop → context/review.md",
        "[6/8] Integration Check",
        "[7/8] Update Documentation → context/completed/TASK-001/",
        "[8/8] Commit",
    ):
        assert header in done.stdout
    assert "Commit these changes with this message? (y/n) [n]: y (--yes)" in done.stderr
    # issue 36: only the task's files in its commit; issue 49: nothing left untracked,
    # jlgcli's prompt templates have a commit of their own and its notices are ignored
    assert commits(root) == [
        "feat(TASK-001): greeting function",
        "jlgcli dev: add prompt templates",
        "initial",
    ]
    assert git(root, "status", "--porcelain") == ""
    assert "jlgcli dev: add prompt templates (3 file(s))" in done.stdout
    assert plan_status(root, "TASK-001") == "done"
    shown = git(root, "show", "--stat", "--format=", "HEAD")
    for path in ("greetings/core.py", "tests/test_core.py", "docs/implementation-plan.md"):
        assert path in shown
    assert "prompts/" not in shown
    assert "context/completed/TASK-001/implementation-notes.md" in shown
    assert "context/current-task.md" not in shown
    implement_prompt, review_prompt = prompts_sent(script)
    assert "### TASK-001: Greeting function" in implement_prompt
    assert "+def greet(name: str) -> str:" in review_prompt


def test_three_tasks_in_a_row_then_nothing_to_do(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    for number in (1, 2, 3):
        script = write_script(tmp_path / f"s{number}.json", implement(), review())
        done = run_dev(root, "run", "--yes", script=script)
        assert done.returncode == 0, done.stderr
        assert f"TASK-00{number}" in done.stdout
    assert [line.split(":")[0] for line in commits(root)[:3]] == [
        "feat(TASK-003)",
        "feat(TASK-002)",
        "feat(TASK-001)",
    ]
    done = run_dev(root, "run", "--yes")
    assert done.returncode == 0
    assert "all 3 tasks of docs/implementation-plan.md are done" in done.stdout


def test_llm_flag_drives_copilot(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    script = write_script(tmp_path / "s.json", implement(), review())
    env = env_with(script, COPILOT_GITHUB_TOKEN="github_pat_test")  # a dummy the fake accepts
    done = run_dev(root, "run", "--yes", "--llm", "copilot", env=env)
    assert done.returncode == 0, done.stderr
    assert "calling the implement agent (copilot)" in done.stdout
    assert "jlgcli dev (copilot)" in git(root, "log", "-1", "--format=%B")


def test_jlgcli_dev_command(tmp_path: Path, jlgcli_exe: str) -> None:
    import subprocess

    from jlgcli.commands.parser import COMMANDS

    if "dev" not in COMMANDS:
        pytest.skip("jlgcli dev is not wired into jlgcli/commands/parser.py yet")
    root = make_project(tmp_path / "proj")
    script = write_script(tmp_path / "s.json", implement(), review())
    done = subprocess.run(
        [jlgcli_exe, "dev", "run", "--yes", "--json"],
        cwd=root,
        env=env_with(script),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert '"status": "committed"' in done.stdout
    assert "[8/8] Commit" in done.stderr  # with --json, progress goes to stderr
    # Issue 13: each agent call is a recorded run of the core, with its cost in the report.
    import json

    data = json.loads(done.stdout)
    run_ids = [call["runId"] for call in data["agentCalls"]]
    assert len(run_ids) == 2 and all(run_ids) and data["costUsd"] > 0
    assert "agent call(s) · $" in done.stderr
    listed = subprocess.run([jlgcli_exe, "runs", "--json"], cwd=root, env=env_with(script),
                            stdin=subprocess.DEVNULL, capture_output=True, text=True,
                            timeout=60)  # fmt: skip
    assert all(run_id in listed.stdout for run_id in run_ids), listed.stdout + listed.stderr
