"""The supervisors' fork server (issue 33; issue 18's loop overhead): ``jlgcli.process.warm``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

if not sys.platform.startswith("linux"):  # also .ci/run's Windows proxy: no SIGUSR2 there
    pytest.skip("the fork server is Linux's (prctl, SCM_RIGHTS)", allow_module_level=True)

from jlgcli.process import warm

# A program using the process layer as the jlgcli program does (adopt_orphans: a
# subreaper, children supervised); each call's facts as one JSON line.
DRIVER = r"""
import json, os, sys
from jlgcli.process import adopt_orphans, run_invocation, warm
from jlgcli.process.model import Invocation, Limits

adopt_orphans()
work = sys.argv[1]
script = "echo $CANARY; pwd; cat; echo err >&2; exit 3"

def call(argv, **fields):
    outcome = run_invocation(Invocation(tuple(argv), **fields), limits=Limits(total_timeout=60),
                             sinks=[lambda e: out.append(e)])
    text = "".join(e.text for e in out if e.stream == "stdout")
    errors = "".join(e.text for e in out if e.stream == "stderr")
    server = warm._servers[0].proc.pid
    with open(f"/proc/{server}/environ", "rb") as f:
        environ = f.read().split(b"\0")
    print(json.dumps({"exit": outcome.exit_code, "signal": outcome.signal, "pid": outcome.pid,
                      "error": outcome.error, "stdout": text, "stderr": errors,
                      "server": server, "server_env": [v.decode() for v in environ if v],
                      "reason": outcome.stop_reason.value}), flush=True)

for _ in range(2):  # the first is started cold; its release starts the server
    out = []
    call(["sh", "-c", script], stdin="typed\n", cwd=work, env={"CANARY": "secret-canary"})
out = []
call(["sh", "-c", "kill -TERM $$"])
out = []
bad = os.path.join(work, "bad")
with open(bad, "w") as f:
    f.write("#!/nonexistent/interpreter\n")
os.chmod(bad, 0o755)
call([bad])
server = warm._servers[0].proc
import time
from jlgcli.process.descendants import children_of, orphans
for _ in range(500):  # the next call's supervisor, forked ahead, once jlgcli adopted it
    waiting = [pid for pid in children_of(os.getpid())
               if os.getsid(pid) == server.pid and pid != server.pid]
    if waiting:
        break
    time.sleep(0.01)
swept = [p.pid for p in orphans()]
warm.retire()
print(json.dumps({"retired": server.returncode is not None, "left": warm._servers,
                  "waiting": waiting, "swept": swept, "children": children_of(os.getpid())}),
      flush=True)
