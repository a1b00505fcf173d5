"""The small supervisor each child of the jlgcli program runs under on Linux (issue 33).

``python -I -S supervisor.py PARENT STATUS_FD -- ARGV...``: a separate program
(stdlib only, started without ``site`` so it costs one interpreter start-up,
~15 ms) that makes a SIGKILL of jlgcli end the child's whole tree:

* it is a child subreaper, so everything the child starts (a ``setsid``
  daemon, a double fork, an ``env -i`` exec) stays its descendant;
* its parent-death signal is SIGUSR2 (a signal the kill ladder never sends):
  when jlgcli dies, even by SIGKILL or the OOM killer, the kernel sends it and
  the supervisor SIGKILLs every descendant, then exits. It checks that
  ``PARENT`` is still its parent after the prctl, so a jlgcli killed during
  the spawn is noticed too;
* it forks the child, which stays in the supervisor's process group and session
  (the group the ladder signals; the supervisor ignores SIGINT/SIGTERM/SIGHUP/
  SIGQUIT, the child gets them directly), gives it SIGKILL as parent-death signal, and
  reports an ``exec`` failure's errno on ``STATUS_FD`` (jlgcli then raises
  ``CannotStart`` as it would for its own exec). EOF without data: started;
* it exits as its child did (same code, or the same signal), at once; what
  the child left running re-parents to jlgcli (also a subreaper) and is ended
  by jlgcli's sweep, with SIGTERM and a grace period.

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

    Prctl = Callable[[int, int, int, int, int], int]

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PARENT_DEATH_SIGNAL = signal.SIGUSR2
IGNORED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
USAGE = "usage: supervisor.py PARENT STATUS_FD -- ARGV..."


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
    found: list[int] = []
    queue = [pid]
    while queue:
        children = children_of(queue.pop(0), proc)
        found += children
        queue += children
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
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def exit_like(status: int) -> int:
    """End this process as the child ended: the same signal, or the same exit code."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
        return 128 + number  # a signal that does not end a process (SIGCHLD…): as a shell
    return os.waitstatus_to_exitcode(status)


def start_child(argv: list[str], status_fd: int, libc_prctl: Prctl) -> int:
    """Fork and exec ``argv``; the child reports an exec failure's errno on ``status_fd``."""
    pid = os.fork()
    if pid:
        return pid
    try:  # the child: default signals, SIGKILL when the supervisor dies
        for number in IGNORED:
            signal.signal(number, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        libc_prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        os.execvp(argv[0], argv)  # noqa: S606 - jlgcli's own resolved argv, never a shell
    except OSError as exc:
        os.write(status_fd, str(exc.errno or 0).encode())
    finally:
        os._exit(127)


def main(args: list[str]) -> int:
    if len(args) < 4 or args[2] != "--":
        print(USAGE, file=sys.stderr)
        return 2
    parent, status_fd, argv = int(args[0]), int(args[1]), args[3:]
    call = prctl()
    for number in IGNORED:  # the ladder signals our group: the child acts, we wait for it
        signal.signal(number, signal.SIG_IGN)
    me = os.getpid()

    def parent_died(_signum: int, _frame: object) -> None:
        kill_tree(me)
        os._exit(128 + int(PARENT_DEATH_SIGNAL))

    signal.signal(PARENT_DEATH_SIGNAL, parent_died)
    call(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    call(PR_SET_PDEATHSIG, int(PARENT_DEATH_SIGNAL), 0, 0, 0)
    if os.getppid() != parent:  # jlgcli died before the prctl: nothing to supervise
        return 128 + int(PARENT_DEATH_SIGNAL)
    os.set_inheritable(status_fd, False)  # closed by the child's exec: EOF means started
    child = start_child(argv, status_fd, call)
    os.close(status_fd)
    _quiet_standard_streams()
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:  # pragma: no cover - the child is ours until reaped
            return 1
        except InterruptedError:  # pragma: no cover - PEP 475 retries
            continue
        if pid == child:
            return exit_like(status)


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
