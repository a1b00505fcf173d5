"""The supervisors' fork server: a child's supervisor without an interpreter start-up (issue 33).

Every child of the jlgcli program runs under ``jlgcli.process.supervisor`` on
Linux. Started with its child (``python -I -S supervisor.py``), each supervisor
cost an interpreter start-up on the agent call's critical path and ~15 ms of CPU
per call, ~25 ms of each loop iteration on a 2-core machine (issue 18's figure).
So the first supervised spawn of the pipe transport also starts one fork
server (``supervisor.py PARENT --serve CONTROL_FD``), in the background; later
spawns ask it (``start``). It forks each supervisor twice *ahead of its request*
(issue 50): the grandchild, adopted by jlgcli (a subreaper) as soon as the middle
process exits, sets its parent-death signal once jlgcli is its parent and waits
for the request; then it starts its own session and is the child's supervisor,
exactly as a cold one (a subreaper, jlgcli's to wait for: ``Adopted``). A spawn
waits for one fork. The waiting one stays in the server's session, which the
orphan sweep leaves alone (``descendants.forked_ahead``); ``end_server`` ends it.

The request carries the child's argv and environment (marshalled bytes over a
Unix socket: never on disk) and, by ``SCM_RIGHTS``, the stdio pipes jlgcli made
for the call, the working directory (an ``O_PATH`` descriptor of the directory
this process resolved, as ``Popen(cwd=)`` would) and a status pipe, on which
the supervisor writes ``+PID+`` once the child is forked and the child an
``exec`` failure's errno (its exec closes it: end-of-file means started).

The server's own environment is empty but for ``LD_LIBRARY_PATH`` (the
interpreter may need it), so no supervisor holds a secret a child could read in
``/proc/PPID/environ``. Only the main thread starts it (``PR_SET_PDEATHSIG``
follows the thread that forked, and the main thread lives as long as jlgcli);
every thread uses it (issue 37: a batch's task threads make worktrees and
commits), one request at a time under the spawn lock. What it forks is adopted
by the main thread, the first live thread of the subreaper, so their
parent-death signals too follow the main thread, whichever thread asked.
It dies with jlgcli (its parent-death signal, like a supervisor's) and is ended
and reaped at exit (``retire``, from ``boundary.end_orphans_at_exit``). A server
that cannot serve (killed meanwhile) is reaped and the child starts cold.

Why a fork server rather than a pre-started supervisor per call: that one cost an
interpreter start-up's CPU (~15 ms) per call, which a loaded 2-core machine pays in wall
time anyway (measured: no better than cold); forking a started one costs ~1 ms.
"""

from __future__ import annotations

import _socket
import array
import contextlib
import marshal
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from jlgcli.process.descendants import (
    children_of,
    forget_child,
    forked_ahead,
    forks_ahead,
    spawning,
    supervisor_command,
)

TYPE_CHECKING = False

assert sys.platform.startswith("linux"), "the fork server is Linux's, like the supervisor"

SUPERVISOR = str(Path(__file__).with_name("supervisor.py"))
STARTED = b"+"  # supervisor.STARTED (that module is a script: not imported here)
SERVER_ENVIRONMENT = ("LD_LIBRARY_PATH",)  # what the server's environment keeps of jlgcli's

_servers: list[Server] = []


class Adopted:
    """A supervisor the server forked and jlgcli adopted: what ``subprocess.Popen`` offers.

    ``status_fd``: the rest of the status pipe, where the child writes the errno of
    a failed ``exec``; jlgcli does not wait for the exec on the spawn's critical
    path but reads it once the child has ended (``exec_error``).
    """

    def __init__(self, pid: int, status_fd: int | None = None, report: bytes = b"") -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._status_fd = status_fd
        self._report = report

    def exec_error(self) -> OSError | None:
        """The child's exec failure (read to end-of-file: call once it ended), or None."""
        if self._status_fd is not None:
            self._report += _read_all(self._status_fd)
            self._status_fd = None
        error = self._report.replace(STARTED, b"").strip()
        if not error:
            return None
        number = int(error) if error.isdigit() else 0
        return OSError(number, os.strerror(number) if number else "cannot start")

    def close(self) -> None:
        """Close the status pipe if it was not read."""
        if self._status_fd is not None:
            os.close(self._status_fd)
            self._status_fd = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self._reap(os.WNOHANG)
        return self.returncode

    def wait(self) -> int:
        while self.returncode is None:
            self._reap(0)
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def _reap(self, options: int) -> None:
        try:
            pid, status = os.waitpid(self.pid, options)
        except ChildProcessError:  # reaped elsewhere: its status is lost, as Popen says 0
            self.returncode = 0
            return
        if pid:
            self.returncode = os.waitstatus_to_exitcode(status)


if TYPE_CHECKING:  # types only: a run imports no typing (issue 49)
    from typing import Protocol

    class ServerProcess(Protocol):
        """The server's process: a ``subprocess.Popen``, or an ``Adopted`` fork."""

        pid: int

        def poll(self) -> int | None: ...
        def wait(self) -> int: ...
        def kill(self) -> None: ...


