"""Git steps of a batch on real repositories: nothing unmerged is ever removed (issue 37)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.batch import git, make_repo

from jlgcli.batch import gitops
from jlgcli.batch.finish import commit_done, merge_all
from jlgcli.batch.record import BatchRecord, TaskRecord
from jlgcli.batch.setup import make_worktrees, new_record, worktree_of


def batch(repo: Path, tmp_path: Path, *names: str) -> BatchRecord:
    tasks = []
    for name in names:
        (tmp_path / f"{name}.md").write_text(name, "utf-8")
        tasks.append(tmp_path / f"{name}.md")
    record = new_record(tasks, repo, merge=True)
    make_worktrees(repo, record)
    return record


def test_names_skip_existing_branches_and_worktrees(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    git(repo, "branch", "jlgcli/a")
    record = batch(repo, tmp_path, "a", "b")
    assert [t.branch for t in record.tasks] == ["jlgcli/a-2", "jlgcli/b"]
    assert worktree_of(repo, "a-2").is_dir() and gitops.current_branch(
        worktree_of(repo, "a-2")
    ) == ("jlgcli/a-2")
    assert gitops.dirty(repo) == []  # the worktrees stay out of the user's status


def test_a_worktree_with_uncommitted_work_is_never_removed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    record = batch(repo, tmp_path, "a")
    tree = worktree_of(repo, "a")
    (tree / "new.txt").write_text("work", "utf-8")
    assert gitops.remove_worktree(repo, tree) is False and (tree / "new.txt").exists()
    assert gitops.commit_all(tree, "work") is True and gitops.commit_all(tree, "again") is False
    # a branch with commits not on main: git branch -d refuses
    assert gitops.delete_merged_branch(repo, record.tasks[0].branch) is False
    assert gitops.remove_worktree(repo, tmp_path / "gone") is True


def test_merge_rebases_reruns_the_gates_and_fast_forwards(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    record = batch(repo, tmp_path, "a", "b", "c", "d")
    files = {"a": ("a.txt", "a"), "b": ("shared.txt", "b"), "c": ("shared.txt", "c"),
             "d": ("BROKEN", "x")}  # fmt: skip
    for task in record.tasks:
        name, text = files[task.name]
        (worktree_of(repo, task.name) / name).write_text(text, "utf-8")
        task.exitCode = 0
        commit_done(repo, record, task)
    gate = "python -c \"import os,sys; sys.exit(1 if os.path.exists('BROKEN') else 0)\""
    merge_all(repo, record, (gate,))
    a, b, c, d = record.tasks
    assert (a.merged, b.merged, c.merged, d.merged) == (True, True, False, False)
    assert "conflicts" in (c.mergeNote or "") and "git -C" in (c.mergeNote or "")
    assert "the gate" in (d.mergeNote or "") and "exit 1" in (d.mergeNote or "")
    assert (repo / "shared.txt").read_text("utf-8") == "b"
    assert not worktree_of(repo, "a").exists() and worktree_of(repo, "c").is_dir()
    assert not gitops.branch_exists(repo, "jlgcli/a") and gitops.branch_exists(repo, "jlgcli/c")
    assert a.diffStat.startswith("1 file changed")
    assert b.diffStat.startswith("1 file changed")  # its own change, not a's before it


def test_merge_leaves_everything_when_the_tree_got_dirty(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    record = batch(repo, tmp_path, "a", "e")
    (worktree_of(repo, "a") / "a.txt").write_text("a", "utf-8")
    for task in record.tasks:
        task.exitCode = 0
        commit_done(repo, record, task)
    (repo / "mine.txt").write_text("the user's work", "utf-8")
    merge_all(repo, record, ())
    assert not record.tasks[0].merged and "no longer clean" in (record.tasks[0].mergeNote or "")
    (repo / "mine.txt").unlink()
    merge_all(repo, record, ())
    assert record.tasks[0].merged and record.tasks[1].mergeNote == "nothing to merge (no changes)"


def test_a_failed_git_command_raises_with_its_message(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    try:
        gitops.git(repo, "rev-parse", "--verify", "nope")
    except gitops.GitError as exc:
        assert "rev-parse" in str(exc)
    else:  # pragma: no cover - the guard
        raise AssertionError("no GitError")
    assert gitops.toplevel(tmp_path) is None
    assert gitops.ahead(repo, "nope", "main") == 0 and gitops.diff_stat(repo, "x", "y") == ""
    git(repo, "checkout", "-q", "--detach")
    assert gitops.current_branch(repo) is None
    assert isinstance(TaskRecord("a", "t").finished, bool)


def test_worktrees_come_back_from_their_branch_but_never_for_merged_tasks(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    record = batch(repo, tmp_path, "a", "b")
    for task in record.tasks:
        (worktree_of(repo, task.name) / f"{task.name}.txt").write_text("x", "utf-8")
    a, b = record.tasks
    a.exitCode = 0
    commit_done(repo, record, a)
    gitops.commit_all(worktree_of(repo, "b"), "b so far")  # b: unfinished, its work committed
    merge_all(repo, record, ())
    assert a.merged and not b.merged and not worktree_of(repo, "a").exists()
    git(repo, "worktree", "remove", str(worktree_of(repo, "b")))
    make_worktrees(repo, record)  # what a resume does
    assert not worktree_of(repo, "a").exists() and not gitops.branch_exists(repo, "jlgcli/a")
    assert (worktree_of(repo, "b") / "b.txt").exists()


def test_a_commit_that_fails_with_changes_staged_raises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 37: commit_all asks "anything staged?" only after a failed commit
    tree = _worktree_with_work(tmp_path)
    real = gitops.git

    def locked_commit(cwd: Path, *argv: str, check: bool = True) -> gitops.CommandResult:
        if "commit" in argv:  # another git holds the worktree's index
            admin = Path(real(cwd, "rev-parse", "--git-dir").stdout.strip())
            (admin if admin.is_absolute() else cwd / admin).joinpath("index.lock").touch()
        return real(cwd, *argv, check=check)

    monkeypatch.setattr(gitops, "git", locked_commit)
    with pytest.raises(gitops.GitError, match="commit"):
        gitops.commit_all(tree, "work")


def test_a_worktree_git_cannot_make_raises_its_error(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (tmp_path / "a.md").write_text("a", "utf-8")
    record = new_record([tmp_path / "a.md"], repo, merge=False)
    record.base = "0" * 40  # no such commit: not "the branch is there already"
    with pytest.raises(gitops.GitError):
        make_worktrees(repo, record)
    assert not gitops.branch_exists(repo, "jlgcli/a")


def test_worktrees_made_ahead_skip_a_failure_and_stop_when_told(tmp_path: Path) -> None:
    from jlgcli.batch.setup import WorktreeMaker

    repo = make_repo(tmp_path / "repo")
    for name in ("a", "b"):
        (tmp_path / f"{name}.md").write_text(name, "utf-8")
    record = new_record([tmp_path / "a.md", tmp_path / "b.md"], repo, merge=False)
    record.tasks[0].branch = "jlgcli/bad..name"  # git refuses that name
    maker = WorktreeMaker(repo, record)
    maker.start_ahead(record.tasks)
    assert maker._thread is not None
    maker._thread.join(60)  # all of them, without being told to stop
    maker.finish()
    assert not worktree_of(repo, "a").exists()
    assert worktree_of(repo, "b").is_dir()  # made although "a" failed (its thread says why)
    stopped = WorktreeMaker(repo, new_record([tmp_path / "a.md"], repo, merge=False))
    stopped.finish()  # told to stop before it started: it makes nothing
    stopped.start_ahead(stopped.record.tasks)
    stopped.finish()
    assert not worktree_of(repo, "a").exists()


def test_a_tasks_commit_starts_no_repository_maintenance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 37: tasks commit at once into one object store; no auto gc from each."""
    tree = _worktree_with_work(tmp_path)
    trace = tmp_path / "trace.txt"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    assert gitops.commit_all(tree, "work") is True
    said = trace.read_text("utf-8")
    assert "built-in: git commit" in said and "run_command" not in said  # nothing started


def _worktree_with_work(tmp_path: Path) -> Path:
    """Task ``a``'s worktree with a new file not yet committed."""
    repo = make_repo(tmp_path / "repo")
    batch(repo, tmp_path, "a")
    tree = worktree_of(repo, "a")
    (tree / "new.txt").write_text("work", "utf-8")
    return tree
