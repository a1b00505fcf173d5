"""The task's record: commit only what the task changed, and the real agent and count after
``resume`` (seed 003 FR-4.2 step 8, FR-5, NFR-2; issue 13).

The loop runs in-process with the scripted agent and real git (as in
``test_dev_orchestrator.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.dev_unit import (
    BLOCKING_REVIEW,
    ScriptedAgent,
    Turn,
    implement_turn,
    review_turn,
    run_loop,
)
from support.devproject import git, make_project

from jlgcli.dev.orchestrator import DevResult
from jlgcli.dev.taskstate import StateStore, TaskRecord, file_digest
from jlgcli.errors import DevExitCode, JlgError

GOOD = [Turn(implement_turn()), Turn(review_turn())]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "proj")


def committed_files(root: Path) -> set[str]:
    return set(git(root, "show", "--name-only", "--format=", "HEAD").split())


def dirty_before_the_task(root: Path) -> None:
    """A work tree with changes of the user's own: untracked, modified, staged."""
    (root / "notes-local.txt").write_text("my notes\n", encoding="utf-8")
    (root / "scratch").mkdir()
    (root / "scratch" / "build.log").write_text("log\n", encoding="utf-8")
    (root / "docs" / "architecture.md").write_text("# my draft\n", encoding="utf-8")
    (root / "README.md").write_text("staged draft\n", encoding="utf-8")
    git(root, "add", "README.md")


LEFT_OUT = {"notes-local.txt", "scratch/build.log", "docs/architecture.md", "README.md"}


def test_fr_4_2_step_8_commits_only_what_the_task_changed(project: Path) -> None:
    dirty_before_the_task(project)
    result, _, err = run_loop(project, ScriptedAgent(list(GOOD)))
    assert isinstance(result, DevResult) and result.status == "committed"
    assert set(result.to_json()["leftOut"]) == LEFT_OUT
    files = committed_files(project)
    assert {"greetings/core.py", "tests/test_core.py", "docs/implementation-plan.md"} <= files
    assert "context/completed/TASK-001/current-task.md" in files
    assert not files & LEFT_OUT
    assert "Left out, as they were before the task started (4):" in err
    assert "    notes-local.txt" in err
    status = git(project, "status", "--porcelain").splitlines()
    assert sorted(status) == sorted(
        [
            "M  README.md",
            " M docs/architecture.md",
            "?? notes-local.txt",
            "?? scratch/",
        ]  # jlgcli's own: its notices ignored, its templates committed apart (issue 49)
    )
    assert (project / "notes-local.txt").read_text(encoding="utf-8") == "my notes\n"


def test_fr_4_2_a_tracked_file_the_task_changed_again_is_committed(project: Path) -> None:
    init = project / "greetings" / "__init__.py"
    init.write_text("# started by hand\n", encoding="utf-8")
    (project / "notes-local.txt").write_text("mine\n", encoding="utf-8")
    files = {**implement_turn(), "greetings/__init__.py": "from .core import greet\n"}
    result, _, _ = run_loop(project, ScriptedAgent([Turn(files), Turn(review_turn())]))
    assert isinstance(result, DevResult)
    assert "greetings/__init__.py" in committed_files(project)
    assert "notes-local.txt" not in committed_files(project)


def test_fr_4_2_an_untracked_file_from_before_stays_out_even_if_rewritten(project: Path) -> None:
    (project / "greetings" / "core.py").write_text("# a local experiment\n", encoding="utf-8")
    result, _, _ = run_loop(project, ScriptedAgent(list(GOOD)))
    assert isinstance(result, DevResult)
    assert "greetings/core.py" not in committed_files(project)
    assert "?? greetings/core.py" in git(project, "status", "--porcelain")


def test_the_work_tree_record_survives_an_interruption(project: Path) -> None:
    def interrupt() -> None:
        raise KeyboardInterrupt

    dirty_before_the_task(project)
    result, _, _ = run_loop(project, ScriptedAgent([Turn(action=interrupt)]))
    assert isinstance(result, JlgError) and result.code == DevExitCode.ABORTED
    result, _, err = run_loop(project, ScriptedAgent(list(GOOD)), command="resume")
    assert isinstance(result, DevResult) and result.status == "committed"
    assert not committed_files(project) & LEFT_OUT
    assert "no record of the work tree" not in err


