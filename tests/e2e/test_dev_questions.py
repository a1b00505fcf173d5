"""Every question answered y / n / abort by a person at a real pseudo-terminal (pexpect).

Seed 003 FR-4.3 (continue / skip / abort), FR-4.2 step 8 (commit approval),
FR-5.3 (ambiguous resume), FR-6.3 (retry or abort a failed agent), NFR-3
(options and defaults shown).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from support.dev_e2e import (
    BLOCKING_REVIEW,
    BROKEN,
    commits,
    dev_argv,
    env_with,
    fix,
    implement,
    plan_status,
    review,
    write_script,
)
from support.devproject import (
    git,
    make_project,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.name == "nt", reason="pexpect drives a POSIX pty"),
]
pexpect = pytest.importorskip("pexpect")

COMMIT_Q = re.escape("Commit these changes with this message? (y/n) [n]: ")
REVIEW_Q = re.escape("Continue with another review iteration? (y/n/abort) [y]: ")
RETRY_Q = re.escape("Retry the implement agent? (retry/abort) [retry]: ")


def spawn(root: Path, script: Path, *args: str) -> Any:
    argv = dev_argv(*args, "-C", str(root))
    return pexpect.spawn(
        argv[0],
        argv[1:],
        cwd=str(root),
        env=env_with(script),
        encoding="utf-8",
        codec_errors="replace",
        timeout=90,
        dimensions=(40, 200),
    )


def finish(child: Any) -> tuple[int, str]:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus, child.before


@pytest.mark.parametrize(("typed", "code"), [("y", 0), ("n", 1), ("", 1)])
def test_commit_approval(tmp_path: Path, typed: str, code: int) -> None:
    root = make_project(tmp_path / "p")
    child = spawn(root, write_script(tmp_path / "s.json", implement(), review()), "run")
    child.expect("Proposed commit message:")
    child.expect("feat\\(TASK-001\\): greeting function")
    child.expect(COMMIT_Q)
    child.sendline(typed)
    status, rest = finish(child)
    assert status == code, rest
    if code == 0:
        assert commits(root)[0] == "feat(TASK-001): greeting function"
    else:
        assert "commit not approved: nothing was committed" in rest
        assert commits(root) == ["initial"]
        assert plan_status(root, "TASK-001") == "done"  # resume asks again


def blocking_twice(tmp_path: Path) -> tuple[Path, Path]:
    root = make_project(tmp_path / "p", {"validation": {"maxReviewIterations": 2}})
    script = write_script(
        tmp_path / "s.json",
        implement(),
        review(BLOCKING_REVIEW),
        fix(),
        review(BLOCKING_REVIEW),
        fix(),
        review(),
    )
    return root, script


def test_review_exhausted_y_runs_another_round(tmp_path: Path) -> None:
    root, script = blocking_twice(tmp_path)
    child = spawn(root, script, "run")
    child.expect("the review loop used its 2 iteration\\(s\\) and 1 BLOCKING")
    child.expect(REVIEW_Q)
    child.sendline("y")
    child.expect("review iteration 3: 0 BLOCKING")
    child.expect(COMMIT_Q)
    child.sendline("y")
    status, rest = finish(child)
    assert status == 0, rest
    assert "review iterations: 3" in git(root, "log", "-1", "--format=%B")


def test_review_exhausted_n_skips_to_the_commit_with_warnings(tmp_path: Path) -> None:
    root, script = blocking_twice(tmp_path)
    child = spawn(root, script, "run")
    child.expect(REVIEW_Q)
    child.sendline("n")
    child.expect("warning carried to the commit: the review loop used its 2 iteration")
    child.expect(COMMIT_Q)
    child.sendline("y")
    status, rest = finish(child)
    assert status == 0, rest
    assert "Warnings accepted at approval:" in git(root, "log", "-1", "--format=%B")


def test_review_exhausted_abort_keeps_the_state(tmp_path: Path) -> None:
    root, script = blocking_twice(tmp_path)
    child = spawn(root, script, "run")
    child.expect(REVIEW_Q)
    child.sendline("abort")
    status, rest = finish(child)
    assert status == 1
    assert "aborted at step 5 (Review Loop)" in rest
    assert "jlgcli dev resume" in rest
    assert plan_status(root, "TASK-001") == "in-progress"
    assert (root / "context" / "current-task.md").is_file()
    assert commits(root) == ["initial"]


@pytest.mark.parametrize("typed", ["n", "abort"])
def test_validation_failure_question(tmp_path: Path, typed: str) -> None:
    root = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.json", implement(BROKEN), review(), fix(), review())
    child = spawn(root, script, "run")
    child.expect("error: automated validation failed:")
    child.expect(re.escape("test failed: `python -m unittest discover -s tests -q` (exit 1)"))
    child.expect(REVIEW_Q)
    child.sendline(typed)
    if typed == "n":
        child.expect(COMMIT_Q)
        child.sendline("n")
    status, rest = finish(child)
    assert status == 1, rest


def test_validation_failure_y_lets_the_fixer_repair_it(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.json", implement(BROKEN), review(), fix(), review())
    child = spawn(root, script, "run")
    child.expect(REVIEW_Q)
    child.sendline("y")
    child.expect("calling the fix agent")
    child.expect(COMMIT_Q)
    child.sendline("y")
    status, rest = finish(child)
    assert status == 0, rest
    assert "Hello, " in (root / "greetings" / "core.py").read_text()


def test_agent_without_notes_retry_then_abort(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.json", implement(notes=None), repeat_last=True)
    child = spawn(root, script, "run")
    child.expect("the implement agent did not write context/implementation-notes.md")
    child.expect("command: .*claude")
    child.expect(RETRY_Q)
    child.sendline("retry")
    child.expect(RETRY_Q)
    child.sendline("abort")
    status, rest = finish(child)
    assert status == 1
    assert "aborted at step 3 (Implement)" in rest
    assert plan_status(root, "TASK-001") == "in-progress"


def test_ambiguous_resume_asks(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    # the implement agent edits code then fails: state = in-progress, code changed, no notes
    failing = implement(notes=None, error="backend")
    script = write_script(tmp_path / "s.json", failing, implement(), review())
    child = spawn(root, script, "run")
    child.expect(re.escape("the implement agent failed: "))
    child.expect(RETRY_Q)
    child.sendline("abort")
    assert finish(child)[0] == 1
    child = spawn(root, script, "resume")
    child.expect("TASK-001: the implementation was interrupted \\(code changed, no notes\\)")
    child.expect(re.escape("Resume from step 3? (y/n) [y]: "))
    child.sendline("n")
    status, rest = finish(child)
    assert status == 1
    assert "--from-step N" in rest
    child = spawn(root, script, "resume")
    child.expect(re.escape("Resume from step 3? (y/n) [y]: "))
    child.sendline("")  # Enter takes the default shown
    child.expect("Resuming TASK-001 from step 3")
    child.expect(COMMIT_Q)
    child.sendline("yes")
    status, rest = finish(child)
    assert status == 0, rest
