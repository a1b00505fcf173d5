"""Dependency waves (issue 44): the front matter, the order, the verdicts, the start points."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.batch import git, make_repo, make_tasks

from jlgcli.batch.record import BatchRecord, TaskRecord
from jlgcli.batch.schedule import Schedule
from jlgcli.batch.waves import DependencyConflictError, Waves, in_waves, waves
from jlgcli.cli import main
from jlgcli.errors import JlgError
from jlgcli.front_matter import MAX_DEPENDENCIES, split

DONE = {"text": "ok\nDONE"}


@pytest.mark.parametrize(
    ("text", "body", "ids"),
    [
        ("plain task\n", "plain task\n", ()),
        ("---\ntitle: mine\n---\nbody\n", "---\ntitle: mine\n---\nbody\n", ()),
        ("---\ndepends-on: [a\n---\nbody\n", "---\ndepends-on: [a\n---\nbody\n", ()),
        ("---\nno end\n", "---\nno end\n", ()),
        ("---\ndepends-on: [a, b, a]\ntitle: x\n---\nbody\n", "body\n", ("a", "b")),
        ("---\r\ndepends-on: a\r\n---\r\nbody\r\n", "body\n", ("a",)),
        ("---\ndepends-on:\n---\nbody", "body", ()),
        ("---\ndepends-on:\n  - a\n---", "", ("a",)),
        ("---\n- depends-on\n---\nbody\n", "---\n- depends-on\n---\nbody\n", ()),
    ],
)
def test_the_front_matter_is_taken_off_only_when_it_is_jlgclis(
    text: str, body: str, ids: tuple[str, ...]
) -> None:
    found = split(text, "t.md")
    assert (found.body, found.depends_on) == (body, ids)


@pytest.mark.parametrize("value", ["3", "[1, 2]", "{a: b}", f"[{', '.join(['x'] * 65)}]"])
def test_a_malformed_depends_on_is_64(value: str) -> None:
    with pytest.raises(JlgError) as info:
        split(f"---\ndepends-on: {value}\n---\nbody\n", "t.md")
    assert info.value.code == 64
    assert "t.md" in info.value.message
    assert MAX_DEPENDENCIES == 64


def test_waves_keep_the_given_order_and_name_a_cycle() -> None:
    assert waves(["c", "b", "a", "x"], {"c": ["b"], "b": ["a"]}) == [["a", "x"], ["b"], ["c"]]
    with pytest.raises(JlgError) as info:
        waves(["a", "b", "c"], {"a": ["c"], "b": ["a"], "c": ["b"]})
    assert "a -> c -> b -> a" in info.value.message
    tasks = [TaskRecord("b", "b.md", dependsOn=["a"]), TaskRecord("a", "a.md")]
    assert [task.name for task in in_waves(tasks)] == ["a", "b"]


def test_a_verdict_waits_starts_or_skips() -> None:
    record = BatchRecord("batch-x", base=None, target="main", merge=True, isolated=True)
    record.tasks = [TaskRecord("a", "a.md"), TaskRecord("b", "b.md", dependsOn=["a"])]
    gate = Waves(record, None)
    a, b = record.tasks
    assert gate.any and gate.verdict(b, []) is False  # a has not ended
    a.exitCode = 0
    assert gate.verdict(b, ["a"]) == "skipped: a was not merged"
    a.merged = True
    assert gate.verdict(b, ["a"]) is True and b.skipped is None
    a.exitCode, a.stopCause = 5, None
    assert gate.verdict(b, ["a"]) == "skipped: a did not end done (exit 5)"


def test_a_schedule_whose_tasks_wait_on_nothing_is_a_bug_not_a_hang() -> None:
    from jlgcli.batch.board import Board, Row
    from jlgcli.batch.child import ChildRun
    from jlgcli.batch.schedule import Slot

    here = Path(".")
    slot = Slot(ChildRun("a", [], here, here, here, here), Row("a"))
    schedule = Schedule([slot], 1, None, Board([slot.row], quiet=True), lambda *_: None,
                        lambda _: None, ready=lambda _: False)  # fmt: skip
    with pytest.raises(RuntimeError, match="wait on nothing"):
        schedule.run()


def diamond(tmp_path: Path, b_file: str, c_file: str) -> list[str]:
    """a; b and c depend on a; d depends on b and c."""
    turns = {
        "a": [{**DONE, "files": {"a.txt": "a"}}],
        "b": [{**DONE, "files": {b_file: "b"}}],
        "c": [{**DONE, "files": {c_file: "c"}}],
        "d": [{**DONE, "files": {"d.txt": "d"}}],
    }
    paths = make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)
    for path, deps in zip(paths, ["", "a", "a", "b, c"], strict=True):
        if deps:
            text = Path(path).read_text("utf-8")
            Path(path).write_text(f"---\ndepends-on: [{deps}]\n---\n{text}", "utf-8")
    return paths


def test_without_merge_a_task_starts_from_its_dependencies_branches_merged(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = diamond(tmp_path, "b.txt", "c.txt")
    assert main(["loop", *reversed(paths), "-j", "2", "-b", "claude", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [task["id"] for task in data["tasks"]] == ["a", "c", "b", "d"]
    files = set(git(repo, "ls-tree", "--name-only", "jlgcli/d").split())
    assert {"a.txt", "b.txt", "c.txt", "d.txt"} <= files
    assert main(["runs", "show", data["batchId"], "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["tasks"][3]["dependsOn"] == ["b", "c"] and shown["unfinished"] == []


def test_dependencies_whose_branches_conflict_skip_the_task(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = diamond(tmp_path, "same.txt", "same.txt")
    assert main(["loop", *paths, "-j", "2", "-b", "claude", "--json"]) == 1
    data = {task["id"]: task for task in json.loads(capsys.readouterr().out)["tasks"]}
    assert data["d"]["status"] == "skipped: the branches of b, c conflict"
    assert not (tmp_path / "scripts" / "d.json.prompts").exists()


def test_merge_rest_leaves_a_branch_merged_before(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    record = BatchRecord("batch-x", base=None, target="main", merge=False, isolated=True)
    record.tasks = [TaskRecord("a", "a.md", branch="jlgcli/a"),
                    TaskRecord("b", "b.md", branch="jlgcli/b"),
                    TaskRecord("c", "c.md", branch="jlgcli/c", dependsOn=["a", "b"])]  # fmt: skip
    for name in "ab":
        git(repo, "branch", f"jlgcli/{name}")
    gate = Waves(record, repo)
    task = record.tasks[2]
    gate.start_point(task)
    assert task.start == git(repo, "rev-parse", "main").strip()
    git(repo, "worktree", "add", "-q", "-b", "jlgcli/c", str(tmp_path / "c"), task.start)
    (tmp_path / "c" / "c.txt").write_text("c", "utf-8")
    git(tmp_path / "c", "add", "c.txt")
    git(tmp_path / "c", "commit", "-q", "-m", "c's own work")
    gate.merge_rest(task, tmp_path / "c")  # ahead of its start: merged before, left as is
    assert git(tmp_path / "c", "log", "--format=%s", "-1").strip() == "c's own work"
    with pytest.raises(DependencyConflictError):
        record.tasks[1].branch = "jlgcli/nope"
        task.start = None
        gate.start_point(task)
        git(repo, "worktree", "add", "-q", "-b", "jlgcli/c2", str(tmp_path / "c2"), task.start)
        task.branch = "jlgcli/c2"
        gate.merge_rest(task, tmp_path / "c2")


def test_with_merge_a_dependency_is_merged_as_soon_as_it_ends(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = diamond(tmp_path, "b.txt", "c.txt")
    assert main(["loop", *paths, "-j", "2", "--merge", "-b", "claude", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert all(task["merged"] for task in data["tasks"])
    assert all((repo / f"{name}.txt").exists() for name in "abcd")
    # d started from the user's branch after b's and c's merge: one fast-forward each
    subjects = git(repo, "log", "--format=%s", "main").splitlines()
    assert subjects[0] == "Do the d task." and subjects[3] == "Do the a task."
    assert set(subjects[1:3]) == {"Do the b task.", "Do the c task."}


@pytest.mark.parametrize(
    ("field", "value"),
    [("dependsOn", ["ghost"]), ("start", "not-a-commit"), ("backup", "main")],
)
def test_a_record_naming_what_is_not_there_is_damaged(
    tmp_path: Path, field: str, value: object
) -> None:
    from jlgcli.batch.record import load, save

    record = BatchRecord("batch-20261128T000000Z-abcdef", base=None, target=None,
                         merge=False, isolated=False, tasks=[TaskRecord("a", "a.md")])  # fmt: skip
    path = save(tmp_path, record)
    data = json.loads(path.read_text("utf-8"))
    data["tasks"][0][field] = value
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(JlgError) as info:
        load(tmp_path, record.batchId)
    assert info.value.code == 65


def test_a_resume_merges_a_dependency_done_before_then_starts_its_dependents(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from jlgcli.batch.record import load, save

    paths = diamond(tmp_path, "b.txt", "c.txt")
    assert main(["loop", paths[0], paths[1], "-j", "2", "--merge", "-b", "claude",
                 "--json"]) == 0  # fmt: skip
    batch = json.loads(capsys.readouterr().out)["batchId"]
    root = repo / ".jlgcli" / "runs"
    record = load(root, batch)  # as if stopped after a ended, before its merge and b's start
    git(repo, "reset", "-q", "--hard", "HEAD~2")
    a, b = record.tasks
    git(repo, "branch", "-f", "jlgcli/a", git(repo, "rev-parse", "HEAD").strip())
    git(repo, "worktree", "add", "-q", str(repo / ".jlgcli" / "worktrees" / "a"), "jlgcli/a")
    (repo / ".jlgcli" / "worktrees" / "a" / "a.txt").write_text("a", "utf-8")
    git(repo / ".jlgcli" / "worktrees" / "a", "add", "a.txt")
    git(repo / ".jlgcli" / "worktrees" / "a", "commit", "-q", "-m", "a again")
    a.merged, a.mergeNote, a.diffStat = False, None, ""
    b.runId = b.exitCode = b.stopCause = None
    b.merged, b.committed, b.mergeNote, b.start, b.iterations = False, False, None, None, 0
    if "jlgcli/b" in git(repo, "branch"):
        git(repo, "branch", "-D", "jlgcli/b")
    save(root, record)
    assert main(["loop", "--resume", batch, "-b", "claude", "--json"]) == 0
    data = {task["id"]: task for task in json.loads(capsys.readouterr().out)["tasks"]}
    assert data["a"]["merged"] and data["b"]["merged"]
    assert (repo / "a.txt").exists() and (repo / "b.txt").exists()
