"""The supervisor every child of the jlgcli program runs under on Linux (issue 33)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

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
    assert argv[:4] == [sys.executable, "-I", "-S", "-c"]  # from its cached bytecode
    assert Path(argv[5]) == Path(supervisor.__file__)
    assert argv[6:] == [str(os.getpid()), "9", "--", "agent", "-p"]


def test_the_supervisor_starts_from_its_bytecode_as_its_script_would(tmp_path: Path) -> None:
    """Issue 49: a script named on the command line is compiled at every start."""
    import subprocess

    from jlgcli.process.descendants import supervisor_command

    done = subprocess.run(supervisor_command(), capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr.strip()) == (2, supervisor.USAGE)  # its own main()
    script = tmp_path / "script.py"
    script.write_text("import sys\nprint(__name__, sys.argv[1:])\n", encoding="utf-8")
    command = supervisor_command("a", "b")
    command[5] = str(script)
    ran = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert ran.stdout == "__main__ ['a', 'b']\n", ran.stderr


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


def test_the_child_does_not_inherit_what_python_ignores() -> None:
    """Python ignores SIGPIPE (and SIGXFSZ) in the supervisor; an ignored signal survives
    exec, so the agent and its shells got EPIPE where `yes | head -1` should end quietly."""
    launch = Launch(["sh", "-c", "grep SigIgn /proc/$$/status"], supervise=True)
    proc = subprocess.Popen(launch.command, pass_fds=launch.pass_fds, stdout=subprocess.PIPE)
    launch.started()
    out, _ = proc.communicate(timeout=30)
    ignored = int(out.split()[-1], 16)
    assert proc.returncode == 0
    assert not ignored & (1 << (signal.SIGPIPE - 1))
    assert not ignored & (1 << (signal.SIGXFSZ - 1))


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


# -- the fork server (issue 33: a supervisor without an interpreter start-up each) ---------


def _request_socket() -> tuple[Any, Any]:
    import socket

    return socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)


def _send(sock: Any, body: bytes, fds: list[int], *, size: int | None = None) -> None:
    import socket

    header = (len(body) if size is None else size).to_bytes(8, "big")
    socket.send_fds(sock, [header], fds)
    sock.sendall(body)


@linux_only
def test_a_request_brings_argv_environment_and_five_descriptors() -> None:
    import marshal

    ours, theirs = _request_socket()
    pipes = [os.pipe() for _ in range(3)]
    fds = [pipes[0][0], pipes[1][1], pipes[2][1], os.open("/", os.O_RDONLY), pipes[0][1]]
    _send(ours, marshal.dumps(([b"/bin/true", b"x"], {b"K": b"V"})), fds)
    request = supervisor.receive(theirs)
    assert request is not None
    assert (request.argv, request.env) == ([b"/bin/true", b"x"], {b"K": b"V"})
    received = [*request.stdio, request.cwd_fd, request.status_fd]
    assert len(received) == 5 and not any(os.get_inheritable(fd) for fd in received)
    request.close()
    with pytest.raises(OSError):
        os.fstat(received[0])
    for fd in fds:
        os.close(fd)
    for one in pipes:
        with contextlib.suppress(OSError):
            os.close(one[0])
    ours.close()
    assert supervisor.receive(theirs) is None  # end-of-file: jlgcli retired the server
    theirs.close()


@linux_only
def test_a_malformed_request_is_refused_and_its_descriptors_closed() -> None:
    ours, theirs = _request_socket()
    read_fd, write_fd = os.pipe()
    _send(ours, b"short", [read_fd], size=5)  # one descriptor instead of five
    assert supervisor.receive(theirs) is None
    _send(ours, b"cut", [read_fd] * 5, size=100)  # the body ends early
    ours.close()
    assert supervisor.receive(theirs) is None
    theirs.close()
    for fd in (read_fd, write_fd):
        os.close(fd)


class FakeRequest:
    def __init__(self) -> None:
        self.stdio, self.cwd_fd, self.status_fd = [3, 4, 5], 6, 7
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def test_the_server_forks_a_spare_ahead_until_one_ends_without_a_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 50: each supervisor is forked before its request, the next one once it has
    started its child; a spare that ends without one (end-of-file) ends the server."""
    import socket

    claims = iter([True, True, False])
    forked: list[object] = []
    monkeypatch.setattr(supervisor, "fork_spare", lambda *a: forked.append(a[1]) or next(claims))
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    assert supervisor.serve(5, theirs.detach(), lambda *a: 0) == 0
    assert len(forked) == 3 and forked[0] is forked[2]  # one socket object, made once
    ours.close()


