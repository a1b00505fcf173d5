"""A loop's snapshots through one private index (issue 50): one git process for an iteration
that changed nothing, the same trees and diff stats as a fresh snapshot when it did, the
user's index untouched and jlgcli's own files never counted (issue 31)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from jlgcli.process import git
from jlgcli.process.model import ProcessOutcome, StopReason
from jlgcli.runner import worktree
from jlgcli.runner.snapshots import TreeSnapshots, _named_paths
from jlgcli.runner.worktree import OutputFiles


def _repo(tmp_path: Path) -> tuple[Path, str]:
    tree = tmp_path / "tree"
    tree.mkdir()
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    (tree / "a.txt").write_text("one\n", encoding="utf-8")
    (tree / "b.txt").write_text("b\n", encoding="utf-8")
    subprocess.run(["git", "add", "a.txt"], cwd=tree, check=True)  # b.txt stays untracked
    repo = worktree.git_dir(tree, environ={})
    assert repo is not None
    return tree, repo


def _snapshots(tree: Path, *own: Path, outputs: OutputFiles | None = None) -> TreeSnapshots:
    outputs = outputs or OutputFiles(())
    return TreeSnapshots(tree, lambda: (*own, *outputs.found), outputs)


def test_an_iteration_that_changed_nothing_costs_one_git_process(
    tmp_path: Path, gits: list[tuple[str, ...]]
) -> None:
    tree, repo = _repo(tmp_path)
    gits.clear()
    snaps = _snapshots(tree)
    first = snaps.take(repo)
    assert [args[0] for args in gits] == ["add", "write-tree"]
    gits.clear()
    (tree / "a.txt").touch()  # a newer mtime, the same content: git re-reads it, names nothing
    assert snaps.take(repo) == first
    assert snaps.diff_stat(first, first) == {"files": 0, "insertions": 0, "deletions": 0}
    assert [args[:3] for args in gits] == [("add", "-A", "-v")]


def test_a_changed_tree_gives_the_trees_and_stat_of_a_fresh_snapshot(tmp_path: Path) -> None:
    tree, repo = _repo(tmp_path)
    snaps = _snapshots(tree)
    before = snaps.take(repo)
    assert before == worktree.snapshot(tree, repo=repo)
    (tree / "a.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")  # +2
    (tree / "b.txt").unlink()  # -1 (it was untracked: the snapshot had it all the same)
    (tree / "new dir").mkdir()
    (tree / "new dir" / "c é.txt").write_text("c\n", encoding="utf-8")  # +1
    after = snaps.take(repo)
    assert after is not None and after != before
    assert after == worktree.snapshot(tree, repo=repo)
    assert snaps.diff_stat(before, after) == {"files": 3, "insertions": 3, "deletions": 1}
    assert snaps.take(repo) == after  # and nothing since


def test_the_users_index_is_never_touched(tmp_path: Path) -> None:
    tree, repo = _repo(tmp_path)
    index = Path(repo) / "index"
    kept = index.read_bytes()
    snaps = _snapshots(tree)
    snaps.take(repo)
    (tree / "d.txt").write_text("d\n", encoding="utf-8")
    snaps.take(repo)
    assert index.read_bytes() == kept
    staged = subprocess.run(["git", "diff", "--cached", "--name-only"], cwd=tree, check=True,
                            capture_output=True, text=True).stdout  # fmt: skip
    assert staged.split() == ["a.txt"]


def test_jlgcli_own_files_are_no_change(tmp_path: Path, gits: list[tuple[str, ...]]) -> None:
    tree, repo = _repo(tmp_path)
    snaps = _snapshots(tree, tree / ".jlgcli", tree / "events.jsonl")
    first = snaps.take(repo)
    (tree / ".jlgcli" / "runs").mkdir(parents=True)
    (tree / ".jlgcli" / "runs" / "state.json").write_text("{}", encoding="utf-8")
    (tree / "events.jsonl").write_text("{}\n", encoding="utf-8")
    gits.clear()
    assert snaps.take(repo) == first
    assert len(gits) == 1


def test_an_output_file_that_appears_later_is_left_out_without_another_git(
    tmp_path: Path, gits: list[tuple[str, ...]]
) -> None:
    """``jlgcli loop > run.log``: a stream's file found among the paths ``add -v`` names."""
    tree, repo = _repo(tmp_path)
    log = tmp_path / "elsewhere.log"  # not in the tree when the run starts
    log.write_text("", encoding="utf-8")
    outputs = OutputFiles({(log.stat().st_dev, log.stat().st_ino)})
    snaps = _snapshots(tree, outputs=outputs)
    gits.clear()
    first = snaps.take(repo)
    assert gits[0][0] == "ls-files"  # looked for once, at the first snapshot
    (tree / "run.log").hardlink_to(log)  # the same file, now in the tree
    log.write_text("iteration 1\n", encoding="utf-8")
    gits.clear()
    second = snaps.take(repo)
    assert outputs.found == [tree / "run.log"] and not outputs.wanted
    assert second == first and gits == [gits[0]]  # one add; no ls-files again
    log.write_text("iteration 1\niteration 2\n", encoding="utf-8")
    (tree / "work.txt").write_text("real\n", encoding="utf-8")
    third = snaps.take(repo)  # left out of every add and every diff from now on
    assert snaps.diff_stat(first, third) == {"files": 1, "insertions": 1, "deletions": 0}


def test_a_failing_git_is_no_evidence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree, repo = _repo(tmp_path)
    snaps = _snapshots(tree)
    assert snaps.take(repo) is not None
    failed = ProcessOutcome(128, None, StopReason.EXITED, 0.0)
    monkeypatch.setattr(git, "run", lambda *args, **kwargs: git.CommandResult(args[1:], failed))
    (tree / "a.txt").write_text("two\n", encoding="utf-8")  # git is asked (no stat proof)
    assert snaps.take(repo) is None
    assert snaps.diff_stat(None, None) is None


def test_close_removes_the_private_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # TMPDIR read again
    tree, repo = _repo(tmp_path)
    snaps = _snapshots(tree)
    snaps.take(repo)
    assert [p.name[:13] for p in (tmp_path / "tmp").iterdir()] == ["jlgcli-index-"]
    snaps.close()
    assert list((tmp_path / "tmp").iterdir()) == []
    snaps.close()  # twice: harmless


@pytest.mark.parametrize(
    ("verbose", "paths"),
    [
        ("", []),
        ("add 'a.txt'\nremove 'b c.txt'", ["a.txt", "b c.txt"]),
        ("add 'it''s'", ["it''s"]),
        ("something else", ["something else"]),  # still a change
    ],
)
def test_the_paths_add_v_names(verbose: str, paths: list[str]) -> None:
    assert _named_paths(verbose) == paths
