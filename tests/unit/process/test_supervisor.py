"""The supervisor every child of the jlgcli program runs under on Linux (issue 33)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from jlgcli.process.descendants import Launch, supervised_argv, supervisor_wanted

if sys.platform == "win32" or not hasattr(signal, "SIGUSR2"):  # the latter: .ci/run's proxy
    pytest.skip("the supervisor is Linux's (SIGUSR2, prctl)", allow_module_level=True)

from jlgcli.process import supervisor

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")


def _stat(proc: Path, pid: int, ppid: int, comm: str = "x") -> None:
    (proc / str(pid)).mkdir()
    (proc / str(pid) / "stat").write_text(f"{pid} ({comm}) S {ppid} {pid} 0\n", "utf-8")


def test_descendants_are_walked_parents_first_from_the_stat_files(tmp_path: Path) -> None:
    _stat(tmp_path, 10, 1)
    _stat(tmp_path, 11, 10, comm="a) S 10 (b")  # comm may hold ") S 10 ("
    _stat(tmp_path, 12, 11)
    _stat(tmp_path, 13, 1)
    (tmp_path / "self").mkdir()
    (tmp_path / "14").mkdir()  # a process that ended while we looked: no stat
    assert supervisor.children_of(10, str(tmp_path)) == [11]
    assert supervisor.descendants_of(10, str(tmp_path)) == [11, 12]


def test_the_exit_code_is_passed_on() -> None:
    assert supervisor.exit_like(3 << 8) == 3
    assert supervisor.exit_like(0) == 0


def test_usage_error_without_the_separator(capsys: pytest.CaptureFixture[str]) -> None:
    assert supervisor.main(["1", "2", "x"]) == 2
    assert "usage" in capsys.readouterr().err


def test_the_supervisor_is_for_the_jlgcli_program_on_linux_only() -> None:
    assert supervisor_wanted(is_linux=False) is False


def test_the_supervised_command_names_its_parent_and_status_fd() -> None:
    argv = supervised_argv(["agent", "-p"], 9)
    assert argv[:3] == [sys.executable, "-I", "-S"]
    assert Path(argv[3]) == Path(supervisor.__file__)
    assert argv[4:] == [str(os.getpid()), "9", "--", "agent", "-p"]


def test_an_unsupervised_launch_has_no_status_pipe() -> None:
    launch = Launch(["agent"], supervise=False)
    assert not launch.supervised and launch.pass_fds == ()
    launch.started()  # nothing to wait for
    launch.abandon()


@linux_only
def test_an_exec_failure_is_reported_as_the_childs_oserror(tmp_path: Path) -> None:
    script = tmp_path / "not-a-program"
    script.write_text("no shebang\n", "utf-8")
    script.chmod(0o755)
    launch = Launch([str(script)], supervise=True)
    proc = subprocess.Popen(launch.command, pass_fds=launch.pass_fds)
    with pytest.raises(OSError) as info:
        launch.started()
    assert info.value.errno == 8  # ENOEXEC
    assert proc.wait(30) == 127


@linux_only
def test_a_spawn_that_failed_closes_the_status_pipe() -> None:
    launch = Launch(["agent"], supervise=True)
    (write_fd,) = launch.pass_fds
    launch.abandon()
    with pytest.raises(OSError):
        os.fstat(write_fd)
    launch.abandon()  # twice: harmless


SLEEPER = "import os, sys, time; print(os.getpid(), flush=True); time.sleep(300)"


@linux_only
def test_the_child_runs_with_default_signals_and_its_code_or_signal_is_passed_on() -> None:
    launch = Launch([sys.executable, "-c", "import sys; sys.exit(7)"], supervise=True)
    proc = subprocess.Popen(launch.command, pass_fds=launch.pass_fds)
    launch.started()
    assert proc.wait(30) == 7
    launch = Launch([sys.executable, "-c", SLEEPER], supervise=True)
    proc = subprocess.Popen(
        launch.command, pass_fds=launch.pass_fds, stdout=subprocess.PIPE, start_new_session=True
    )
    launch.started()
    assert proc.stdout is not None
    child = int(proc.stdout.readline())
    os.killpg(proc.pid, signal.SIGTERM)  # the ladder's rung: the child ends, as would a shell's
    assert proc.wait(30) == -signal.SIGTERM
    assert not psutil.pid_exists(child) or psutil.Process(child).status() == "zombie"


DAEMON = (
    "import os, sys, time\n"
    "if os.fork() == 0:\n"
    "    os.setsid()\n"
    "    if os.fork() == 0:\n"
    "        print(os.getpid(), flush=True)\n"
    "        time.sleep(300)\n"
    "    os._exit(0)\n"
    "time.sleep(300)\n"
)


@linux_only
def test_when_its_parent_dies_the_supervisor_kills_the_whole_tree(tmp_path: Path) -> None:
    # A middle process plays jlgcli: it starts the supervisor and is SIGKILLed.
    middle = (
        "import subprocess, sys\n"
        "from jlgcli.process.descendants import Launch\n"
        f"launch = Launch([sys.executable, '-c', {DAEMON!r}], supervise=True)\n"
        "proc = subprocess.Popen(launch.command, pass_fds=launch.pass_fds)\n"
        "launch.started()\n"
        "print(proc.pid, flush=True)\n"
        "proc.wait()\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", middle], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    pids: list[int] = []
    try:
        assert proc.stdout is not None
        pids = [int(proc.stdout.readline()), int(proc.stdout.readline())]  # daemon, supervisor
        proc.kill()
        proc.wait(30)
        deadline = time.monotonic() + 5
        while alive := [p for p in pids if _running(p)]:
            assert time.monotonic() < deadline, f"still running: {alive}"
            time.sleep(0.05)
    finally:
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


# -- the supervisor's own code, in this process with the system calls replaced ----------------
# (it runs under `python -I -S`, where coverage does not follow it)


class Exited(Exception):  # noqa: N818 - stands for os._exit
    pass


def _exit(code: int) -> None:
    raise Exited(code)


@linux_only
def test_prctl_is_callable_without_the_ctypes_package() -> None:
    pr_get_dumpable = 3
    assert supervisor.prctl()(pr_get_dumpable, 0, 0, 0, 0) in (0, 1)


def test_kill_tree_kills_until_nothing_is_left(monkeypatch: pytest.MonkeyPatch) -> None:
    rounds = iter([[11, 12], [13], []])
    killed: list[int] = []

    def kill(pid: int, _signum: int) -> None:
        if pid == 12:
            raise ProcessLookupError  # ended meanwhile
        killed.append(pid)

    monkeypatch.setattr(supervisor, "descendants_of", lambda _me: next(rounds))
    monkeypatch.setattr(supervisor.os, "kill", kill)
    reaped = iter([(11, 9), (0, 0), ChildProcessError()])

    def waitpid(_pid: int, _options: int) -> tuple[int, int]:
        item = next(reaped, ChildProcessError())
        if isinstance(item, BaseException):
            raise item
        return item

    monkeypatch.setattr(supervisor.os, "waitpid", waitpid)
    supervisor.kill_tree(1)
    assert killed == [11, 13]


def test_a_signal_death_is_passed_on_as_that_signal(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[int] = []
    monkeypatch.setattr(supervisor.signal, "signal", lambda *_args: None)
    monkeypatch.setattr(supervisor.os, "kill", lambda _pid, number: sent.append(number))
    assert supervisor.exit_like(int(signal.SIGTERM)) == 128 + signal.SIGTERM
    assert sent == [signal.SIGTERM]


def test_start_child_forks_and_the_child_reports_its_exec_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[int, ...]] = []
    monkeypatch.setattr(supervisor.os, "fork", lambda: 4321)
    assert supervisor.start_child(["x"], 9, lambda *a: calls.append(a) or 0) == 4321
    written: list[bytes] = []
    monkeypatch.setattr(supervisor.os, "fork", lambda: 0)
    monkeypatch.setattr(supervisor.signal, "signal", lambda *_args: None)
    monkeypatch.setattr(supervisor.signal, "pthread_sigmask", lambda *_args: None)
    monkeypatch.setattr(supervisor.os, "execvp", lambda *_a: (_ for _ in ()).throw(OSError(2, "")))
    monkeypatch.setattr(supervisor.os, "write", lambda _fd, data: written.append(data))
    monkeypatch.setattr(supervisor.os, "_exit", _exit)
    with pytest.raises(Exited):
        supervisor.start_child(["x"], 9, lambda *a: calls.append(a) or 0)
    assert written == [b"2"]
    assert calls == [(supervisor.PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)]


@pytest.fixture
def fake_system(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """``main``'s system calls replaced: returns what it did."""
    seen: dict[str, object] = {"prctl": [], "handlers": {}}
    prctls: list[tuple[int, ...]] = seen["prctl"]  # type: ignore[assignment]
    handlers: dict[int, object] = seen["handlers"]  # type: ignore[assignment]
    monkeypatch.setattr(supervisor, "prctl", lambda: lambda *a: prctls.append(a) or 0)
    monkeypatch.setattr(supervisor.signal, "signal", lambda n, h: handlers.__setitem__(int(n), h))
    monkeypatch.setattr(supervisor.os, "set_inheritable", lambda *_a: None)
    monkeypatch.setattr(supervisor.os, "close", lambda _fd: None)
    monkeypatch.setattr(supervisor, "_quiet_standard_streams", lambda: None)
    monkeypatch.setattr(supervisor, "start_child", lambda *_a: 77)
    monkeypatch.setattr(supervisor.os, "getppid", lambda: 5)
    statuses = iter([(76, 0), (77, 3 << 8)])  # an orphan first, then the child
    monkeypatch.setattr(supervisor.os, "waitpid", lambda *_a: next(statuses))
    return seen


def test_main_mirrors_the_childs_exit_and_kills_the_tree_when_jlgcli_dies(
    fake_system: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert supervisor.main(["5", "9", "--", "agent"]) == 3
    assert (supervisor.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) in fake_system["prctl"]  # type: ignore[operator]
    handlers: dict[int, object] = fake_system["handlers"]  # type: ignore[assignment]
    assert handlers[int(signal.SIGTERM)] == signal.SIG_IGN
    killed: list[int] = []
    monkeypatch.setattr(supervisor, "kill_tree", killed.append)
    monkeypatch.setattr(supervisor.os, "_exit", _exit)
    with pytest.raises(Exited):
        handlers[int(supervisor.PARENT_DEATH_SIGNAL)](0, None)  # type: ignore[operator]
    assert killed == [os.getpid()]


def test_main_stops_at_once_when_jlgcli_died_before_the_prctl(
    fake_system: dict[str, object],
) -> None:
    assert supervisor.main(["6", "9", "--", "agent"]) == 128 + supervisor.PARENT_DEATH_SIGNAL