@pytest.mark.parametrize("claimed", [b"+", b""])
def test_the_server_waits_for_the_spare_to_start_a_child_or_to_end(
    monkeypatch: pytest.MonkeyPatch, claimed: bytes
) -> None:
    waited: list[int] = []
    claim_read, claim_write = os.pipe()
    monkeypatch.setattr(supervisor.os, "pipe", lambda: (claim_read, claim_write))
    monkeypatch.setattr(supervisor.os, "fork", lambda: 4321)
    monkeypatch.setattr(supervisor.os, "waitpid", lambda pid, _o: waited.append(pid) or (pid, 0))
    os.write(claim_write, claimed)  # what the spare says before its end
    assert supervisor.fork_spare(5, object(), lambda *a: 0) is bool(claimed)  # type: ignore[arg-type]
    assert waited == [4321]
    for fd in (claim_read, claim_write):  # both ends closed by the server
        with pytest.raises(OSError):
            os.fstat(fd)


@pytest.mark.parametrize("second_fork", [0, 77])
def test_the_middle_process_exits_and_the_spare_waits_for_its_request(
    monkeypatch: pytest.MonkeyPatch, second_fork: int
) -> None:
    forks = iter([0, second_fork])
    spares: list[tuple[int, int, object, int]] = []
    closed: list[int] = []
    monkeypatch.setattr(supervisor.os, "pipe", lambda: (20, 21))
    monkeypatch.setattr(supervisor.os, "fork", lambda: next(forks))
    monkeypatch.setattr(supervisor.os, "close", closed.append)
    monkeypatch.setattr(supervisor.os, "_exit", _exit)

    def spare(parent: int, middle: int, sock: object, claim: int, _call: object) -> int:
        spares.append((parent, middle, sock, claim))
        return 3

    monkeypatch.setattr(supervisor, "spare", spare)
    sock = object()
    with pytest.raises(Exited) as info:
        supervisor.fork_spare(5, sock, lambda *a: 0)  # type: ignore[arg-type]
    if second_fork:  # the middle process: exits at once, so jlgcli adopts the grandchild
        assert (info.value.args, spares, closed) == ((0,), [], [])
    else:  # the spare: keeps the socket and the claim pipe's write end, exits as its child
        assert (info.value.args, spares, closed) == ((3,), [(5, os.getpid(), sock, 21)], [20])


class FakeSocket:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


def test_a_spare_adopted_by_jlgcli_supervises_the_request_it_receives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parents = iter([40, 40, 5, 5])  # the middle process (40), then jlgcli (5)
    calls: list[object] = []
    request = FakeRequest()
    monkeypatch.setattr(supervisor.os, "getppid", lambda: next(parents))
    monkeypatch.setattr(supervisor.os, "setsid", lambda: calls.append("setsid"))
    monkeypatch.setattr(supervisor, "guard", lambda parent, _call: calls.append(("guard", parent)))
    monkeypatch.setattr(supervisor, "receive", lambda _sock: calls.append("receive") or request)
    monkeypatch.setattr(supervisor, "start_child", lambda *a: calls.append(a[3]) or 77)
    monkeypatch.setattr(supervisor.os, "write", lambda fd, data: calls.append((fd, data)))
    monkeypatch.setattr(supervisor.os, "close", lambda fd: calls.append(("close", fd)))
    monkeypatch.setattr(supervisor, "wait_for", lambda child: child - 70)
    sock = FakeSocket()
    assert supervisor.spare(5, 40, sock, 9, lambda *a: 0) == 7  # type: ignore[arg-type]
    # guarded before its request; its own session only then (the server's until then)
    assert calls == [("guard", 5), "receive", "setsid", request,
                     (7, b"+%d+" % os.getpid()), (9, b"+"), ("close", 9)]  # fmt: skip
    assert sock.closed and request.closed == 1


