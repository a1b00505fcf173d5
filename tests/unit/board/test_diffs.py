"""A batch task's diff on the board: what the record may and may not name (issue 52)."""

from __future__ import annotations

from pathlib import Path

from support.batch import git, make_repo

from jlgcli.board.diffs import task_diff


def _data(base: str | None, branch: str | None = "jlgcli/alpha") -> dict[str, object]:
    return {"base": base, "tasks": [{"id": "alpha", "branch": branch}]}


def test_a_start_that_is_not_a_commit_never_reaches_git(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    for base in (None, "--output=/tmp/x", "HEAD", "main"):
        shown = task_diff(repo, _data(base), "alpha")
        assert shown["text"] == "" and "no branch of its own" in shown["note"], base
    assert "no branch" in task_diff(None, _data("a" * 40), "alpha")["note"]
    assert task_diff(repo, _data("a" * 40), "beta")["note"] == "no such task"


def test_the_branch_diff_since_it_left_the_base(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    base = git(repo, "rev-parse", "HEAD").strip()
    assert "branch is gone" in task_diff(repo, _data(base), "alpha")["note"]
    git(repo, "checkout", "-q", "-b", "jlgcli/alpha")
    assert task_diff(repo, _data(base), "alpha")["note"] == "no change"
    (repo / "shared.txt").write_text("alpha\n", encoding="utf-8")
    git(repo, "commit", "-qam", "alpha")
    shown = task_diff(repo, _data(base), "alpha")
    assert "+alpha" in shown["text"] and "-base" in shown["text"] and not shown["note"]
