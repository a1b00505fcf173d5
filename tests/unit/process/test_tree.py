"""The kill ladder and process-group liveness (STYLE #4)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.environ import without_coverage

from jlgcli.process.tree import (
    RUNGS,
    Ladder,
    ProcessTree,
    group_alive,
    live_group_members,
    pid_alive,
    send_windows_rung,
    stop_tree,
    system_tool,
    tree_alive,
    wait_until,
    windows_rung_command,
)

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.process.tree import Rung

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


class WindowsCalls:
    """What the Windows rungs did: CTRL_BREAK, commands run, job terminations, kills."""

    def __init__(self, *, job: bool | None) -> None:
        self.done: list[str] = []
        self.job = job

    def tree(self, *, console: bool = False) -> ProcessTree:
        def end_tree() -> bool:
            self.done.append("TerminateJobObject")
            return bool(self.job)

        return ProcessTree(
            42,
            None,
            lambda: False,
            lambda: self.done.append("TerminateProcess"),
            end_tree=None if self.job is None else end_tree,
            interrupt=(lambda: self.done.append("ctrl-c typed")) if console else None,
        )

    def send(self, tree: ProcessTree, rung: Rung) -> None:
        send_windows_rung(
            tree,
            rung,
            ctrl_break=lambda pid: self.done.append(f"CTRL_BREAK {pid}"),
            run=lambda command: self.done.append(" ".join(command)),
            system_root=r"C:\Windows",
        )


TASKKILL = r"C:\Windows\System32\taskkill.exe /T /F /PID 42"


def test_windows_terminate_rung_ends_the_job_not_a_taskkill_without_f() -> None:
    # issue 47: taskkill /T without /F only posts WM_CLOSE: console agents have no window.
    calls = WindowsCalls(job=True)
    tree = calls.tree()
    for rung in RUNGS:
        calls.send(tree, rung)
    assert calls.done == [
        "CTRL_BREAK 42",
        "TerminateJobObject",
        "TerminateJobObject",
        "TerminateProcess",
    ]


def test_a_conpty_child_gets_ctrl_c_typed_into_its_console_not_ctrl_break() -> None:
    calls = WindowsCalls(job=True)
    calls.send(calls.tree(console=True), "polite")
    assert calls.done == ["ctrl-c typed"]


@pytest.mark.parametrize("job", [None, False])
def test_without_a_job_taskkill_forces_by_its_full_system32_path(job: bool | None) -> None:
    # A repository's taskkill.exe is never what runs (issue 47): no PATH lookup.
    calls = WindowsCalls(job=job)
    tree = calls.tree()
    calls.send(tree, "terminate")
    calls.send(tree, "kill")
    assert [d for d in calls.done if d != "TerminateJobObject"] == [
        TASKKILL,
        TASKKILL,
        "TerminateProcess",
    ]
    assert windows_rung_command("terminate", 42, system_root=r"D:\Win")[0] == (
        r"D:\Win\System32\taskkill.exe"
    )


def test_system_tools_come_from_systemroot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYSTEMROOT", r"E:\WINNT")
    assert system_tool("taskkill.exe") == r"E:\WINNT\System32\taskkill.exe"
    monkeypatch.delenv("SYSTEMROOT")
    assert system_tool("taskkill.exe") == r"C:\Windows\System32\taskkill.exe"


def test_windows_ladder_logs_each_rung_by_name() -> None:
    logs: list[str] = []
    calls = WindowsCalls(job=True)
    ladder = Ladder(calls.tree(), grace=0, log=logs.append, is_windows=True)
    assert ladder._describe("polite") == "CTRL_BREAK_EVENT"
    assert ladder._describe("terminate") == "TerminateJobObject"
    assert ladder._describe("kill") == "TerminateJobObject + TerminateProcess"
    console = Ladder(calls.tree(console=True), grace=0, log=logs.append, is_windows=True)
    assert console._describe("polite") == "Ctrl+C into its console"
    no_job = Ladder(WindowsCalls(job=None).tree(), grace=0, log=logs.append, is_windows=True)
    assert no_job._describe("kill") == TASKKILL


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


def _eperm(_pgid: int) -> None:
    raise PermissionError(1, "Operation not permitted")


def test_a_macos_group_of_zombies_answering_eperm_is_not_alive(tmp_path: Path) -> None:
    # issue 47: macOS's killpg(pgid, 0) answers EPERM when only zombies are left.
    no_proc = tmp_path / "no-proc"
    asked: list[int] = []

    def members(pgid: int) -> bool:
        asked.append(pgid)
        return False

    assert not group_alive(77, proc_dir=no_proc, probe=_eperm, live_members=members)
    assert asked == [77]
    assert group_alive(77, proc_dir=no_proc, probe=_eperm, live_members=lambda _pgid: True)


def test_the_members_are_read_when_a_real_group_answers_eperm(tmp_path: Path) -> None:
    proc, _tree = _spawn(SLEEPER + "time.sleep(30)\n")
    try:
        assert group_alive(proc.pid, proc_dir=tmp_path / "no-proc", probe=_eperm)
        proc.kill()
        proc.wait()
        assert not group_alive(proc.pid, proc_dir=tmp_path / "no-proc", probe=_eperm)
    finally:
        proc.kill()
