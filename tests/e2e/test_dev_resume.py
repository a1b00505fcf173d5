"""Stopped in the middle of a step, then resumed to a real commit (seed 003 FR-5, NFR-2, AC-3).

Each case stops the loop while a step is really running — the agent CLI or a
validation command blocks after leaving a marker — either with SIGTERM (a CI
cancel: jlgcli stops the child tree and says where it stopped, exit 1) or
with SIGKILL (nothing cleaned up: the files alone must tell ``resume`` where
to go). Steps 1, 2 and 7 run no external program to block in; their states
are covered by ``tests/unit/dev/test_dev_state.py``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from support.dev_e2e import (
    BLOCKING_REVIEW,
    commits,
    dev_argv,
    env_with,
    fix,
    implement,
    plan_status,
    review,
    run_dev,
    write_script,
)
from support.devproject import (
    git,
    make_project,
)
from support.environ import without_coverage
from support.platform_names import signal_param

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.name == "nt", reason="POSIX signals"),
]

# The configured "test" command: blocks on its DEVLOOP_HANG_AT-th run, after writing its pid.
HANG = """import os, pathlib, time
mark = pathlib.Path(os.environ.get("DEVLOOP_MARK", "unused"))
at = int(os.environ.get("DEVLOOP_HANG_AT", "0"))
if at:
    count = mark.with_suffix(".count")
    runs = int(count.read_text()) + 1 if count.exists() else 1
    count.write_text(str(runs))
    if runs == at:
        mark.write_text(str(os.getpid()))
        time.sleep(600)
"""


def wait_for(path: Path, proc: subprocess.Popen[bytes], deadline: float = 60.0) -> None:
    """Until the marker exists (the step is running), failing fast if the loop already ended."""
    end = time.monotonic() + deadline
    while not path.exists():
        assert proc.poll() is None, "the loop ended before reaching the marker"
        assert time.monotonic() < end, f"no marker {path}"
        time.sleep(0.05)


def project(tmp_path: Path) -> Path:
    root = make_project(
        tmp_path / "p", {"validation": {"commands": {"test": ["python", "hang.py"]}}}
    )
    (root / "hang.py").write_text(HANG, encoding="utf-8")
    git(root, "add", "hang.py")
    git(root, "commit", "-q", "-m", "hang helper")
    return root


CASES = {
    # step: (turns of the first run, marker, hang-at run of the test command, signal, turns after)
    # markers: "p/..." in the project, else in tmp_path; "mark" is written by hang.py;
    # signals by name: the parameters are built at import, where Windows has no SIGKILL
    3: ([implement(notes=None, hang=True)], "p/tests/test_core.py", 0, "SIGTERM",
        [implement(), review()]),
    4: ([implement(), review()], "mark", 1, "SIGKILL", [review()]),
    5: ([implement(), review(BLOCKING_REVIEW), fix(hang=True)], "s.json.prompts/002.txt", 0,
        "SIGTERM", [review()]),
    6: ([implement(), review()], "mark", 2, "SIGKILL", []),
}  # fmt: skip
AMBIGUOUS = {3, 5}  # code changed without notes; a BLOCKING review being fixed


@pytest.mark.parametrize(
    ("step", "how"), [signal_param(step, case[3]) for step, case in sorted(CASES.items())]
)  # issue 35
def test_stop_during_a_step_then_resume(tmp_path: Path, step: int, how: signal.Signals) -> None:
    first, marker_name, hang_at, _, after = CASES[step]
    root = project(tmp_path)
    script = write_script(tmp_path / "s.json", *first, *after)
    marker = tmp_path / marker_name
    env = env_with(script, DEVLOOP_MARK=str(tmp_path / "mark"), DEVLOOP_HANG_AT=str(hang_at))
    log = (tmp_path / "first.out").open("wb")
    proc = subprocess.Popen(
        dev_argv("run", "--yes", "-C", str(root)),
        cwd=root,
        env=without_coverage(env),  # signalled: not measured (support/environ.py says why)
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        wait_for(marker, proc)
        os.kill(proc.pid, how)
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        log.close()
        if hang_at and (tmp_path / "mark").exists():  # SIGKILL leaves the blocked command behind
            with contextlib.suppress(ProcessLookupError):
                os.kill(int((tmp_path / "mark").read_text()), signal.SIGKILL)
    output = (tmp_path / "first.out").read_text(encoding="utf-8", errors="replace")
    if how == signal.SIGTERM:
        assert code == 1, output
        assert f"interrupted at step {step}" in output
        assert "jlgcli dev resume" in output
    else:
        assert code == -signal.SIGKILL
    assert plan_status(root, "TASK-001") == "in-progress"
    assert commits(root)[0] == "hang helper"

    done = run_dev(root, "resume", "--yes", script=script)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Resuming TASK-001 from step {step}" in done.stdout
    asked = f"Resume from step {step}? (y/n) [y]: y (--yes)" in done.stderr
    assert asked is (step in AMBIGUOUS)
    assert commits(root)[0] == "feat(TASK-001): greeting function"
    assert plan_status(root, "TASK-001") == "done"
    assert not (root / "context" / "current-task.md").exists()


def test_killed_at_the_commit_question_then_resumed(tmp_path: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    root = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.json", implement(), review())
    argv = dev_argv("run", "-C", str(root))
    child = pexpect.spawn(argv[0], argv[1:], cwd=str(root), env=env_with(script),
                          encoding="utf-8", timeout=90)  # fmt: skip
    child.expect("Commit these changes with this message\\?")
    child.kill(signal.SIGKILL)
    child.close(force=True)
    assert plan_status(root, "TASK-001") == "done"
    done = run_dev(root, "resume", "--yes", script=script)
    assert done.returncode == 0, done.stderr
    assert "Resuming TASK-001 from step 8" in done.stdout
    assert commits(root) == [
        "feat(TASK-001): greeting function",
        "jlgcli dev: add prompt templates",
        "initial",
    ]
