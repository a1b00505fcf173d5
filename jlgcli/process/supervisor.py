"""The small supervisor each child of the jlgcli program runs under on Linux (issue 33).

``python -I -S supervisor.py PARENT STATUS_FD -- ARGV...``: a separate program
(stdlib only, no ``site``: one interpreter start-up, ~15 ms) that makes a SIGKILL
of jlgcli end the child's whole tree:

* it is a child subreaper: whatever the child starts (a ``setsid`` daemon, a
  double fork, an ``env -i`` exec) stays its descendant;
* its parent-death signal is SIGUSR2 (never sent by the kill ladder): when jlgcli
  dies, even by SIGKILL, it SIGKILLs every descendant and exits. It checks that
  ``PARENT`` is still its parent after the prctl (a jlgcli killed meanwhile);
* it forks the child, which stays in its process group (the one the ladder
  signals; the supervisor ignores SIGINT/SIGTERM/SIGHUP/SIGQUIT, the child gets
  them), with SIGKILL as parent-death signal; an ``exec`` failure's errno is
  written on ``STATUS_FD`` (jlgcli raises ``CannotStart``). EOF alone: started;
* it exits as its child did (same code, or signal), at once; what the child left
  re-parents to jlgcli (a subreaper too) and is ended by jlgcli's sweep.

``python -I -S supervisor.py PARENT --serve CONTROL_FD``: a fork server
(``jlgcli.process.warm``): later children's supervisors without an interpreter
start-up each. It forks each supervisor twice (``fork_spare``) *ahead* of its
request: the grandchild, adopted by jlgcli (a subreaper; the server is not one)
once the middle process exits, guards itself as above, then waits on the Unix
socket ``CONTROL_FD`` for the request (``receive``: argv and environment as
marshalled bytes, never on disk; by ``SCM_RIGHTS`` the child's stdin, stdout,
stderr, working directory and status pipe). It then starts a session, forks the
child, writes ``+PID+`` (its pid) on the status pipe, and the server forks the next
spare. No ``+`` before end-of-file: not served, jlgcli starts the child otherwise.
End-of-file on the socket (jlgcli retired it): the spare and the server exit.

Not used in the frozen exe (no separate Python to run it): there ``setpriv
--pdeathsig`` protects the direct child only (docs/process.md).
"""

from __future__ import annotations

import os
import sys

assert sys.platform != "win32", "the supervisor is Linux's (jlgcli runs it there only)"

# The C module the ``signal`` package wraps: ``signal`` imports ``enum`` (~6 ms of the
# supervisor's start, paid by every child jlgcli spawns); ints and callables are all we need.
signal = __import__("_signal")

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Prctl = Callable[[int, int, int, int, int], int]

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PARENT_DEATH_SIGNAL = signal.SIGUSR2
IGNORED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
# What Python itself ignores at start (SIGPIPE, and SIGXFSZ where it exists): an ignored signal
# stays ignored across exec, so the agent and every shell it runs would get EPIPE instead of
# dying quietly at `yes | head -1`; subprocess restores them too (restore_signals=True).
PYTHON_IGNORED = tuple(
    getattr(signal, name) for name in ("SIGPIPE", "SIGXFSZ") if hasattr(signal, name)
)
USAGE = "usage: supervisor.py PARENT (STATUS_FD -- ARGV... | --serve CONTROL_FD)"
STARTED = b"+"  # on the status pipe, around the supervisor's pid, once the child is forked
REQUEST_FDS = 5  # stdin, stdout, stderr, working directory, status pipe
MAX_REQUEST = 64 << 20  # argv and environment: far above what execve accepts (ARG_MAX)


