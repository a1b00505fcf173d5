"""Descendants that left the process group are still ours: adopt them, and end them with the run.

The kill ladder signals the child's process group. A descendant that started
its own session (``setsid``, a double-forked daemon, codex's ``app-server``)
is out of the group's reach, so after every run the process layer also:

* Linux: the jlgcli program (not a host program using jlgcli as a library:
  the console scripts call ``jlgcli.process.adopt_orphans``) is a child subreaper
  (``prctl(PR_SET_CHILD_SUBREAPER)``, set before the first spawn), so such
  orphans re-parent to jlgcli instead of init. Every child of jlgcli that we
  did not spawn ourselves is an orphan of one of our runs, marked or not
  (issue 33: a daemon that ``execve``s with ``env -i`` drops the ``JLGCLI_TREE``
  mark): every process the layer spawns starts a session of its own, so any
  process in another session than jlgcli's re-parented to it descends from one
  of our children. It is ended (SIGTERM, then SIGKILL after the grace period)
  and reaped, after each run and at exit (``end_orphans``). A stray in jlgcli's
  own session (none is spawned outside the process layer) is ended only when it
  carries the mark. Each direct child also gets ``PR_SET_PDEATHSIG``
  (SIGKILL), so even a SIGKILL of jlgcli takes the direct child with it. The
  pipe transport sets it with ``setpriv`` when the system has one (``die_with_parent``):
  a SIGKILL of jlgcli in the millisecond between the spawn and setpriv's prctl
  leaves that child running, where the ``preexec_fn`` checked its parent again.
* Every OS: the descendants of the child seen when a stop begins (psutil walks
  the tree by parent pid) are ended the same way.
* Windows: the Job Object of each child (``jlgcli.process.job``) does the rest.
* macOS has neither a subreaper nor a parent-death signal: an orphan that left
  the group after its parent exited normally is out of reach (documented).

``PR_SET_PDEATHSIG`` fires when the *thread* that forked the child ends, not
the process: ``run_invocation`` blocks its thread until the child is gone, so
the thread always outlives its child.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Collection, Iterator, Sequence

from jlgcli.process import adoption_requested
from jlgcli.process.leftovers import end_processes

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    import psutil

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
IS_LINUX = sys.platform.startswith("linux")
TREE_MARK = "JLGCLI_TREE"  # environment variable marking the descendants of this process
Log = Callable[[str], None]

_spawn_lock = threading.Lock()
_our_children: set[int] = set()  # direct children spawned by the process layer, still running
_ahead: set[int] = set()  # sessions of the fork servers whose supervisors wait forked ahead
_subreaper: list[bool] = []  # the prctl's result, once per process
_token = f"{os.getpid()}-{os.urandom(6).hex()}"
SETPRIV_DIRS = ("/usr/bin", "/bin")
_SETPRIV_READ_LIMIT = 4 << 20  # util-linux's setpriv is ~60 KB, a busybox ~2 MB
_launcher: list[str | None] = []  # the setpriv found, once per process
_SWEEP_ROUNDS = 5


def tree_token() -> str:
    """This process's mark, put in every child's environment (``TREE_MARK``)."""
    return _token


def renew_token() -> None:
    """A new mark for a process forked without an exec (a batch's task, forked by the task
    server): the mark made at import is its parent's, which would make the parent's other
    children look like this process's own strays."""
    global _token  # the one per-process value, made at import
    _token = f"{os.getpid()}-{os.urandom(6).hex()}"


def _prctl(option: int, value: int, *, libc: Any = None) -> bool:
    try:
        if libc is not None:
            return int(libc.prctl(option, value, 0, 0, 0)) == 0
        if sys.platform.startswith("linux"):
            # the supervisor's prctl: ``_ctypes`` only (``import ctypes`` costs ~2 ms a start)
            from jlgcli.process.supervisor import prctl

            return int(prctl()(option, value, 0, 0, 0)) == 0
        return False  # pragma: no cover - not Linux: no prctl
    except (OSError, AttributeError):  # pragma: no cover - no prctl in this libc
        return False


