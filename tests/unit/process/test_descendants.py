"""Descendants that left the group are still ours (issue 14): subreaper, PDEATHSIG, Job Object."""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from jlgcli.process import descendants
from jlgcli.process.descendants import (
    PR_SET_CHILD_SUBREAPER,
    become_subreaper,
    die_with_parent,
    die_with_parent_preexec,
)
from jlgcli.process.job import (
    CREATE_SUSPENDED,
    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    PROCESS_SUSPEND_RESUME,
    ExtendedLimits,
    contain_in_job,
)

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")


class FakeLibc:
    def __init__(self) -> None:
        self.calls: list[tuple[int, ...]] = []

    def prctl(self, *args: int) -> int:
        self.calls.append(args)
        return 0


def test_subreaper_is_a_prctl_on_linux_and_nothing_elsewhere() -> None:
    libc = FakeLibc()
    assert become_subreaper(is_linux=False, libc=libc) is False
    assert libc.calls == []
    assert die_with_parent_preexec(is_linux=False) is None


def test_die_with_parent_changes_nothing_off_linux() -> None:
    assert die_with_parent(["agent", "-p"], is_linux=False) == (["agent", "-p"], None)


def test_die_with_parent_wraps_the_command_in_setpriv_when_there_is_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(descendants, "_launcher", ["/usr/bin/setpriv"])
    argv, preexec = die_with_parent(["agent", "-p"], is_linux=True)
    assert argv == ["/usr/bin/setpriv", "--pdeathsig", "KILL", "--", "agent", "-p"]
    assert preexec is None  # so subprocess can vfork