def test_a_spare_whose_server_died_meanwhile_still_supervises_its_child(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its claim finds no reader (the server was killed while the request came): the
    child it started is still waited for, its exit passed on."""
    written: list[int] = []

    def write(fd: int, _data: bytes) -> int:
        if fd == 9:
            raise BrokenPipeError(32, "Broken pipe")
        written.append(fd)
        return 1

    closed: list[int] = []
    monkeypatch.setattr(supervisor.os, "setsid", lambda: None)
    monkeypatch.setattr(supervisor, "start_child", lambda *a: 77)
    monkeypatch.setattr(supervisor.os, "write", write)
    monkeypatch.setattr(supervisor.os, "close", closed.append)
    monkeypatch.setattr(supervisor, "wait_for", lambda child: child - 70)
    request = FakeRequest()
    assert supervisor.supervise_request(request, lambda *a: 0, 9) == 7  # type: ignore[arg-type]
    assert (written, closed, request.closed) == ([7], [9], 1)
    written.clear()  # forked on request (the batch's task server): no claim pipe
    assert supervisor.supervise_request(FakeRequest(), lambda *a: 0) == 7  # type: ignore[arg-type]
    assert (written, closed) == ([7], [9])


def test_a_spare_given_no_request_ends_and_so_does_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(supervisor.os, "getppid", lambda: 5)
    monkeypatch.setattr(supervisor, "guard", lambda *_a: None)
    monkeypatch.setattr(supervisor, "receive", lambda _sock: None)  # end-of-file
    monkeypatch.setattr(supervisor, "start_child", lambda *a: pytest.fail("started"))
    sock = FakeSocket()
    assert supervisor.spare(5, 40, sock, 9, lambda *a: 0) == 0  # type: ignore[arg-type]
    assert sock.closed  # nothing written on the claim pipe: its end-of-file ends the server


def test_a_spare_whose_jlgcli_died_starts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    parents = iter([1, 1])  # adopted by init: jlgcli is gone
    monkeypatch.setattr(supervisor.os, "getppid", lambda: next(parents))
    monkeypatch.setattr(supervisor, "guard", lambda *_a: None)
    monkeypatch.setattr(supervisor, "receive", lambda _sock: pytest.fail("waited"))
    code = supervisor.spare(5, 40, FakeSocket(), 9, lambda *a: 0)  # type: ignore[arg-type]
    assert code == 128 + supervisor.PARENT_DEATH_SIGNAL


def test_the_server_waits_for_the_middle_process_and_closes_its_copies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The batch's task server forks a supervisor for a request it received."""
    request = FakeRequest()
    waited: list[int] = []
    monkeypatch.setattr(supervisor.os, "fork", lambda: 4321)
    monkeypatch.setattr(supervisor.os, "waitpid", lambda pid, _o: waited.append(pid) or (pid, 0))
    supervisor.fork_supervisor(5, 9, request, lambda *a: 0)  # type: ignore[arg-type]
    assert (waited, request.closed) == ([4321], 1)


@pytest.mark.parametrize("parent", [5, 1])
def test_the_grandchild_supervises_once_adopted_by_jlgcli(
    monkeypatch: pytest.MonkeyPatch, parent: int
) -> None:
    forks = iter([0, 0])
    parents = iter([os.getpid(), parent, parent])  # the middle process, then jlgcli or init
    closed: list[int] = []
    supervised: list[object] = []
    monkeypatch.setattr(supervisor.os, "fork", lambda: next(forks))
    monkeypatch.setattr(supervisor.os, "getppid", lambda: next(parents))
    monkeypatch.setattr(supervisor.os, "close", closed.append)
    monkeypatch.setattr(supervisor.os, "_exit", _exit)
    monkeypatch.setattr(supervisor, "guard", lambda *_a: None)
    monkeypatch.setattr(supervisor, "supervise_request", lambda r, _c: supervised.append(r) or 3)
    request = FakeRequest()
    with pytest.raises(Exited) as info:
        supervisor.fork_supervisor(5, 9, request, lambda *a: 0)  # type: ignore[arg-type]
    assert closed == [9]  # the server's socket
    if parent == 5:
        assert (info.value.args, supervised) == ((3,), [request])
    else:  # jlgcli died: nothing is started
        assert (info.value.args, supervised) == ((128 + supervisor.PARENT_DEATH_SIGNAL,), [])


def test_a_served_child_takes_the_requests_stdio_directory_and_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    request = supervisor.Request([b"/bin/agent"], {b"K": b"V"}, [3, 4, 5, 6, 7])
    done: list[object] = []
    monkeypatch.setattr(supervisor.os, "fork", lambda: 0)
    monkeypatch.setattr(supervisor.os, "getpid", lambda: 40)
    monkeypatch.setattr(supervisor.os, "getppid", lambda: 40)
    monkeypatch.setattr(supervisor.signal, "signal", lambda *_args: None)
    monkeypatch.setattr(supervisor.signal, "pthread_sigmask", lambda *_args: None)
    monkeypatch.setattr(supervisor.os, "dup2", lambda fd, target: done.append((fd, target)))
    monkeypatch.setattr(supervisor.os, "fchdir", lambda fd: done.append(("fchdir", fd)))

    def execve(*args: object) -> None:
        done.append(args)
        raise OSError(13, "Permission denied")

    monkeypatch.setattr(supervisor.os, "execve", execve)
    monkeypatch.setattr(supervisor.os, "write", lambda fd, data: done.append((fd, data)))
    monkeypatch.setattr(supervisor.os, "_exit", _exit)
    with pytest.raises(Exited):
        supervisor.start_child([], 7, lambda *a: 0, request)
    assert done == [
        (3, 0),
        (4, 1),
        (5, 2),
        ("fchdir", 6),
        (b"/bin/agent", [b"/bin/agent"], {b"K": b"V"}),
        (7, b"13"),
    ]
    monkeypatch.setattr(supervisor.os, "getppid", lambda: 1)  # its supervisor died meanwhile
    done.clear()
    with pytest.raises(Exited):
        supervisor.start_child([], 7, lambda *a: 0, request)
    assert done == []


def test_main_serves_without_being_a_subreaper(
    fake_system: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    served: list[tuple[int, int]] = []
    monkeypatch.setattr(supervisor, "serve", lambda p, fd, _call: served.append((p, fd)) or 0)
    assert supervisor.main(["5", "--serve", "8"]) == 0
    assert served == [(5, 8)]
    assert (supervisor.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) not in fake_system["prctl"]  # type: ignore[operator]
    assert (supervisor.PR_SET_PDEATHSIG, int(supervisor.PARENT_DEATH_SIGNAL), 0, 0, 0) in (
        fake_system["prctl"]  # type: ignore[operator]
    )