def test_resume_commit_message_names_the_real_agent_and_iterations(project: Path) -> None:
    blocked = [Turn(review_turn(BLOCKING_REVIEW)), Turn({"context/implementation-notes.md": "x"})]
    agent = ScriptedAgent([Turn(implement_turn()), *blocked, Turn(review_turn())], name="copilot")
    result, _, _ = run_loop(project, agent, ["n"])  # commit not approved
    assert isinstance(result, JlgError) and result.code == DevExitCode.ABORTED
    result, _, _ = run_loop(project, ScriptedAgent([], name="claude"), ["y"], command="resume")
    assert isinstance(result, DevResult) and result.status == "committed"
    body = git(project, "log", "-1", "--format=%B")
    assert "Implemented with jlgcli dev (copilot); review iterations: 2." in body


def test_resume_carries_the_accepted_warnings_to_the_commit(tmp_path: Path) -> None:
    failing = ["python", "-c", "raise SystemExit(4)"]
    root = make_project(tmp_path / "p", {"validation": {"commands": {"test": failing}}})
    result, _, _ = run_loop(root, ScriptedAgent([Turn(implement_turn())]), ["n", "n"])
    assert isinstance(result, JlgError) and result.code == DevExitCode.ABORTED
    result, _, _ = run_loop(root, ScriptedAgent([]), ["y"], command="resume")
    assert isinstance(result, DevResult)
    body = git(root, "log", "-1", "--format=%B")
    assert (
        "- automated validation failed: lint skipped, typecheck skipped, test FAILED (exit 4)"
        in body
    )


def test_resume_without_a_record_proposes_every_change_and_says_so(project: Path) -> None:
    result, _, _ = run_loop(project, ScriptedAgent(list(GOOD)), ["n"])
    assert isinstance(result, JlgError)
    (Path(git(project, "rev-parse", "--absolute-git-dir").strip()) / "jlgcli-dev").joinpath(
        "task.json"
    ).unlink()
    result, out, _ = run_loop(project, ScriptedAgent([]), ["n"], command="resume")
    assert isinstance(result, JlgError)
    assert "warning: no record of the work tree when TASK-001 started" in out
    result, out, _ = run_loop(project, ScriptedAgent([]), ["y"], command="resume")
    assert isinstance(result, DevResult)
    assert "warning: no record of the work tree when TASK-001 started" in out  # still unknown


def test_split_changes(tmp_path: Path) -> None:
    (tmp_path / "same.txt").write_text("a", encoding="utf-8")
    (tmp_path / "edited.txt").write_text("a", encoding="utf-8")
    (tmp_path / "new.txt").write_text("a", encoding="utf-8")
    record = TaskRecord.begin(
        "T-1", tmp_path, ["same.txt", "edited.txt", "gone.txt", "new.txt"], ["new.txt"]
    )
    (tmp_path / "edited.txt").write_text("b", encoding="utf-8")
    (tmp_path / "new.txt").write_text("changed by the task, still not its file", encoding="utf-8")
    changed = ["same.txt", "edited.txt", "gone.txt", "new.txt", "task.txt"]
    taken, left_out = record.split_changes(tmp_path, changed)
    assert taken == ["edited.txt", "task.txt"]
    assert left_out == ["same.txt", "gone.txt", "new.txt"]
    assert record.dirty["gone.txt"] is None
    assert record.dirty["same.txt"] == file_digest(tmp_path / "same.txt")


def test_store_round_trip_and_other_tasks(tmp_path: Path) -> None:
    store = StateStore(tmp_path)
    record = TaskRecord("T-1", {"a": None}, ["b"], ["copilot"], 2, ["w"])
    store.save_task(record)
    assert store.load_task("T-1") == record
    assert store.load_task("T-2") is None
    (tmp_path / "jlgcli-dev" / "task.json").write_text(json.dumps({"format": 99}), "utf-8")
    assert store.load_task("T-1") is None
    store.forget_task()
    assert store.load_task("T-1") is None


def test_an_unwritable_state_directory(tmp_path: Path) -> None:
    blocker = tmp_path / "git-dir"
    blocker.write_text("a file where the git directory should be", encoding="utf-8")
    store = StateStore(blocker)
    with pytest.raises(JlgError) as info:
        store.save_task(TaskRecord("T-1"))
    assert info.value.code == DevExitCode.TASK_FAILED
    assert "cannot save the task's state" in info.value.message
