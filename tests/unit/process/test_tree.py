"""The kill ladder and process-group liveness (STYLE #4)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.environ import without_coverage

from jlgcli.process.tree import (
    Ladder,
    ProcessTree,
    group_alive,
    live_group_members,
    pid_alive,
    stop_tree,
    tree_alive,
    wait_until,
    windows_rung_command,
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")


def _spawn(code: str) -> tuple[subprocess.Popen[bytes], ProcessTree]:
    proc = subprocess.Popen(
        [sys.executable, "-c", code + "\nprint('READY', flush=True)\ntime.sleep(600)\n"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        start_new_session=True,
        env=without_coverage(),  # signalled: not measured (support/environ.py says why)
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"READY\n"  # its signal handlers are in place
    proc.stdout.close()
    tree = ProcessTree(proc.pid, proc.pid, lambda: proc.poll() is not None, proc.kill)
    return proc, tree


IGNORING = (
    "import signal, time\n"
    "for s in (signal.SIGINT, signal.SIGTERM): signal.signal(s, signal.SIG_IGN)\n"
)
# Python leaves SIGINT ignored when it starts with it ignored (a shell's `&` job):
# the test must not depend on how the suite was started.
SLEEPER = "import signal, time\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"


def test_windows_rungs_are_ctrl_break_then_taskkill_tree_then_forced() -> None:
    assert windows_rung_command("polite", 42) is None
    assert windows_rung_command("terminate", 42) == ["taskkill", "/T", "/PID", "42"]
    assert windows_rung_command("kill", 42) == ["taskkill", "/T", "/F", "/PID", "42"]


def test_windows_ladder_logs_each_rung_by_name() -> None:
    logs: list[str] = []
    gone = ProcessTree(1, None, lambda: True, lambda: None)
    ladder = Ladder(gone, grace=0, log=logs.append, is_windows=True)
    assert ladder._describe("polite") == "CTRL_BREAK_EVENT"
    assert ladder._describe("kill") == "taskkill /T /F /PID 1"


def test_stop_tree_climbs_to_sigkill_for_a_process_ignoring_signals() -> None:
    proc, tree = _spawn(IGNORING)
    try:
        logs: list[str] = []
        assert stop_tree(tree, grace=0.2, log=logs.append) == "kill"
        assert [line.split()[2] for line in logs] == ["SIGINT", "SIGTERM", "SIGKILL"]
        assert proc.returncode == -9
        assert not tree_alive(tree)
    finally:
        proc.kill()


def test_stop_tree_stops_at_the_first_rung_that_works() -> None:
    proc, tree = _spawn(SLEEPER)
    logs: list[str] = []
    assert stop_tree(tree, grace=5, log=logs.append) == "polite"
    assert len(logs) == 1
    assert proc.returncode == -2  # Python dies of the SIGINT it did not handle


def test_ladder_waits_for_the_grace_period_unless_forced() -> None:
    proc, tree = _spawn(IGNORING)
    try:
        logs: list[str] = []
        now = [0.0]
        ladder = Ladder(tree, grace=10, log=logs.append, clock=lambda: now[0])
        ladder.advance()
        ladder.advance()  # within the grace period: nothing
        assert len(logs) == 1 and ladder.next_due == 10
        ladder.advance(force=True)
        assert ladder.last_rung == "terminate"
        now[0] = 20.0
        ladder.advance()
        assert ladder.last_rung == "kill"
        assert not ladder.exhausted
        now[0] = 31.0
        assert ladder.exhausted
        ladder.advance()  # nothing left to send
        assert len(logs) == 3
    finally:
        proc.kill()
        proc.wait()


def test_ladder_sends_nothing_more_once_the_tree_is_gone() -> None:
    proc, tree = _spawn(SLEEPER)
    logs: list[str] = []
    ladder = Ladder(tree, grace=0, log=logs.append)
    ladder.advance()
    assert wait_until(lambda: not tree_alive(tree), 10)
    ladder.advance()
    assert len(logs) == 1
    assert not pid_alive(proc.pid)


def test_group_liveness_ignores_zombies(tmp_path: Path) -> None:
    for pid, state, pgrp in ((10, "S", 7), (11, "Z", 7), (12, "R", 8)):
        (tmp_path / str(pid)).mkdir()
        (tmp_path / str(pid) / "stat").write_text(
            f"{pid} (odd (name) x) {state} 1 {pgrp} {pgrp} 0 -1", encoding="utf-8"
        )
    (tmp_path / "self").mkdir()
    (tmp_path / "13").mkdir()  # vanished between listing and reading
    (tmp_path / "14").mkdir()
    (tmp_path / "14" / "stat").write_text("14 (x)", encoding="utf-8")
    assert live_group_members(7, proc_dir=tmp_path) == [10]
    assert live_group_members(9, proc_dir=tmp_path) == []


def test_group_alive_and_pid_alive_for_a_real_group() -> None:
    proc, _tree = _spawn(SLEEPER)
    assert group_alive(proc.pid) and pid_alive(proc.pid)
    proc.kill()
    proc.wait()
    assert not group_alive(proc.pid)
    assert not pid_alive(proc.pid)


def test_wait_until_gives_up_at_the_timeout() -> None:
    assert not wait_until(lambda: False, 0.01)
    assert wait_until(lambda: True, 0)


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="pidfds are Linux's (5.3+)")
def test_wait_until_waits_on_the_exit_fd_then_polls() -> None:
    # issue 18/33: a supervisor exits a moment after its child; its pidfd wakes the wait.
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.2)"])
    exit_fd = os.pidfd_open(proc.pid)
    try:
        assert wait_until(lambda: proc.poll() is not None, 30, exit_fd=exit_fd)
        assert not wait_until(lambda: False, 0.01, exit_fd=exit_fd)  # readable: then polled
    finally:
        os.close(exit_fd)
        proc.wait()