def become_subreaper(*, is_linux: bool = IS_LINUX, libc: Any = None) -> bool:
    """Make this process the reaper of its orphaned descendants (Linux; no-op elsewhere)."""
    if not is_linux:
        return False
    if not _subreaper:
        _subreaper.append(_prctl(PR_SET_CHILD_SUBREAPER, 1, libc=libc))
    return _subreaper[0]


def die_with_parent(
    argv: Sequence[str], *, is_linux: bool = IS_LINUX
) -> tuple[list[str], Callable[[], None] | None]:
    """``argv`` and the ``preexec_fn`` that start it with SIGKILL as its parent-death signal.

    Linux: through util-linux ``setpriv --pdeathsig KILL`` when the system has one
    that knows the option, so subprocess can use vfork. A ``preexec_fn`` forces
    fork(), and the copy-on-write of jlgcli's heap after it cost ~9 ms of every
    loop iteration (issue 18). Without such a setpriv, the ``preexec_fn``. Other
    systems: ``argv`` unchanged and no ``preexec_fn``.
    """
    if not is_linux:
        return list(argv), None
    setpriv = pdeathsig_launcher()
    if setpriv is not None:
        return [setpriv, "--pdeathsig", "KILL", "--", *argv], None
    return list(argv), die_with_parent_preexec()


class Launch:
    """How the process layer starts ``argv`` so that nothing of it outlives jlgcli (Linux).

    The jlgcli program (``adopt_orphans`` was called) runs each child under the
    supervisor (``jlgcli.process.supervisor``, issue 33): a SIGKILL of jlgcli
    then ends the child's whole tree. Elsewhere (a host program using jlgcli as
    a library, the frozen exe), ``die_with_parent``: the direct child only.
    Use: spawn ``command`` with ``preexec`` and ``pass_fds``, then call
    ``started`` (raises the ``OSError`` of a failed exec) or ``abandon``.
    """

    def __init__(self, argv: Sequence[str], *, supervise: bool | None = None) -> None:
        self._fds: tuple[int, int] | None = None
        self.pass_fds: tuple[int, ...] = ()
        self.preexec: Callable[[], None] | None = None
        use = supervise if supervise is not None else supervisor_wanted()
        if use:
            read_fd, write_fd = os.pipe()
            os.set_inheritable(write_fd, True)  # ptyprocess passes only inheritable fds
            self._fds = (read_fd, write_fd)
            self.pass_fds = (write_fd,)
            self.command = supervised_argv(argv, write_fd)
        else:
            self.command, self.preexec = die_with_parent(argv)

    @property
    def supervised(self) -> bool:
        return self._fds is not None

    def started(self) -> None:
        """Wait until the supervisor's child has exec'd; raise its exec error as ``OSError``."""
        if self._fds is None:
            return
        read_fd, write_fd = self._fds
        self._fds = None
        os.close(write_fd)
        chunks = []
        try:
            while chunk := os.read(read_fd, 64):  # EOF: the exec closed it
                chunks.append(chunk)
        finally:
            os.close(read_fd)
        report = b"".join(chunks).strip()
        if report:
            number = int(report) if report.isdigit() else 0
            raise OSError(number, os.strerror(number) if number else "cannot start")

    def abandon(self) -> None:
        """The spawn failed: close the status pipe."""
        if self._fds is not None:
            for fd in self._fds:
                os.close(fd)
            self._fds = None


def supervisor_wanted(*, is_linux: bool = IS_LINUX) -> bool:
    """Whether children run under the supervisor: the jlgcli program on Linux, not frozen."""
    return is_linux and adoption_requested() and not getattr(sys, "frozen", False)