class Server:
    """The fork server, and ``control``, the socket it reads requests from.

    ``ahead``: a supervisors' server (``supervisor.serve``), whose next supervisor waits
    forked ahead in its session (``descendants.forks_ahead``), not the batch's task server.
    """

    def __init__(
        self, proc: ServerProcess, control: _socket.socket, *, ahead: bool = False
    ) -> None:
        self.proc = proc
        self.control = control
        self.ahead = ahead
        if ahead:
            forks_ahead(proc.pid)  # its own session (start_new_session, or setsid)

    def start(
        self, argv: Sequence[str], *, env: Mapping[str, str], cwd: str | None, stdio: Sequence[int]
    ) -> Adopted | None:
        """Start ``argv`` on ``stdio`` (the child's stdin, stdout, stderr) under a supervisor.

        None: the server could not serve (it is reaped; start the child otherwise).
        Raises the ``OSError`` of a working directory that cannot be opened, or of
        a failed ``exec`` reported with the supervisor's pid (its supervisor is
        reaped); a later exec failure is the ``Adopted``'s ``exec_error``.
        """
        directory = os.open(cwd or ".", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        status_read, status_write = os.pipe()
        code, errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
        body = marshal.dumps(  # os.fsencode's bytes, without its Python call per string
            (
                [os.fsencode(arg) for arg in argv],
                {
                    key.encode(code, errors): value.encode(code, errors)
                    for key, value in env.items()
                },
            )
        )
        fds = [*stdio, directory, status_write]
        with spawning() as register:  # the sweep must not take it for an orphan
            try:
                request = len(body).to_bytes(8, "big") + body
                rights = [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, array.array("i", fds))]
                # one message, so the waiting supervisor wakes once (socket.send_fds); the
                # rest, if a signal cut the send short
                done = self.control.sendmsg([request], rights, _socket.MSG_NOSIGNAL)
                if done < len(request):
                    self.control.sendall(memoryview(request)[done:], _socket.MSG_NOSIGNAL)
                sent = True
            except OSError:  # the server is gone
                sent = False
            finally:
                os.close(directory)
                os.close(status_write)
            report = _read_until_started(status_read)
            before, started, after = report.partition(STARTED)
            pid, _, rest = after.partition(STARTED)
            served = bool(sent and started and pid.isdigit())
            if served:
                register(int(pid))
        if not served:
            os.close(status_read)
            end_server(self)  # outside the spawn lock: forget_child takes it
            return None
        adopted = Adopted(int(pid), status_read, before + rest)
        error = adopted.exec_error() if before + rest else None
        if error is not None:  # the supervisor exits as its child did: 127
            adopted.wait()
            forget_child(adopted.pid)
            raise error
        return adopted


def prestart() -> None:
    """Start the fork server unless it runs (the main thread only)."""
    if _servers or threading.current_thread() is not threading.main_thread():
        return
    environment = {name: os.environ[name] for name in SERVER_ENVIRONMENT if name in os.environ}
    command = supervisor_command(str(os.getpid()), "--serve")
    found = start_server(command, environment, ahead=True)
    if found is not None:  # else no server: the children start cold
        _servers.append(found)


def start_server(
    command: Sequence[str], environment: Mapping[str, str], *, ahead: bool = False
) -> Server | None:
    """Start ``command`` + the number of its end of a new control socket, as a server: its
    own session, in ``/``, no stdio, that ``environment``. None when it cannot start."""
    # _socket: the socket package wraps its constants in enums (~4 ms of each start, issue 49)
    ours, theirs = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        with spawning() as register:
            proc = subprocess.Popen(
                [*command, str(theirs.fileno())],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=dict(environment),
                cwd="/",
                pass_fds=(theirs.fileno(),),
                start_new_session=True,
            )
            register(proc.pid)
    except OSError:
        ours.close()
        return None
    finally:
        theirs.close()
    return Server(proc, ours, ahead=ahead)


def server() -> Server | None:
    """The running fork server, if there is one (any thread)."""
    found = _servers[0] if _servers else None
    if found is not None and found.proc.poll() is not None:  # killed meanwhile
        end_server(found)
        return None
    return found


def serve_from(found: Server) -> None:
    """Have ``found`` serve this process's supervised spawns from now on (a batch's task
    server, ``jlgcli.batch.task_server``): the supervisors' server is ended."""
    retire()
    _servers.append(found)


def retire() -> None:
    """End and reap the fork server (the command is exiting)."""
    while _servers:
        end_server(_servers[0])


def end_server(found: Server) -> None:
    """Close the server's socket, kill and reap it: what it forked is jlgcli's, not its own;
    the supervisor it forked ahead, idle, is killed and reaped too."""
    with contextlib.suppress(ValueError):  # another thread ended it first
        _servers.remove(found)
    found.control.close()
    found.proc.kill()
    found.proc.wait()
    forget_child(found.proc.pid)
    if found.ahead:
        end_forked_ahead(found.proc.pid)


def end_forked_ahead(session: int) -> None:
    """SIGKILL and reap jlgcli's children in the ended server's ``session`` until none is
    left (a middle process it left behind is one: its child comes in the next round)."""
    forks_ahead(session, ending=True)
    for _round in range(5):
        with spawning():  # the orphan sweep's lock: nothing is being spawned meanwhile
            found = [pid for pid in children_of(os.getpid()) if forked_ahead(pid, {session})]
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
        if not found:
            return


def _read_until_started(fd: int) -> bytes:
    """The status pipe up to the supervisor's ``+PID+`` (or its end-of-file)."""
    report = b""
    while report.count(STARTED) < 2 and (chunk := os.read(fd, 64)):
        report += chunk
    return report


def _read_all(fd: int) -> bytes:
    chunks = []
    try:
        while chunk := os.read(fd, 64):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)
