"""The one git module (issue 45): one function, one result type, one time limit."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from support.batch import git as setup_git
from support.batch import make_repo

from jlgcli.process import git
from jlgcli.process.model import ProcessOutcome, StopReason
from jlgcli.process.signals import Interrupted


def test_an_answer_is_stdout_stripped_and_a_failure_none(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    head = git.run(repo, "rev-parse", "HEAD")
    assert head.ok and head.exit_code == 0 and head.answer == head.stdout.strip()
    assert len(head.stdout) == 41 and head.command == "git rev-parse HEAD"
    wrong = git.run(repo, "rev-parse", "--verify", "--quiet", "nope")
    assert not wrong.ok and wrong.exit_code == 1 and wrong.answer is None
    assert not wrong.missing and not wrong.timed_out and wrong.describe() == "exit 1"


def test_check_raises_with_the_command_and_what_git_said(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    with pytest.raises(git.GitError) as caught:
        git.run(repo, "checkout", "no-such-branch", check=True, env=git.C_LOCALE)
    assert str(caught.value).startswith("git checkout no-such-branch: error:")
    assert "no-such-branch" in caught.value.detail
    assert caught.value.result.excerpt(1) == caught.value.result.output.strip().splitlines()[-1]


def test_stdin_reaches_git(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    stored = git.run(repo, "hash-object", "-w", "--stdin", stdin="hello\n")
    assert git.run(repo, "cat-file", "-p", stored.stdout.strip()).stdout == "hello\n"


def test_a_missing_git_is_a_result_and_a_named_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "empty-bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    result = git.run(tmp_path, "status")
    assert result.missing and not result.ok and result.answer is None and result.exit_code is None
    assert result.describe() == "command not found" and "git" in result.output
    with pytest.raises(git.GitError, match="git status: command not found"):
        git.run(tmp_path, "status", check=True)


def test_limit_keeps_the_head_and_stops_git_past_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "big.txt").write_text("line of a big file\n" * 50_000, encoding="utf-8")
    setup_git(repo, "add", "big.txt")
    cut = git.run(repo, "diff", "--cached", limit=1000)
    assert (
        cut.truncated and len(cut.stdout.encode()) <= 1000 and cut.stdout.startswith("diff --git")
    )
    whole = git.run(repo, "diff", "--cached", "--stat")
    assert whole.ok and not whole.truncated and "big.txt" in whole.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell script stands in for git")
def test_a_hung_git_times_out_as_a_failed_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    hung = bin_dir / "git"  # a git waiting on a lock another process never releases
    hung.write_text(f"#!/bin/sh\nexec {shutil.which('sleep')} 60\n", encoding="utf-8")
    hung.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    result = git.run(tmp_path, "status", timeout=0.2)
    assert result.timed_out and not result.ok and result.answer is None
    assert result.describe() == "timed out" and result.stop == "timeout"
    with pytest.raises(git.GitError, match="git status: timed out"):
        git.run(tmp_path, "status", timeout=0.2, check=True)


def test_ctrl_c_while_git_runs_is_an_interruption(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import signal

    def cancelled(*args: object, **kwargs: object) -> ProcessOutcome:
        return ProcessOutcome(None, 15, StopReason.CANCELLED, 0.1, interrupted_by=15)

    monkeypatch.setattr("jlgcli.process.captured.run_captured", cancelled)
    with pytest.raises(Interrupted) as caught:
        git.run(tmp_path, "status")
    assert caught.value.signum == signal.SIGTERM


def test_git_pages_nothing_and_a_caller_adds_to_its_environment(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    assert git.run(repo, "var", "GIT_PAGER").answer == "cat"
    index = tmp_path / "private-index"
    assert git.run(repo, "read-tree", "HEAD", env={"GIT_INDEX_FILE": str(index)}).ok
    assert index.is_file()  # the user's index untouched, the private one written


def test_one_time_limit_except_for_the_users_hooks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jlgcli.process import captured
    from jlgcli.process.model import Limits

    seen: list[Limits] = []
    real = captured.run_captured

    def spy(inv: object, limits: Limits, **kwargs: object) -> ProcessOutcome:
        seen.append(limits)
        return real(inv, limits, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(captured, "run_captured", spy)
    repo = make_repo(tmp_path / "repo")
    git.run(repo, "status")
    git.run(repo, "commit", "--allow-empty", "-q", "-m", "m", hooks=True)
    assert (seen[0].total_timeout, seen[0].kill_grace) == (git.GIT_TIMEOUT_S, git.KILL_GRACE_S)
    assert seen[1].total_timeout is None and seen[1].kill_grace == Limits().kill_grace
