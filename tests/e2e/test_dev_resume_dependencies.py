"""Resume a task that has dependencies, from every row of FR-5's inference table (issue 36).

``context/current-task.md`` holds TASK-002's block, whose ``Dependencies:
TASK-001`` names a task that is not in it: resume must read the task from the
plan by its id, never parse the block as a plan (before issue 36: exit 2
"task TASK-002 depends on unknown task TASK-001"). Each row of the table in
``jlgcli/dev/state.py`` is set up on disk, resumed through one of the three
doors (``jlgcli dev``, ``aidevloop``, ``adl``), and must end in TASK-002's commit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.dev_e2e import (
    BLOCKING_REVIEW,
    ENTRY_POINTS,
    NOTES,
    commits,
    committed_files,
    implement,
    plan_status,
    review,
    run_entry,
    write_script,
)
from support.devproject import CLEAN_REVIEW, GREET, git, make_project

from jlgcli.dev.plan_edit import load_plan, set_status
from jlgcli.dev.project import PROMPT_FILES, default_template

pytestmark = pytest.mark.slow

FAREWELL = GREET + '\n\ndef farewell(name: str) -> str:\n    return f"Goodbye, {name}!"\n'


def task_two_loaded(tmp_path: Path) -> Path:
    """TASK-001 done and committed; TASK-002 (depends on TASK-001) loaded by step 2."""
    root = make_project(tmp_path / "p")
    plan = root / "docs" / "implementation-plan.md"
    (root / "greetings" / "core.py").write_text(GREET, encoding="utf-8")
    set_status(plan, "plan", "TASK-001", "done")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "feat(TASK-001): greeting function")
    context = root / "context"
    context.mkdir()
    task = load_plan(plan, "plan").find("TASK-002")
    assert task is not None and task.dependencies == ("TASK-001",)
    (context / "current-task.md").write_text(task.block, encoding="utf-8")
    # what the interrupted run wrote at step 1: jlgcli's prompt templates, untracked
    for name in PROMPT_FILES:
        target = root / "prompts" / name
        target.parent.mkdir(exist_ok=True)
        target.write_text(default_template(name), encoding="utf-8")
    return root


def arrange(root: Path, status: str, files: dict[str, str]) -> None:
    plan = root / "docs" / "implementation-plan.md"
    if status != "pending":
        set_status(plan, "plan", "TASK-002", status)
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


CODE = {"greetings/core.py": FAREWELL}
NOTES_FILE = {"context/implementation-notes.md": NOTES}
ARCHIVE = "context/completed/TASK-002/"
ARCHIVED = {
    ARCHIVE + "implementation-notes.md": NOTES,
    ARCHIVE + "review.md": CLEAN_REVIEW,
    ARCHIVE + "current-task.md": "### TASK-002: Farewell function\n",
}

# FR-5.1's table (jlgcli/dev/state.py): status, files on disk, step, ambiguous, agent turns.
ROWS: dict[str, tuple[str, dict[str, str], int, bool, list[dict[str, Any]]]] = {
    "pending-loaded": ("pending", {}, 3, False, [implement(FAREWELL), review()]),
    "pending-with-notes": ("pending", NOTES_FILE, 3, True, [implement(FAREWELL), review()]),
    "started-no-notes": ("in-progress", {}, 3, False, [implement(FAREWELL), review()]),
    "started-code-no-notes": ("in-progress", CODE, 3, True, [implement(FAREWELL), review()]),
    "implemented": ("in-progress", {**CODE, **NOTES_FILE}, 4, False, [review()]),
    "reviewed-clean": (
        "in-progress", {**CODE, **NOTES_FILE, "context/review.md": CLEAN_REVIEW}, 6, False, []
    ),
    "reviewed-blocking": (
        "in-progress", {**CODE, **NOTES_FILE, "context/review.md": BLOCKING_REVIEW}, 5, True,
        [review()],
    ),
    "done-not-archived": (
        "done", {**CODE, **NOTES_FILE, "context/review.md": CLEAN_REVIEW}, 7, False, []
    ),
    "done-archived": (
        "done", {**CODE, **NOTES_FILE, "context/review.md": CLEAN_REVIEW, **ARCHIVED}, 8, False,
        [],
    ),
}  # fmt: skip


@pytest.mark.parametrize("row", sorted(ROWS))
def test_resume_a_task_with_dependencies(tmp_path: Path, row: str) -> None:
    # issue 36: fails on main with "current-task.md:7: task TASK-002 depends on unknown task"
    status, files, step, ambiguous, turns = ROWS[row]
    entry = ENTRY_POINTS[sorted(ROWS).index(row) % len(ENTRY_POINTS)]
    root = task_two_loaded(tmp_path)
    arrange(root, status, files)
    script = write_script(tmp_path / "s.json", *turns)
    done = run_entry(entry, root, "resume", "--yes", script=script)
    assert done.returncode == 0, f"{entry}: {done.stdout}\n{done.stderr}"
    assert f"Resuming TASK-002 from step {step}" in done.stdout
    # the untracked prompt templates are jlgcli's, not "code changed" (issue 36)
    assert ("Resume from step" in done.stderr) is ambiguous
    assert "unknown task" not in done.stderr
    assert commits(root)[0] == "feat(TASK-002): farewell function"
    assert plan_status(root, "TASK-002") == "done"
    changed = committed_files(root)
    assert "greetings/core.py" in changed
    assert not [name for name in changed if name.startswith("prompts/")], changed


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_readme_resume_from_step_4_with_the_example_task_two(tmp_path: Path, entry: str) -> None:
    # issue 36: the README's own `jlgcli dev resume --from-step 4` on the example's TASK-002
    root = task_two_loaded(tmp_path)
    arrange(root, "in-progress", {**CODE, **NOTES_FILE})
    script = write_script(tmp_path / "s.json", review())
    done = run_entry(entry, root, "resume", "--from-step", "4", "--yes", script=script)
    assert done.returncode == 0, done.stderr
    assert "Resuming TASK-002 from step 4" in done.stdout
    assert commits(root)[0] == "feat(TASK-002): farewell function"


def test_run_while_a_task_with_dependencies_is_in_progress(tmp_path: Path) -> None:
    # issue 36: `dev run` on an interrupted task names it instead of failing to parse it
    root = task_two_loaded(tmp_path)
    arrange(root, "in-progress", {})
    done = run_entry("aidevloop", root, "run", "--yes")
    assert done.returncode == 2
    assert "TASK-002 is in progress" in done.stderr
    assert "jlgcli dev resume" in done.stderr