def prctl() -> Prctl:
    """``prctl(2)`` through ``_ctypes`` (the ``ctypes`` package costs ~15 ms to import)."""
    low = __import__("_ctypes")  # untyped on purpose: ctypes' own wrappers are what cost

    class Int(low._SimpleCData):  # type: ignore[misc,name-defined]
        _type_ = "i"

    class Libc:
        _handle = low.dlopen(None, os.RTLD_NOW)

    class Function(low.CFuncPtr):  # type: ignore[misc,name-defined]
        _flags_ = low.FUNCFLAG_CDECL
        _restype_ = Int

    function: Prctl = Function(("prctl", Libc()))
    return function


def children_of(pid: int, proc: str = "/proc") -> list[int]:
    """The pids whose parent is ``pid`` (``/proc/N/stat``; comm may hold spaces and ``)``)."""
    found = []
    for name in os.listdir(proc):  # noqa: PTH208 - hundreds of names: no Path objects
        if not name.isdigit():
            continue
        try:
            with open(f"{proc}/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split(b" ", 2)
        if len(fields) > 1 and fields[1] == b"%d" % pid:
            found.append(int(name))
    return found


def descendants_of(pid: int, proc: str = "/proc") -> list[int]:
    """Every descendant of ``pid``, parents before children."""
    found = children_of(pid, proc)
    for child in found:  # the list grows as it is walked: parents before children
        found += children_of(child, proc)
    return found


def kill_tree(me: int, rounds: int = 50) -> None:
    """SIGKILL every descendant of ``me`` and reap them, until none is left.

    Children re-parent to us as their parents die (we are their subreaper), so
    the walk repeats; every round reaps what it can without blocking.
    """
    for _round in range(rounds):
        found = descendants_of(me)
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:  # it ended meanwhile
                continue
        reap_all()
        if not found:
            return


def reap_all() -> None:
    """Reap every child that already ended (never blocks)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        return


def exit_like(status: int) -> int:
    """End this process as the child ended: the same signal, or the same exit code."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
        return 128 + number  # a signal that does not end a process (SIGCHLD…): as a shell
    return os.waitstatus_to_exitcode(status)


class Request:
    """What a warm supervisor is asked to start: ``argv`` run with ``env``, and its fds."""

    def __init__(self, argv: list[bytes], env: dict[bytes, bytes], fds: list[int]) -> None:
        self.argv = argv
        self.env = env
        self.stdio = fds[:3]  # dup2'd onto the child's 0, 1, 2
        self.cwd_fd = fds[3]  # fchdir'd: the directory jlgcli opened, not a path to resolve again
        self.status_fd = fds[4]

    def close(self) -> None:
        """Close the supervisor's copies: the pipes' end-of-file is the child tree's alone."""
        for fd in (*self.stdio, self.cwd_fd, self.status_fd):
            os.close(fd)


def receive(sock: Any) -> Request | None:
    """Wait for jlgcli's next request on the socket ``sock``; None at its end-of-file.

    A length-prefixed ``marshal`` of ``(argv, env)`` (bytes) whose first part carries
    the ``REQUEST_FDS`` descriptors (close-on-exec here). A malformed one is refused
    (None): jlgcli, seeing no ``STARTED``, starts the child otherwise.
    """
    low = __import__("_socket")  # ``socket`` imports enum, ~6 ms
    data, ancillary, _flags, _address = sock.recvmsg(
        8, low.CMSG_SPACE(REQUEST_FDS * 4), low.MSG_CMSG_CLOEXEC
    )
    fds: list[int] = []
    for level, kind, payload in ancillary:
        if level == low.SOL_SOCKET and kind == low.SCM_RIGHTS:
            fds += [
                int.from_bytes(payload[i : i + 4], sys.byteorder, signed=True)
                for i in range(0, len(payload) - len(payload) % 4, 4)
            ]
    size = int.from_bytes(data, "big") if len(data) == 8 else -1
    body = []
    got = 0
    while 0 <= got < size <= MAX_REQUEST:
        chunk = sock.recv(min(size - got, 1 << 20))
        if not chunk:
            break
        body.append(chunk)
        got += len(chunk)
    if got != size or len(fds) != REQUEST_FDS:
        for fd in fds:
            os.close(fd)
        return None
    argv, env = __import__("marshal").loads(b"".join(body))
    return Request(argv, env, fds)


def serve(parent: int, control_fd: int, libc_prctl: Prctl) -> int:
    """The fork server: a supervisor forked ahead of each request, until its end."""
    low = __import__("_socket")  # here, once: not in every spare (~1 ms of CPU each)
    os.set_inheritable(control_fd, False)
    sock = low.socket(low.AF_UNIX, low.SOCK_STREAM, 0, control_fd)
    while fork_spare(parent, sock, libc_prctl):
        pass
    return 0


def fork_spare(parent: int, sock: Any, libc_prctl: Prctl) -> bool:
    """Fork the next request's supervisor twice, ahead of the request (``spare``). In the
    server: once the middle process has exited (jlgcli adopts the spare), wait until the
    spare has started a request's child: True (fork the next one), or has ended without
    (no ``STARTED``): False, the server ends."""
    claim_read, claim_write = os.pipe()
    middle = fork_twice(claim_read, None)
    if middle is None:
        os.close(claim_write)
        try:
            return os.read(claim_read, 1) == STARTED
        finally:
            os.close(claim_read)
    code = 127
    try:
        code = spare(parent, middle, sock, claim_write, libc_prctl)
    finally:
        os._exit(code)


def spare(parent: int, middle: int, sock: Any, claim_fd: int, libc_prctl: Prctl) -> int:
    """In the grandchild: adopted by jlgcli and guarded, wait for the next request on the
    server's socket (the server does not read it meanwhile), then supervise it. Until then
    it stays in the server's session, which no agent's process can join: jlgcli's orphan
    sweep leaves it alone (``descendants.forked_ahead``)."""
    if not adopted(parent, middle, libc_prctl):  # jlgcli died: nothing to supervise
        return 128 + int(PARENT_DEATH_SIGNAL)
    request = receive(sock)
    sock.close()  # a request sent once the server is gone must fail, not wait for us
    if request is None:  # jlgcli closed the socket (or sent nonsense): the server ends too
        return 0
    return supervise_request(request, libc_prctl, claim_fd)


def fork_supervisor(parent: int, control_fd: int, request: Request, libc_prctl: Prctl) -> None:
    """Fork twice for a request received (the batch's task server): the grandchild, once
    adopted by jlgcli, is its supervisor (jlgcli dead by then: it starts nothing)."""
    middle = fork_twice(control_fd, request)
    if middle is None:
        return
    code = 127
    try:
        if adopted(parent, middle, libc_prctl):
            code = supervise_request(request, libc_prctl)
        else:  # jlgcli died: nothing to supervise
            code = 128 + int(PARENT_DEATH_SIGNAL)
    finally:
        os._exit(code)


def fork_twice(close: int, request: Request | None) -> int | None:
    """Fork twice (for ``request``). In the server: None, once the middle process has exited
    (it exits at once, so jlgcli adopts the grandchild). In the grandchild: the middle
    process's pid (its parent until then), with ``close`` (the server's socket) closed."""
    middle = os.fork()
    if middle:
        if request is not None:  # the status pipe's end-of-file: the grandchild's (its child's)
            request.close()
        os.waitpid(middle, 0)
        return None
    code = 0
    try:
        middle = os.getpid()
        if os.fork() == 0:
            os.close(close)  # a request sent to a dead server must fail, not wait
            return middle
    except BaseException:  # the middle process never returns to the server's loop
        code = 127
    os._exit(code)


def adopted(parent: int, middle: int, libc_prctl: Prctl) -> bool:
    """Wait until the middle process has exited, then ``guard``: whether jlgcli adopted us."""
    pause = __import__("time").sleep
    while os.getppid() == middle:  # the middle process is exiting: jlgcli adopts us then
        pause(0.0001)
    guard(parent, libc_prctl)
    return os.getppid() == parent


def supervise_request(request: Request, libc_prctl: Prctl, claim_fd: int | None = None) -> int:
    """Start the request's child in a session of our own, say ``+PID+``, wait for it.

    ``claim_fd`` (a spare): told ``STARTED`` once the child is forked, so the server forks
    the next spare while this child starts, off the spawn's critical path.
    """
    os.setsid()  # its own session and group: the one the kill ladder signals
    child = start_child([], request.status_fd, libc_prctl, request)
    os.write(request.status_fd, STARTED + b"%d" % os.getpid() + STARTED)
    request.close()
    if claim_fd is not None:
        try:  # noqa: SIM105 - contextlib would be one more import at every start
            os.write(claim_fd, STARTED)
        except OSError:  # the server is gone (no next spare): this child is still ours
            pass
        os.close(claim_fd)
    return wait_for(child)


def start_child(
    argv: list[str], status_fd: int, libc_prctl: Prctl, request: Request | None = None
) -> int:
    """Fork and exec ``argv``; the child reports an exec failure's errno on ``status_fd``.

    With a ``request`` (warm mode), the child takes its stdio, working directory
    and environment from it, and ends at once if the supervisor died before the
    ``prctl`` (a cold supervisor's child is started while jlgcli waits for it).
    """
    supervisor = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    try:  # the child: default signals, SIGKILL when the supervisor dies
        for number in (*IGNORED, *PYTHON_IGNORED):
            signal.signal(number, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        libc_prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if request is None:
            os.execvp(argv[0], argv)  # noqa: S606 - jlgcli's own resolved argv, never a shell
        elif os.getppid() == supervisor:
            for target, fd in enumerate(request.stdio):
                os.dup2(fd, target)
            os.fchdir(request.cwd_fd)
            os.execve(request.argv[0], request.argv, request.env)  # noqa: S606 - as above
    except OSError as exc:
        os.write(status_fd, str(exc.errno or 0).encode())
    finally:
        os._exit(127)


def guard(parent: int, libc_prctl: Prctl, *, subreaper: bool = True) -> None:
    """Ignore the ladder's signals, kill the tree on ``PARENT_DEATH_SIGNAL``, set the prctls."""
    for number in IGNORED:  # the ladder signals our group: the child acts, we wait for it
        signal.signal(number, signal.SIG_IGN)
    me = os.getpid()

    def parent_died(_signum: int, _frame: object) -> None:
        kill_tree(me)
        os._exit(128 + int(PARENT_DEATH_SIGNAL))

    signal.signal(PARENT_DEATH_SIGNAL, parent_died)
    if subreaper:
        libc_prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    libc_prctl(PR_SET_PDEATHSIG, int(PARENT_DEATH_SIGNAL), 0, 0, 0)


def wait_for(child: int) -> int:
    """Reap every child until ``child`` ends; exit as it did."""
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:  # pragma: no cover - the child is ours until reaped
            return 1
        except InterruptedError:  # pragma: no cover - PEP 475 retries
            continue
        if pid == child:
            return exit_like(status)


def main(args: list[str]) -> int:
    serving = len(args) == 3 and args[1] == "--serve"
    if not serving and (len(args) < 4 or args[2] != "--"):
        print(USAGE, file=sys.stderr)
        return 2
    parent = int(args[0])
    call = prctl()
    guard(parent, call, subreaper=not serving)  # what the server forks is adopted by jlgcli
    if os.getppid() != parent:  # jlgcli died before the prctl: nothing to supervise
        return 128 + int(PARENT_DEATH_SIGNAL)
    if serving:
        return serve(parent, int(args[2]), call)
    status_fd = int(args[1])
    os.set_inheritable(status_fd, False)  # closed by the child's exec: EOF means started
    child = start_child(args[3:], status_fd, call)
    os.close(status_fd)
    _quiet_standard_streams()
    return wait_for(child)


def _quiet_standard_streams() -> None:
    """Hold no copy of the child's pipes: their end-of-file is the child tree's alone."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stderr.flush()
    os._exit(code)  # no interpreter teardown: jlgcli waits for this exit after every call