"""


@pytest.fixture
def calls(tmp_path: Path) -> list[dict[str, Any]]:
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(driver), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_a_child_of_the_fork_server_runs_as_a_cold_one(
    calls: list[dict[str, Any]], tmp_path: Path
) -> None:
    cold, served = calls[0], calls[1]
    assert cold["server"] is not None  # started by the first call's release
    for one in (cold, served):
        assert (one["exit"], one["signal"], one["reason"]) == (3, None, "exited")
        assert one["stdout"] == f"secret-canary\n{tmp_path}\ntyped\n"  # env, cwd, stdin
        assert one["stderr"] == "err\n"
    assert served["server"] == cold["server"]
    assert served["pid"] != served["server"]  # its own supervisor, forked by the server


def test_the_server_holds_no_secret_in_its_environment(calls: list[dict[str, Any]]) -> None:
    assert not any("secret-canary" in value for value in calls[1]["server_env"])
    assert all(value.startswith("LD_LIBRARY_PATH=") for value in calls[1]["server_env"])


def test_a_signal_death_and_an_exec_failure_are_reported_as_for_a_cold_child(
    calls: list[dict[str, Any]],
) -> None:
    assert (calls[2]["exit"], calls[2]["signal"]) == (None, signal.SIGTERM)
    assert calls[3]["reason"] == "failed-to-start"
    assert "cannot start" in calls[3]["error"] and "No such file" in calls[3]["error"]


def test_the_server_is_reaped_at_exit(calls: list[dict[str, Any]]) -> None:
    assert (calls[4]["retired"], calls[4]["left"]) == (True, [])


def test_the_next_supervisor_waits_forked_ahead_is_no_orphan_and_ends_with_the_server(
    calls: list[dict[str, Any]],
) -> None:
    """Issue 50: the server forks each supervisor before its request; jlgcli adopts it at
    once, the orphan sweep leaves it alone, and retiring the server ends it too."""
    assert len(calls[4]["waiting"]) == 1
    assert calls[4]["swept"] == []
    assert calls[4]["children"] == []  # nothing left: the server and its spare are reaped


# -- the error paths, in this process ------------------------------------------------------


class FakePopen:
    def __init__(self, returncode: int | None = None) -> None:
        self.pid = 999_999_999
        self.returncode = returncode
        self.killed = False

    def poll(self) -> int | None:
        return self.returncode

    def kill(self) -> None:
        self.killed = True

    def wait(self) -> int:
        self.returncode = -9
        return -9


def test_adopted_mirrors_popen_for_a_child_of_ours() -> None:
    proc = subprocess.Popen(["sh", "-c", "exit 4"])
    adopted = warm.Adopted(proc.pid)
    assert adopted.wait() == 4 and adopted.poll() == 4
    adopted.kill()  # ended already: nothing is signalled
    sleeper = subprocess.Popen(["sleep", "30"])
    adopted = warm.Adopted(sleeper.pid)
    assert adopted.poll() is None
    adopted.kill()
    assert adopted.wait() == -signal.SIGKILL
    gone = warm.Adopted(sleeper.pid)  # reaped already: its status is lost, as for Popen
    assert gone.poll() == 0


def test_a_server_that_died_is_reaped_and_the_child_starts_cold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dead = FakePopen(returncode=1)
    ours, theirs = _socketpair()
    monkeypatch.setattr(warm, "_servers", [warm.Server(dead, ours)])  # type: ignore[arg-type]
    assert warm.server() is None
    assert dead.killed and warm._servers == []
    theirs.close()


def test_a_request_nobody_serves_gives_none(monkeypatch: pytest.MonkeyPatch) -> None:
    alive = FakePopen()
    ours, theirs = _socketpair()
    theirs.close()  # the server's end is gone: the send fails
    found = warm.Server(alive, ours)  # type: ignore[arg-type]
    monkeypatch.setattr(warm, "_servers", [found])
    assert warm.server() is found
    assert found.start(["true"], env={}, cwd=None, stdio=(0, 1, 2)) is None
    assert alive.killed and warm._servers == []


def test_a_directory_that_cannot_be_opened_keeps_the_server(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    alive = FakePopen()
    ours, theirs = _socketpair()
    found = warm.Server(alive, ours)  # type: ignore[arg-type]
    monkeypatch.setattr(warm, "_servers", [found])
    with pytest.raises(FileNotFoundError):
        found.start(["true"], env={}, cwd=str(tmp_path / "gone"), stdio=(0, 1, 2))
    assert warm._servers == [found] and not alive.killed
    ours.close()
    theirs.close()


def test_only_the_main_thread_starts_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warm, "_servers", [])
    seen: list[object] = []

    def worker() -> None:
        warm.prestart()
        seen.append(warm.server())

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == [None] and warm._servers == []


def test_every_thread_uses_the_running_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 37: a batch's task threads spawn their gits through it, not cold."""
    running = SimpleNamespace(proc=SimpleNamespace(poll=lambda: None))
    monkeypatch.setattr(warm, "_servers", [running])
    seen: list[object] = []
    thread = threading.Thread(target=lambda: seen.append(warm.server()))
    thread.start()
    thread.join()
    assert seen == [running]


def test_no_server_when_it_cannot_be_started(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warm, "_servers", [])

    def fail(*_args: object, **_kwargs: object) -> None:
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(warm.subprocess, "Popen", fail)
    warm.prestart()
    assert warm._servers == []


def _socketpair() -> tuple[Any, Any]:
    import socket

    return socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)