# Runs supervisor.py as ``python -I -S supervisor.py …`` would, from its cached bytecode
# (``__pycache__``, as an import would): a script named on the command line is compiled
# at every start, ~2.5 ms of each supervisor's and fork server's CPU (issue 49).
RUN_CACHED = (
    "import sys, _frozen_importlib_external as b; p = sys.argv[1]; sys.argv = sys.argv[1:]; "
    "exec(b.SourceFileLoader('__main__', p).get_code('__main__'), "
    "{'__name__': '__main__', '__file__': p})"
)


def supervisor_command(*arguments: str) -> list[str]:
    """``python -I -S supervisor.py ARGUMENTS…``, started from its cached bytecode."""
    from pathlib import Path

    script = str(Path(__file__).with_name("supervisor.py"))
    return [sys.executable, "-I", "-S", "-c", RUN_CACHED, script, *arguments]


def supervised_argv(argv: Sequence[str], status_fd: int) -> list[str]:
    """``python -I -S supervisor.py PARENT STATUS_FD -- argv``."""
    return supervisor_command(str(os.getpid()), str(status_fd), "--", *argv)


def pdeathsig_launcher(*, dirs: Sequence[str] = SETPRIV_DIRS) -> str | None:
    """The system's ``setpriv`` if it can set a parent-death signal (looked up once), else None.

    Only the system directories are searched, never PATH: what a repository or a
    test puts first on PATH must not wrap every agent call. util-linux added
    ``--pdeathsig`` in 2.33 (2018); an older setpriv, or busybox's, lacks it, and
    the option's name is then absent from the program.
    """
    if not _launcher:
        _launcher.append(_setpriv_with_pdeathsig(dirs))
    return _launcher[0]


def _setpriv_with_pdeathsig(dirs: Sequence[str]) -> str | None:
    for folder in dirs:
        path = f"{folder}/setpriv"  # Linux only
        try:
            with open(path, "rb") as program:
                knows = b"pdeathsig" in program.read(_SETPRIV_READ_LIMIT)
        except OSError:
            continue
        if knows and os.access(path, os.X_OK):
            return path
    return None


def die_with_parent_preexec(*, is_linux: bool = IS_LINUX) -> Callable[[], None] | None:
    """A ``preexec_fn`` giving the child SIGKILL when jlgcli dies (Linux), else None."""
    if not is_linux:
        return None
    if sys.platform == "win32":  # pragma: no cover - narrows for mypy (issue 35)
        raise OSError("POSIX only")
    import ctypes

    parent = os.getpid()
    libc = ctypes.CDLL(None, use_errno=True)

    def set_pdeathsig() -> None:  # runs in the child between fork and exec
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl: follow it now
            os._exit(1)

    return set_pdeathsig


@contextlib.contextmanager
def spawning() -> Iterator[Callable[[int], None]]:
    """Hold the spawn lock around a spawn; call the yielded function with the new pid.

    The orphan sweep takes the same lock, so a child being spawned in another
    thread is never mistaken for an orphan.
    """
    if adoption_requested():  # the console scripts asked (jlgcli.process.adopt_orphans)
        become_subreaper()
    with _spawn_lock:
        yield _our_children.add


def forget_child(pid: int) -> None:
    """The direct child ``pid`` is gone (reaped): it is no longer one of ours."""
    with _spawn_lock:
        _our_children.discard(pid)


def orphans() -> list[psutil.Process]:
    """Re-parented orphans of our runs (with their descendants); empty unless we adopt them.

    An orphan is a child of ours that the process layer did not spawn, in
    another session than ours (our children's descendants all are) or carrying
    our mark.
    """
    if not _subreaper or not _subreaper[0]:
        return []
    with _spawn_lock:
        stray_pids = [pid for pid in children_of(os.getpid()) if pid not in _our_children]
    stray_pids = [pid for pid in stray_pids if not forked_ahead(pid)]
    if not stray_pids:  # the common case: psutil (~12 ms to import) is not needed
        return []
    import psutil

    found: list[psutil.Process] = []
    strays: list[psutil.Process] = []
    for pid in stray_pids:
        with contextlib.suppress(psutil.Error):
            strays.append(psutil.Process(pid))
    for stray in strays:
        if not (_other_session(stray.pid) or _carries_mark(stray)):
            continue
        found.append(stray)
        with contextlib.suppress(psutil.Error):
            found.extend(stray.children(recursive=True))
    return found


