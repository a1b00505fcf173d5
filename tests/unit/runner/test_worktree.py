"""The work tree's git directory is found once a run, without spawning git outside a
repository (issue 18: loop overhead); snapshots and their diff stat (issue 17)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from jlgcli import records
from jlgcli.process import git
from jlgcli.process.model import ProcessOutcome, StopReason
from jlgcli.process.outcome import OutputTail
from jlgcli.runner import worktree


def _no_git(*args: object, **kwargs: object) -> git.CommandResult:
    raise AssertionError(f"git was spawned: {args}")


def test_outside_any_repository_git_is_not_spawned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(git, "run", _no_git)
    (tmp_path / "sub").mkdir()
    assert worktree.git_dir(tmp_path / "sub", environ={}) is None


def test_inside_a_repository_git_answers(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "deep" / "er").mkdir(parents=True)
    found = worktree.git_dir(tmp_path / "deep" / "er", environ={})
    assert found is not None and Path(found) == (tmp_path / ".git").resolve()


def test_git_environment_variables_always_ask_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[str, ...]] = []

    def fake_git(cwd: Path, *args: str, **kwargs: object) -> git.CommandResult:
        asked.append(args)
        said = OutputTail.holding("/elsewhere/.git\n")
        return git.CommandResult(args, ProcessOutcome(0, None, StopReason.EXITED, 0.0, output=said))

    monkeypatch.setattr(git, "run", fake_git)
    assert worktree.git_dir(tmp_path, environ={"GIT_DIR": "/elsewhere/.git"}) == "/elsewhere/.git"
    assert asked == [("rev-parse", "--absolute-git-dir")]


def test_a_changed_file_shows_in_the_diff_stat(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    repo = worktree.git_dir(tmp_path, environ={})
    (tmp_path / "a.txt").write_text("one\n", encoding="utf-8")
    before = worktree.snapshot(tmp_path, repo=repo)
    (tmp_path / "a.txt").write_text("one\ntwo\n", encoding="utf-8")
    after = worktree.snapshot(tmp_path, repo=repo)
    assert before and after and before != after
    assert worktree.diff_stat(tmp_path, before, after) == {
        "files": 1, "insertions": 1, "deletions": 0,
    }  # fmt: skip


# -- jlgcli's own files (issue 31) ---------------------------------------------------------------
def test_a_file_outside_the_tree_or_excluded_changes_nothing(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    repo = worktree.git_dir(tmp_path, environ={})
    (tmp_path / "run [1].log").write_text("one\n", encoding="utf-8")
    own = (tmp_path / "run [1].log", tmp_path.parent / "elsewhere.log", Path(".jlgcli"))
    before = worktree.snapshot(tmp_path, own, repo=repo)
    (tmp_path / "run [1].log").write_text("one\ntwo\n", encoding="utf-8")
    (tmp_path / ".jlgcli").mkdir()
    (tmp_path / ".jlgcli" / "state.json").write_text("{}", encoding="utf-8")
    assert before is not None and worktree.snapshot(tmp_path, own, repo=repo) == before
    (tmp_path / "work.txt").write_text("real\n", encoding="utf-8")
    assert worktree.snapshot(tmp_path, own, repo=repo) != before


def test_the_file_stdout_goes_to_is_found_in_the_tree_by_identity(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "other.txt").write_text("x\n", encoding="utf-8")
    with (tmp_path / "sub" / "run.log").open("wb") as log:
        ids = worktree.output_file_ids((log.fileno(),))
        outputs = worktree.OutputFiles(ids)
        assert outputs.paths(tmp_path) == (tmp_path / "sub" / "run.log",)
        assert outputs.paths(tmp_path) == (tmp_path / "sub" / "run.log",)  # found once


def test_a_terminal_or_a_closed_stream_is_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    monkeypatch.setattr(git, "run", _no_git)

    read_end, write_end = os.pipe()
    os.close(read_end)
    os.close(write_end)
    assert worktree.output_file_ids((write_end,)) == set()  # closed
    assert worktree.OutputFiles(()).paths(tmp_path) == ()  # nothing wanted: git not asked


def _fake_process(proc: Path, pid: str, links: dict[str, str], flags: dict[str, str]) -> None:
    (proc / pid / "fd").mkdir(parents=True)
    (proc / pid / "fdinfo").mkdir()
    for fd, target in links.items():
        (proc / pid / "fd" / fd).symlink_to(target)
        (proc / pid / "fdinfo" / fd).write_text(f"pos:\t0\nflags:\t{flags.get(fd, '0')}\n")


@pytest.mark.skipif(sys.platform != "linux", reason="/proc is Linux's")
def test_the_files_a_pipe_reader_writes_are_found(tmp_path: Path) -> None:
    """``| tee run.log``: the other holder of the pipe writes run.log (O_WRONLY)."""
    proc = tmp_path / "proc"
    log, data = tmp_path / "run.log", tmp_path / "read-only.txt"
    log.write_text("", encoding="utf-8")
    data.write_text("", encoding="utf-8")
    _fake_process(proc, "100", {"0": "pipe:[42]", "3": str(log), "4": str(data)},
                  {"3": "0100001", "4": "0100000"})  # fmt: skip
    _fake_process(proc, "200", {"0": "pipe:[7]", "3": str(data)}, {"3": "0100002"})
    (proc / "self").mkdir()
    _fake_process(proc, "300", {"0": "pipe:[42]", "5": "/no/such/file"}, {"5": "01"})
    info = log.stat()
    assert worktree._files_written_by_pipe_readers(42, proc) == {(info.st_dev, info.st_ino)}
    found = worktree._files_written_by_pipe_readers(42, proc, within=tmp_path)
    assert found == {(info.st_dev, info.st_ino)}
    assert worktree._files_written_by_pipe_readers(42, proc, within=tmp_path / "proc") == set()


def test_a_batch_task_does_not_look_for_its_pipes_readers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 37: a task's stdout and stderr are the batch's pipes; the batch writes nothing
    in the task's worktree, and the look walks every process of ``/proc``. Issue 44: its
    options say it is a batch's task; the environment is not read."""
    from jlgcli.prompts import Prompt
    from jlgcli.runner import evidence
    from jlgcli.runner.spec import RunSpec

    spec = RunSpec(command="loop", prompt=Prompt(text="x", source="x"), backend="claude",
                   cwd=tmp_path)  # fmt: skip
    monkeypatch.setenv("JLGCLI_BATCH_TASK", "alpha")  # an agent's variable: not the core's
    assert evidence._output_fds(spec) == (1, 2)
    assert evidence._output_fds(records.replace(spec, batch_task="alpha")) == ()