@linux_only  # the preexec_fn loads Linux's libc
def test_die_with_parent_falls_back_to_the_preexec_fn_without_setpriv(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(descendants, "_launcher", [None])
    argv, preexec = die_with_parent(["agent"], is_linux=True)
    assert argv == ["agent"] and callable(preexec)


def _program(folder: Path, body: bytes, mode: int = 0o755) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / "setpriv"
    path.write_bytes(body)
    path.chmod(mode)
    return path


@linux_only  # setpriv is util-linux's
def test_only_a_setpriv_that_knows_pdeathsig_is_used(tmp_path: Path) -> None:
    old = _program(tmp_path / "old", b"\x7fELF --reuid --regid --nnp")  # util-linux < 2.33
    new = _program(tmp_path / "new", b"\x7fELF --reuid --pdeathsig --nnp")
    not_executable = _program(tmp_path / "noexec", b"--pdeathsig", mode=0o644)
    find = descendants._setpriv_with_pdeathsig
    assert find([str(old.parent), str(new.parent)]) == str(new)
    assert find([str(old.parent)]) is None
    assert find([str(not_executable.parent), str(tmp_path / "missing")]) is None


@linux_only
def test_the_launcher_is_looked_up_once_in_the_system_directories(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = _program(tmp_path / "bin", b"--pdeathsig")
    monkeypatch.setattr(descendants, "_launcher", [])
    assert descendants.pdeathsig_launcher(dirs=[str(found.parent)]) == str(found)
    found.unlink()
    assert descendants.pdeathsig_launcher(dirs=[str(found.parent)]) == str(found)  # cached
    assert descendants.SETPRIV_DIRS == ("/usr/bin", "/bin")  # never PATH


def test_subreaper_prctl_arguments() -> None:
    from jlgcli.process import descendants

    libc = FakeLibc()
    assert descendants._prctl(PR_SET_CHILD_SUBREAPER, 1, libc=libc) is True
    assert libc.calls == [(36, 1, 0, 0, 0)]


def wait_gone(pid: int, timeout: float = 30) -> bool:
    """Wait for a condition (the pid is dead or a zombie), not for a fixed time."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.01)
    return False


DRIVER = r"""
import json, subprocess, sys
from jlgcli.process import adopt_orphans, run_invocation
from jlgcli.process.model import Invocation, Limits

mode, piddir = sys.argv[1], sys.argv[2]
if sys.argv[3:] == ["preexec"]:  # the fallback when the system has no usable setpriv
    from jlgcli.process import descendants
    descendants._launcher[:] = [None]
adopt_orphans()
host_child = subprocess.Popen(["sleep", "300"])  # the host program's own child
print(json.dumps({"host_child": host_child.pid}), flush=True)
argv = ["fake-agent", "--spawn-grandchild", piddir + "/gc.pid", "--ignore-signals"]
if mode == "detach":
    argv.append("--detach")
else:
    argv.append("--hang")
    print("RUNNING", flush=True)
outcome = run_invocation(Invocation(tuple(argv)), limits=Limits(total_timeout=60, kill_grace=0.2))
print(json.dumps({"host_child_alive": host_child.poll() is None}), flush=True)
host_child.kill()
host_child.wait()
"""


@linux_only
def test_an_orphan_of_the_run_is_ended_and_the_hosts_own_child_is_left_alone(
    tmp_path: Path,
) -> None:
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(driver), "detach", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[-1] == {"host_child_alive": True}
    assert wait_gone(int((tmp_path / "gc.pid").read_text()), timeout=0.1)


@linux_only
@pytest.mark.parametrize("launch", ["setpriv", "preexec"])
def test_sigkill_of_jlgcli_takes_its_direct_child_with_it(tmp_path: Path, launch: str) -> None:
    if launch == "setpriv" and descendants.pdeathsig_launcher() is None:
        pytest.skip("no setpriv with --pdeathsig on this system")
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER, encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, str(driver), "hang", str(tmp_path), launch],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    others: list[psutil.Process] = []
    try:
        assert proc.stdout is not None
        proc.stdout.readline()
        assert proc.stdout.readline().strip() == "RUNNING"
        deadline = time.monotonic() + 30
        while not (tmp_path / "gc.pid").exists():  # the agent is past its start
            assert time.monotonic() < deadline
            time.sleep(0.01)
        agent = psutil.Process(proc.pid).children()
        agent_pids = [p.pid for p in agent if p.name() != "sleep"]
        others = [p for p in agent if p.name() == "sleep"]  # the driver's own: ours to end
        assert len(agent_pids) == 1
        proc.kill()  # SIGKILL: nothing of jlgcli runs any more
        proc.wait()
        assert wait_gone(agent_pids[0]), "PR_SET_PDEATHSIG did not end the agent"
    finally:
        # The grandchild is not a direct child: PDEATHSIG does not reach it (documented).
        with contextlib.suppress(OSError, ValueError):
            os.kill(int((tmp_path / "gc.pid").read_text()), signal.SIGKILL)
        for other in others:  # orphaned by the SIGKILL of the driver: the test cleans up
            with contextlib.suppress(psutil.Error):
                other.kill()
        if proc.poll() is None:
            proc.kill()


class FakeKernel32:
    """Records the Job Object calls; ``fail`` names a call that returns 0."""

    def __init__(self, fail: str | None = None) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.fail = fail
        self.limit_flags: int | None = None

    def __getattr__(self, name: str) -> Any:
        def call(*args: Any) -> int:
            self.calls.append((name, args))
            if name == "SetInformationJobObject":
                info = ctypes.cast(args[2], ctypes.POINTER(ExtendedLimits)).contents
                self.limit_flags = info.BasicLimitInformation.LimitFlags
            if name == self.fail:
                return 0
            return {"CreateJobObjectW": 101, "OpenProcess": 202}.get(name, 1)

        return call

    def names(self) -> list[str]:
        return [name for name, _args in self.calls]


def test_job_object_kills_on_close_and_ends_the_tree_when_closed() -> None:
    k32 = FakeKernel32()
    job = contain_in_job(4321, is_windows=True, kernel32=k32)
    assert k32.names() == [
        "OpenProcess",
        "CreateJobObjectW",
        "SetInformationJobObject",
        "AssignProcessToJobObject",
        "CloseHandle",
    ]
    assert k32.limit_flags == JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
    assert k32.calls[0][1][2] == 4321
    assert k32.calls[3][1] == (101, 202)
    assert job.terminate() is True  # the kill ladder's terminate rung (issue 47)
    assert k32.calls[-1] == ("TerminateJobObject", (101, 1))
    job.close()
    assert k32.calls[-2:] == [("TerminateJobObject", (101, 1)), ("CloseHandle", (101,))]


@pytest.mark.parametrize("failing", ["CreateJobObjectW", "SetInformationJobObject", "OpenProcess"])
def test_job_object_failure_is_logged_and_harmless(failing: str) -> None:
    k32 = FakeKernel32(fail=failing)
    logs: list[str] = []
    job = contain_in_job(1, is_windows=True, kernel32=k32, log=logs.append)
    count = len(k32.calls)
    job.close()
    assert job.terminate() is False  # the ladder falls back to taskkill /F
    assert len(k32.calls) == count  # nothing to terminate
    assert logs and "kill ladder only" in logs[0]


class FakeNtdll:
    def __init__(self, status: int = 0) -> None:
        self.resumed: list[int] = []
        self.status = status

    def NtResumeProcess(self, handle: int) -> int:
        self.resumed.append(handle)
        return self.status


def test_a_suspended_child_is_resumed_only_once_in_its_job() -> None:
    # issue 33: CREATE_SUSPENDED, assign, then resume: no grandchild escapes at start-up.
    k32, nt = FakeKernel32(), FakeNtdll()
    job = contain_in_job(7, is_windows=True, kernel32=k32, ntdll=nt, suspended=True)
    assert k32.names().index("AssignProcessToJobObject") < len(k32.names()) - 1
    assert nt.resumed == [202]
    assert k32.calls[0][1][0] & PROCESS_SUSPEND_RESUME
    assert k32.names()[-1] == "CloseHandle"  # the process handle, after the resume
    job.close()
    assert ("TerminateJobObject", (101, 1)) in k32.calls


@pytest.mark.parametrize("failing", ["CreateJobObjectW", "AssignProcessToJobObject"])
def test_a_suspended_child_is_resumed_even_when_the_job_fails(failing: str) -> None:
    k32, nt, logs = FakeKernel32(fail=failing), FakeNtdll(), []
    contain_in_job(7, is_windows=True, kernel32=k32, ntdll=nt, log=logs.append, suspended=True)
    assert nt.resumed == [202]
    assert "kill ladder only" in logs[-1]


def test_a_child_that_cannot_be_resumed_is_ended_not_left_frozen() -> None:
    k32, nt, logs = FakeKernel32(), FakeNtdll(status=-1), []
    contain_in_job(7, is_windows=True, kernel32=k32, ntdll=nt, log=logs.append, suspended=True)
    assert ("TerminateProcess", (202, 1)) in k32.calls
    assert "could not resume" in logs[0]


@pytest.mark.parametrize("status", [0, -1])
def test_the_popen_handle_resumes_or_ends_a_child_openprocess_cannot_open(status: int) -> None:
    # issue 47: OpenProcess failed, so the suspended child was neither resumed nor ended.
    k32, nt, logs = FakeKernel32(fail="OpenProcess"), FakeNtdll(status=status), []
    job = contain_in_job(
        7,
        is_windows=True,
        kernel32=k32,
        ntdll=nt,
        log=logs.append,
        suspended=True,
        process_handle=303,
    )
    assert "OpenProcess" not in k32.names()  # Popen's handle has every access right
    assert ("AssignProcessToJobObject", (101, 303)) in k32.calls
    assert nt.resumed == [303]
    assert ("CloseHandle", (303,)) not in k32.calls  # Popen owns it
    assert (("TerminateProcess", (303, 1)) in k32.calls) is (status != 0)
    assert job.terminate()


def test_the_pipe_transport_starts_windows_children_suspended() -> None:
    from jlgcli.process.spawn import group_popen_kwargs

    flags = group_popen_kwargs(is_windows=True, suspended=True)["creationflags"]
    assert flags & CREATE_SUSPENDED and flags & 0x200
    assert not group_popen_kwargs(is_windows=True)["creationflags"] & CREATE_SUSPENDED
    assert group_popen_kwargs(is_windows=False, suspended=True) == {"start_new_session": True}


def test_no_job_object_off_windows() -> None:
    k32 = FakeKernel32()
    job = contain_in_job(1, is_windows=False, kernel32=k32)
    job.close()
    assert job.terminate() is False
    assert k32.calls == []


WINDOWS_CHILD = r"""
import os, subprocess, sys, time
go, pidfile = sys.argv[1], sys.argv[2]
while not os.path.exists(go):  # start the grandchild only once we are in the job
    time.sleep(0.01)
grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
with open(pidfile + ".tmp", "w") as f:
    f.write(str(grandchild.pid))
os.replace(pidfile + ".tmp", pidfile)
time.sleep(300)
"""


@pytest.mark.skipif(sys.platform != "win32", reason="a real Job Object (windows-latest CI)")
def test_closing_the_job_ends_the_child_and_its_grandchild(tmp_path: Path) -> None:
    go, pidfile = tmp_path / "go", tmp_path / "gc.pid"
    proc = subprocess.Popen([sys.executable, "-c", WINDOWS_CHILD, str(go), str(pidfile)])
    try:
        job = contain_in_job(proc.pid, is_windows=True)
        go.write_text("go", encoding="utf-8")
        deadline = time.monotonic() + 60
        while not pidfile.exists():
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.01)
        job.close()
        proc.wait(timeout=30)
        assert wait_gone(int(pidfile.read_text()))
    finally:
        if proc.poll() is None:
            proc.kill()


def _fake_proc(root: Path, stats: dict[int, bytes], tasks: dict[int, bytes] | None) -> str:
    for pid, stat in stats.items():
        (root / str(pid)).mkdir(parents=True, exist_ok=True)
        (root / str(pid) / "stat").write_bytes(stat)
    (root / "self").mkdir(exist_ok=True)  # not a pid: skipped
    (root / "77").mkdir()  # gone before its stat was read: skipped
    for tid, children in (tasks or {}).items():
        task = root / "100" / "task" / str(tid)
        task.mkdir(parents=True)
        if children is not None:
            (task / "children").write_bytes(children)
    return str(root)


def test_children_are_read_from_the_task_files_when_the_kernel_has_them(tmp_path: Path) -> None:
    """Issue 14/18: the orphan sweep lists our children without importing psutil."""
    from jlgcli.process.descendants import children_of

    proc = _fake_proc(tmp_path, {5: b"5 (x) S 1 0\n"}, {100: b"5 6 ", 101: b"7\n"})
    assert children_of(100, proc=proc) == [5, 6, 7]


def test_children_fall_back_to_the_parent_field_of_every_stat(tmp_path: Path) -> None:
    from jlgcli.process.descendants import children_of

    stats = {
        5: b"5 (a b) c) S 100 5 5 0\n",  # a command name with spaces and a parenthesis
        6: b"6 (sleep) S 1 6 6 0\n",
        8: b"8 (sh) R 100 8 8 0\n",
        9: b"9 (x) S 1000 9 9 0\n",  # 1000 is not 100
    }
    with_task_dir = _fake_proc(tmp_path / "a", stats, {100: None})  # no children file
    assert sorted(children_of(100, proc=with_task_dir)) == [5, 8]
    no_task_dir = _fake_proc(tmp_path / "b", stats, None)
    assert sorted(children_of(100, proc=no_task_dir)) == [5, 8]


@linux_only
def test_children_of_this_process_match_psutil() -> None:
    from jlgcli.process.descendants import children_of

    child = subprocess.Popen(["sleep", "30"])
    try:
        assert child.pid in children_of(os.getpid())
        assert set(children_of(os.getpid())) == {p.pid for p in psutil.Process().children()}
    finally:
        child.kill()
        child.wait()


@linux_only
def test_a_child_in_a_fork_servers_session_is_no_orphan_until_that_server_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 50: the supervisor forked ahead of its request waits, jlgcli's child, in its
    fork server's session; any other child in another session is an orphan of a run."""
    from jlgcli.process import warm

    monkeypatch.setattr(descendants, "_subreaper", [True])
    waiting = subprocess.Popen(["sleep", "30"], start_new_session=True)  # leads its session
    try:
        assert waiting.pid in [p.pid for p in descendants.orphans()]
        descendants.forks_ahead(waiting.pid)
        assert descendants.forked_ahead(waiting.pid)
        assert waiting.pid not in [p.pid for p in descendants.orphans()]
        assert not descendants.forked_ahead(os.getpid())  # ours: jlgcli's own session
        warm.end_forked_ahead(waiting.pid)  # its server ended: killed, reaped, forgotten
        assert not descendants.forked_ahead(waiting.pid)
        with pytest.raises(ChildProcessError):
            os.waitpid(waiting.pid, os.WNOHANG)
        assert not descendants.forked_ahead(waiting.pid, {waiting.pid})  # gone
    finally:
        with contextlib.suppress(ProcessLookupError):
            waiting.kill()
        with contextlib.suppress(ChildProcessError):
            waiting.wait()