def test_the_server_is_started_with_an_empty_environment_in_its_own_session(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(warm, "_servers", [])
    monkeypatch.setenv("LD_LIBRARY_PATH", "/opt/lib")
    monkeypatch.setenv("CANARY", "secret-canary")
    started: dict[str, Any] = {}

    def popen(argv: list[str], **kwargs: Any) -> FakePopen:
        started.update(kwargs, argv=argv)
        return FakePopen()

    monkeypatch.setattr(warm.subprocess, "Popen", popen)
    warm.prestart()
    warm.prestart()  # running already: not a second one
    assert len(warm._servers) == 1
    assert started["env"] == {"LD_LIBRARY_PATH": "/opt/lib"}
    assert started["start_new_session"] is True and started["cwd"] == "/"
    assert started["argv"][:4] == [sys.executable, "-I", "-S", "-c"]
    assert started["argv"][5:8] == [warm.SUPERVISOR, str(os.getpid()), "--serve"]
    warm.retire()
    assert warm._servers == []


def test_a_pidfd_where_the_system_has_one(monkeypatch: pytest.MonkeyPatch) -> None:
    from jlgcli.process import pipe

    proc = subprocess.Popen(["sleep", "30"])
    try:
        exit_fd = pipe._pidfd(proc.pid)
        assert exit_fd is not None
        os.close(exit_fd)
    finally:
        proc.kill()
        proc.wait()

    def enosys(_pid: int) -> int:
        raise OSError(38, "Function not implemented")  # a kernel older than 5.3

    monkeypatch.setattr(pipe.os, "pidfd_open", enosys)
    assert pipe._pidfd(proc.pid) is None


def test_an_exec_error_reported_with_the_pid_is_raised_and_its_supervisor_reaped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from jlgcli.process import supervisor

    ours, theirs = _socketpair()
    supervising = subprocess.Popen(["sh", "-c", "exit 127"])  # stands for the supervisor
    found = warm.Server(FakePopen(), ours)  # type: ignore[arg-type]
    monkeypatch.setattr(warm, "_servers", [found])

    def serve() -> None:  # the child's errno arrives before the supervisor's +PID+
        request = supervisor.receive(theirs)
        assert request is not None
        os.write(request.status_fd, b"13" + b"+%d+" % supervising.pid)
        request.close()

    thread = threading.Thread(target=serve)
    thread.start()
    with pytest.raises(PermissionError):
        found.start(["/bin/true"], env={"K": "V"}, cwd=None, stdio=(0, 1, 2))
    thread.join()
    assert supervising.returncode is None  # reaped by the Adopted, not by Popen
    with pytest.raises(ChildProcessError):
        os.waitpid(supervising.pid, os.WNOHANG)
    theirs.close()
    ours.close()


def test_a_request_larger_than_the_sockets_buffer_arrives_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One ``sendmsg`` (the supervisor wakes once), which waits while it reads."""
    from jlgcli.process import supervisor

    ours, theirs = _socketpair()
    found = warm.Server(FakePopen(), ours)  # type: ignore[arg-type]
    monkeypatch.setattr(warm, "_servers", [found])
    served = subprocess.Popen(["sh", "-c", "exit 0"])  # stands for its supervisor
    big = "v" * (4 << 20)  # far above a Unix socket's buffer
    got: list[object] = []

    def serve() -> None:
        request = supervisor.receive(theirs)
        assert request is not None
        got.append(request.env)
        os.write(request.status_fd, b"+%d+" % served.pid)
        request.close()

    thread = threading.Thread(target=serve)
    thread.start()
    adopted = found.start(["/bin/true"], env={"BIG": big}, cwd=None, stdio=(0, 1, 2))
    thread.join()
    assert got == [{b"BIG": big.encode()}]
    assert adopted is not None and adopted.wait() == 0
    adopted.close()
    theirs.close()
    ours.close()


def test_the_pipe_transport_falls_back_or_fails_as_the_server_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from jlgcli.process import pipe
    from jlgcli.process.spawn import CannotStart

    answers: list[object] = [None, OSError(13, "Permission denied")]

    class Answering:
        def start(self, *_args: object, **_kwargs: object) -> object:
            answer = answers.pop(0)
            if isinstance(answer, OSError):
                raise answer
            return answer

    monkeypatch.setattr(warm, "server", Answering)
    before = len(os.listdir("/proc/self/fd"))
    assert pipe._start_warm(["x"], cwd=None, env={}, stdin=None) is None  # start cold
    with pytest.raises(CannotStart):
        pipe._start_warm(["x"], cwd=None, env={}, stdin=b"typed")
    assert len(os.listdir("/proc/self/fd")) == before  # every pipe end closed


# -- warm_up: the server before the first child (issue 49) ---------------------------------

WARM_UP_DRIVER = r"""
import json, sys
from jlgcli.process import adopt_orphans, run_invocation, warm, warm_up
from jlgcli.process.model import Invocation, Limits

adopt_orphans()
warm_up()
started = [s.proc.pid for s in warm._servers]
out = []
# the child's parent is its supervisor: its command line says how that one started
outcome = run_invocation(Invocation(("sh", "-c", "tr '\\0' ' ' < /proc/$PPID/cmdline"),),
                         limits=Limits(total_timeout=60), sinks=[out.append])
text = "".join(e.text for e in out if e.stream == "stdout")
print(json.dumps({"started": started, "supervisor": text, "exit": outcome.exit_code}))
warm.retire()
"""


def test_warm_up_starts_the_server_so_the_first_child_is_forked_not_started_cold(
    tmp_path: Path,
) -> None:
    """Issue 49: a one-shot paid two interpreter starts before its agent call (the probe's
    cold supervisor, then the server); warm_up starts the server first."""
    facts = _driven(tmp_path, WARM_UP_DRIVER)
    assert len(facts["started"]) == 1 and facts["exit"] == 0
    assert "--serve" in facts["supervisor"]  # a fork of the server, not `supervisor.py … -- sh`
    assert " -- sh" not in facts["supervisor"]


def test_warm_up_starts_nothing_unless_children_are_supervised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from jlgcli import process

    monkeypatch.setattr(warm, "_servers", [])
    monkeypatch.setattr(process, "_adopting", [])  # a host program: no adoption asked
    monkeypatch.setattr(warm.subprocess, "Popen", lambda *a, **k: pytest.fail("started"))
    process.warm_up()
    monkeypatch.setattr(process, "_adopting", [True])
    monkeypatch.setattr(sys, "frozen", True, raising=False)  # the frozen exe: no supervisor
    process.warm_up()
    assert warm._servers == []


KILLED_SERVER_DRIVER = r"""
import json, os, signal, sys, time
from jlgcli.process import adopt_orphans, run_invocation, warm, warm_up
from jlgcli.process.descendants import children_of
from jlgcli.process.model import Invocation, Limits

adopt_orphans()
warm_up()
server = warm._servers[0].proc.pid
for _ in range(500):  # its first supervisor, forked ahead and adopted
    if [p for p in children_of(os.getpid()) if p != server and os.getsid(p) == server]:
        break
    time.sleep(0.01)
os.kill(server, signal.SIGKILL)
time.sleep(0.2)
out = []
outcome = run_invocation(Invocation(("sh", "-c", "echo ran; exit 3")),
                         limits=Limits(total_timeout=60), sinks=[out.append])
left = [p for p in children_of(os.getpid()) if os.getsid(p) == server]
warm.retire()
print(json.dumps({"exit": outcome.exit_code, "out": "".join(e.text for e in out),
                  "left": left, "children": children_of(os.getpid())}))
"""


def test_a_killed_server_and_its_waiting_supervisor_are_reaped_and_the_child_starts_cold(
    tmp_path: Path,
) -> None:
    facts = _driven(tmp_path, KILLED_SERVER_DRIVER)
    assert (facts["exit"], facts["out"]) == (3, "ran\n")
    assert facts["left"] == [] and facts["children"] == []


def _driven(tmp_path: Path, program: str) -> dict[str, Any]:
    """What the driver ``program`` printed (one JSON object), once it exited 0."""
    driver = tmp_path / "driver.py"
    driver.write_text(program, encoding="utf-8")
    proc = subprocess.run([sys.executable, str(driver)], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    facts: dict[str, Any] = json.loads(proc.stdout)
    return facts
