"""Proof from stat data that a work tree did not change (issue 50): every kind of change
breaks it, jlgcli's own files do not, and whatever it cannot see makes it give up.

File systems stamp with a coarse clock, so these tests never rely on two stamps being
apart: the tree's time stamps are set in the past first (``_age``), and a change stamps
"now", which differs whatever the clock's tick.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from jlgcli.runner import tree_proof
from jlgcli.runner.snapshots import TreeSnapshots
from jlgcli.runner.tree_proof import TooBigError, TreeProof, _index_entries
from jlgcli.runner.worktree import OutputFiles

PAST = 1_000_000_000  # 2001


def _git(tree: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=tree, check=True, capture_output=True)


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    (tree / "src").mkdir(parents=True)
    (tree / "logs").mkdir()
    (tree / "src" / "a.py").write_text("a = 1\n", encoding="utf-8")
    (tree / "logs" / "x.log").write_text("ignored\n", encoding="utf-8")
    (tree / ".gitignore").write_text("*.log\n", encoding="utf-8")
    _git(tree, "init", "-q")
    _git(tree, "add", "-A")
    return tree


def _age(tree: Path) -> None:
    for folder, dirs, files in os.walk(tree):
        dirs[:] = [name for name in dirs if name != ".git"]
        for name in [*files, *dirs]:
            os.utime(Path(folder) / name, (PAST, PAST), follow_symlinks=False)
    os.utime(tree, (PAST, PAST))


@pytest.fixture(autouse=True)
def no_racy_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """The aged stamps stand for old ones; ctime (never settable) is still now."""
    monkeypatch.setattr(tree_proof, "RACY_S", -3600.0)


def _proof(tree: Path, *own: Path, index: Path | None = None) -> TreeProof:
    walk = TreeProof.walk(tree, own)
    assert walk is not None
    proof = walk.proof(index or tree / ".git" / "index")
    assert proof is not None
    return proof


def test_an_untouched_tree_holds(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    _age(tree)
    assert _proof(tree).holds()


@pytest.mark.parametrize(
    "change",
    [
        lambda tree: (tree / "src" / "a.py").write_text("a = 2\n", encoding="utf-8"),  # same size
        lambda tree: (tree / "src" / "a.py").unlink(),
        lambda tree: (tree / "src" / "b.py").write_text("", encoding="utf-8"),
        lambda tree: (tree / "logs" / "new.csv").write_text("1\n", encoding="utf-8"),
        lambda tree: (tree / "src" / "a.py").rename(tree / "src" / "c.py"),
        lambda tree: (tree / "src" / "deep").mkdir(),
        lambda tree: (tree / "src" / "a.py").chmod(0o755),
        lambda tree: (tree / ".gitignore").write_text("", encoding="utf-8"),
    ],
    ids=["rewritten", "removed", "created", "in-ignored-only-dir", "renamed", "new-dir",
         "chmod", "gitignore"],
)  # fmt: skip
def test_every_kind_of_change_breaks_it(tmp_path: Path, change: object) -> None:
    tree = _tree(tmp_path)
    _age(tree)
    proof = _proof(tree)
    change(tree)  # type: ignore[operator]
    assert not proof.holds()


def test_jlgcli_own_files_do_not_break_it(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    (tree / ".jlgcli" / "runs").mkdir(parents=True)
    (tree / "run.log").write_text("", encoding="utf-8")
    _git(tree, "add", "-f", "run.log")  # even tracked, it is jlgcli's output
    _age(tree)
    proof = _proof(tree, tree / ".jlgcli", tree / "run.log")
    (tree / ".jlgcli" / "runs" / "state.json").write_text("{}", encoding="utf-8")
    (tree / "run.log").write_text("iteration 1\n", encoding="utf-8")
    assert proof.holds()


def test_a_file_in_the_index_the_walk_did_not_see_gives_up(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    _age(tree)
    walk = TreeProof.walk(tree, ())
    (tree / "src" / "late.py").write_text("", encoding="utf-8")
    _git(tree, "add", "src/late.py")
    assert walk is not None and walk.proof(tree / ".git" / "index") is None


def test_a_recent_stamp_gives_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tree_proof, "RACY_S", 3600.0)
    tree = _tree(tmp_path)
    _age(tree)  # the ctimes are still now
    assert TreeProof.walk(tree, ()) is None


def test_a_big_tree_is_left_to_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tree_proof, "MAX_PATHS", 3)
    with pytest.raises(TooBigError):
        TreeProof.walk(_tree(tmp_path), ())


def test_git_dir_in_the_environment_gives_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _tree(tmp_path)
    monkeypatch.setenv("GIT_DIR", str(tree / ".git"))
    assert TreeProof.walk(tree, ()) is None


def test_a_subfolder_holds_its_own_files_only(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    _age(tree)
    proof = _proof(tree / "src", index=tree / ".git" / "index")
    (tree / "elsewhere.txt").write_text("x\n", encoding="utf-8")
    assert proof.holds()  # outside the folder the loop snapshots


# -- the index, as git writes it -----------------------------------------------------------------
def _entries(tree: Path) -> list[tuple[bytes, int]] | None:
    return _index_entries((tree / ".git" / "index").read_bytes())


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_every_index_version_is_read(tmp_path: Path, version: str) -> None:
    tree = _tree(tmp_path)
    (tree / "src" / "a long name, to be shared.py").write_text("", encoding="utf-8")
    (tree / "src" / "a long name, to be split.py").write_text("", encoding="utf-8")
    _git(tree, "add", "-A")
    _git(tree, "update-index", "--index-version", version)
    entries = _entries(tree)
    assert entries is not None
    assert [name for name, _ in entries] == [
        b".gitignore", b"src/a long name, to be shared.py", b"src/a long name, to be split.py",
        b"src/a.py",
    ]  # fmt: skip
    assert {mode for _, mode in entries} == {0o100644}


def test_what_the_proof_cannot_see_gives_up(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    _git(tree, "update-index", "--skip-worktree", "src/a.py")  # a sparse checkout's mark
    assert _entries(tree) is None
    _git(tree, "update-index", "--no-skip-worktree", "src/a.py")
    _git(tree, "update-index", "--split-index")  # the entries are in another file
    assert _entries(tree) is None
    assert _index_entries(b"not an index") is None


def test_a_submodule_gives_up(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    blob = "1" * 40
    _git(tree, "update-index", "--add", "--cacheinfo", f"160000,{blob},src/sub")
    (tree / "src" / "sub").mkdir()
    _age(tree)
    walk = TreeProof.walk(tree, ())
    assert walk is not None and walk.proof(tree / ".git" / "index") is None


# -- with the snapshots --------------------------------------------------------------------------
def test_an_unchanged_iteration_starts_no_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jlgcli.process import git

    tree = _tree(tmp_path)
    _age(tree)
    repo = str(tree / ".git")
    snaps = TreeSnapshots(tree, lambda: (), OutputFiles(()))
    first = snaps.take(repo)
    monkeypatch.setattr(git, "run", lambda *args, **kwargs: pytest.fail(f"git: {args}"))
    assert snaps.take(repo) == first
    assert snaps.take(repo) == first
    monkeypatch.undo()
    monkeypatch.setattr(tree_proof, "RACY_S", -3600.0)
    (tree / "src" / "a.py").write_text("a = 1\nb = 2\n", encoding="utf-8")
    after = snaps.take(repo)
    assert after != first
    assert snaps.diff_stat(first, after) == {"files": 1, "insertions": 1, "deletions": 0}


def test_a_big_tree_asks_git_every_time_and_is_not_walked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gits: list[tuple[str, ...]]
) -> None:
    monkeypatch.setattr(tree_proof, "MAX_PATHS", 3)
    walks: list[Path] = []
    real_walk = TreeProof.walk

    def counting(cwd: Path, own: tuple[Path, ...]) -> object:
        walks.append(cwd)
        return real_walk(cwd, own)

    monkeypatch.setattr(TreeProof, "walk", counting)
    tree = _tree(tmp_path)
    _age(tree)
    repo = str(tree / ".git")
    snaps = TreeSnapshots(tree, lambda: (), OutputFiles(()))
    first = snaps.take(repo)
    gits.clear()
    assert snaps.take(repo) == first and snaps.take(repo) == first
    assert [args[0] for args in gits] == ["add", "add"] and len(walks) == 1
