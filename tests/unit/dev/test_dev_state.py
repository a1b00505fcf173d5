"""Resume inference from the context files and the task status (seed 003 FR-5.1, AC-3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.dev_unit import (
    BLOCKING_REVIEW,
    NOTES,
    task,
)
from support.devproject import (
    CLEAN_REVIEW,
)

from jlgcli.dev.config import DevConfig
from jlgcli.dev.plan import parse_plan
from jlgcli.dev.project import ProjectPaths
from jlgcli.dev.state import current_task_id, infer_resume
from jlgcli.errors import DevExitCode, JlgError


def layout(tmp_path: Path, status: str, **files: str) -> tuple[ProjectPaths, object]:
    paths = ProjectPaths.from_config(tmp_path, DevConfig())
    paths.completed.mkdir(parents=True)
    paths.current_task.write_text(task("T-1"), encoding="utf-8")
    names = {"notes": paths.notes, "review": paths.review}
    for key, text in files.items():
        if key == "archive":
            target = paths.archive_dir("T-1")
            target.mkdir(parents=True)
            for name in text.split(","):
                (target / name).write_text("x", encoding="utf-8")
        else:
            names[key].write_text(text, encoding="utf-8")
    return paths, parse_plan(task("T-1", status), "plan.md")


@pytest.mark.parametrize(
    ("status", "files", "changes", "step", "ambiguous"),
    [
        ("pending", {}, False, 3, False),
        ("pending", {"notes": NOTES}, False, 3, True),
        ("in-progress", {}, False, 3, False),
        ("in-progress", {"notes": "  \n"}, False, 3, False),
        ("in-progress", {}, True, 3, True),
        ("in-progress", {"notes": NOTES}, False, 4, False),
        ("in-progress", {"notes": NOTES, "review": CLEAN_REVIEW}, False, 6, False),
        ("in-progress", {"notes": NOTES, "review": BLOCKING_REVIEW}, False, 5, True),
        ("in-progress", {"notes": NOTES, "review": "garbled"}, False, 5, True),
        ("done", {"notes": NOTES, "review": CLEAN_REVIEW}, False, 7, False),
        (
            "done",
            {"notes": NOTES, "review": CLEAN_REVIEW, "archive": "implementation-notes.md"},
            False,
            7,
            False,
        ),
        (
            "done",
            {
                "notes": NOTES,
                "review": CLEAN_REVIEW,
                "archive": "implementation-notes.md,review.md,current-task.md",
            },
            False,
            8,
            False,
        ),
    ],
)
def test_table(
    tmp_path: Path, status: str, files: dict[str, str], changes: bool, step: int, ambiguous: bool
) -> None:
    paths, plan = layout(tmp_path, status, **files)
    point = infer_resume(paths, plan, lambda: changes)  # type: ignore[arg-type]
    assert (point.task.id, point.step, point.ambiguous) == ("T-1", step, ambiguous)
    assert point.reason


def test_no_task_in_progress(tmp_path: Path) -> None:
    paths = ProjectPaths.from_config(tmp_path, DevConfig())
    with pytest.raises(JlgError) as info:
        current_task_id(paths)
    assert info.value.code == DevExitCode.CONFIGURATION
    assert info.value.message == "No task in progress (context/current-task.md not found)"


def test_garbled_current_task(tmp_path: Path) -> None:
    paths, plan = layout(tmp_path, "in-progress")
    paths.current_task.write_text("just text\n", encoding="utf-8")
    with pytest.raises(JlgError) as info:
        infer_resume(paths, plan, lambda: False)  # type: ignore[arg-type]
    assert "context/current-task.md names no task" in info.value.message


def test_current_task_with_dependencies_is_not_parsed_as_a_plan(tmp_path: Path) -> None:
    # issue 36: the block's "Dependencies: T-1" names a task that is only in the plan
    paths, _ = layout(tmp_path, "in-progress")
    plan = parse_plan(task("T-1", "done") + task("T-2", "in-progress", deps="T-1"), "plan.md")
    block = plan.find("T-2")
    assert block is not None
    paths.current_task.write_text(block.block, encoding="utf-8")
    point = infer_resume(paths, plan, lambda: False)
    assert (point.task.id, point.step) == ("T-2", 3)


def test_the_remembered_id_when_the_block_names_none(tmp_path: Path) -> None:
    paths, _ = layout(tmp_path, "in-progress")
    paths.current_task.write_text("just text\n", encoding="utf-8")
    assert current_task_id(paths, "T-1") == "T-1"


def test_task_missing_from_plan(tmp_path: Path) -> None:
    paths, _ = layout(tmp_path, "in-progress")
    with pytest.raises(JlgError) as info:
        infer_resume(paths, parse_plan(task("T-2")), lambda: False)
    assert "task T-1 (from context/current-task.md) is not in" in info.value.message


def test_blocked_task_is_not_resumable(tmp_path: Path) -> None:
    paths, plan = layout(tmp_path, "blocked")
    with pytest.raises(JlgError) as info:
        infer_resume(paths, plan, lambda: False)  # type: ignore[arg-type]
    assert info.value.message == "T-1 is blocked; nothing to resume"