def children_of(pid: int, *, proc: str = "/proc") -> list[int]:
    """The pids of ``pid``'s children, from Linux's ``/proc`` (the subreaper is Linux-only).

    Read directly rather than with ``psutil.Process().children()``: this runs at
    the end of every agent call, and importing psutil costs ~12 ms (issue 18).
    """
    listed = _children_from_tasks(pid, proc)
    return listed if listed is not None else _children_from_stats(pid, proc)


def _children_from_tasks(pid: int, proc: str) -> list[int] | None:
    """``/proc/PID/task/TID/children``, one small file per thread; None if the kernel lacks it."""
    found: list[int] = []
    try:
        for task in os.listdir(f"{proc}/{pid}/task"):  # noqa: PTH208 - names only, hot path
            with open(f"{proc}/{pid}/task/{task}/children", "rb") as handle:
                found += [int(child) for child in handle.read().split()]
    except (OSError, ValueError):  # no CONFIG_PROC_CHILDREN: no such file
        return None
    return found


def _children_from_stats(pid: int, proc: str) -> list[int]:
    """The processes whose ``/proc/N/stat`` names ``pid`` as parent (what psutil reads)."""
    parent = b"%d" % pid
    found: list[int] = []
    for name in os.listdir(proc):  # noqa: PTH208 - hundreds of names: no Path objects
        if not name.isdigit():
            continue
        try:
            with open(f"{proc}/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:  # it ended meanwhile
            continue
        # "pid (comm) state ppid …": comm may hold spaces and parentheses.
        fields = stat[stat.rfind(b")") + 2 :].split(b" ", 2)
        if len(fields) > 1 and fields[1] == parent:
            found.append(int(name))
    return found


def forks_ahead(session: int, *, ending: bool = False) -> None:
    """The fork server leading ``session`` forks each supervisor ahead of its request: it
    waits, jlgcli's child, in that session, which no agent's process can join (``setsid``
    makes a session, never joins one): ours, not an orphan. ``ending``: the server is gone."""
    (_ahead.discard if ending else _ahead.add)(session)


def forked_ahead(pid: int, sessions: Collection[int] = _ahead) -> bool:
    """Whether ``pid`` is in a fork server's session: a supervisor waiting for its request."""
    if sys.platform == "win32" or not sessions:  # no sessions (and no fork server) there
        return False
    try:
        return os.getsid(pid) in sessions
    except OSError:  # gone already
        return False


def _other_session(pid: int) -> bool:
    """Whether ``pid`` is in another session than this process (gone: False)."""
    if sys.platform == "win32":  # no sessions (and no subreaper) there
        return False
    try:
        return os.getsid(pid) != os.getsid(0)
    except OSError:
        return False


def end_orphans(*, grace: float, log: Log) -> list[int]:
    """End every re-parented orphan now (the exit sweep); returns the pids that were running.

    A few rounds: an orphan's own children re-parent to us as it dies.
    """
    ended: list[int] = []
    for _round in range(_SWEEP_ROUNDS):
        found = orphans()
        round_ended = end_processes(found, grace=grace, log=log, reason="at exit") if found else []
        if not round_ended:
            break
        ended += round_ended
    return ended


def _carries_mark(process: psutil.Process) -> bool:
    import psutil

    try:
        return process.environ().get(TREE_MARK) == _token
    except psutil.ZombieProcess:
        return True  # it already ended: reaping it is harmless and needed
    except psutil.Error:
        return False
