"""The one kill ladder, applied to a child's whole process group/session.

polite (SIGINT / CTRL_BREAK_EVENT) → grace → SIGTERM → grace → SIGKILL.
POSIX: children start with ``start_new_session=True``, so pid == pgid and
``os.killpg`` reaches every descendant that did not leave the session on
purpose; the pgid is remembered at spawn (``getpgid`` fails after the reap).
Windows: the child gets CREATE_NEW_PROCESS_GROUP; CTRL_BREAK_EVENT is the
polite signal (Ctrl+C typed into a ConPTY child's console, which CTRL_BREAK
cannot reach), and the child's Job Object ends the whole tree
(``TerminateJobObject``) at the terminate and kill rungs. Windows has no
SIGTERM a console program can catch, and ``taskkill`` without ``/F`` only posts
WM_CLOSE to windows a console agent does not have (issue 47). Only without a
job does ``taskkill /T /F`` run, by its full path in System32.

The ladder is a small state machine (``Ladder.advance``) rather than a blocking
function, so the transport keeps reading output during the grace periods and
the child's last words still reach the sinks.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path, PureWindowsPath

from jlgcli.process.spawn import IS_WINDOWS
from jlgcli.records import record

TYPE_CHECKING = False

if TYPE_CHECKING:  # types only: a run imports no typing (issue 49)
    from typing import Literal

    Rung = Literal["polite", "terminate", "kill"]
RUNGS: tuple[Rung, ...] = ("polite", "terminate", "kill")
Log = Callable[[str], None]


@record(frozen=False)
class ProcessTree:
    """What the ladder needs to know about a running child."""

    pid: int
    pgid: int | None  # POSIX process group (== pid); None on Windows
    exited: Callable[[], bool]  # True once the direct child has exited (reaps it)
    kill_child: Callable[[], None]  # hard-kill the direct child only (last resort)
    # Linux: a pidfd of the direct child, readable once it exited (waits need not poll).
    exit_fd: int | None = None
    # Windows: end every member of the child's Job Object now (False: there is no job).
    end_tree: Callable[[], bool] | None = None
    # Windows: the polite rung when CTRL_BREAK_EVENT cannot reach the child (ConPTY).
    interrupt: Callable[[], None] | None = None


def posix_signal(rung: Rung) -> int:
    """The POSIX signal of a rung."""
    if sys.platform == "win32":  # pragma: no cover - narrows for mypy (issue 35)
        raise OSError("POSIX only")
    return {"polite": signal.SIGINT, "terminate": signal.SIGTERM, "kill": signal.SIGKILL}[rung]


def system_tool(name: str, *, system_root: str | None = None) -> str:
    """The full path of a Windows tool in ``%SystemRoot%\\System32`` (never a PATH lookup:
    the current folder, a repository, comes first there; issue 47)."""
    root = system_root or os.environ.get("SYSTEMROOT") or r"C:\Windows"
    return str(PureWindowsPath(root, "System32", name))


def windows_rung_command(rung: Rung, pid: int, *, system_root: str | None = None) -> list[str]:
    """``taskkill /T /F`` by full path: the terminate and kill rungs of a child without a job."""
    del rung  # both rungs force: taskkill without /F only posts WM_CLOSE
    return [system_tool("taskkill.exe", system_root=system_root), "/T", "/F", "/PID", str(pid)]


def describe_windows_rung(tree: ProcessTree, rung: Rung) -> str:
    """What a rung does to ``tree`` on Windows, for the log."""
    if rung == "polite":
        return "Ctrl+C into its console" if tree.interrupt is not None else "CTRL_BREAK_EVENT"
    if tree.end_tree is not None:
        return "TerminateJobObject" + (" + TerminateProcess" if rung == "kill" else "")
    return " ".join(windows_rung_command(rung, tree.pid))


def group_alive(
    pgid: int,
    *,
    proc_dir: Path = Path("/proc"),
    probe: Callable[[int], None] | None = None,
    live_members: Callable[[int], bool] | None = None,
) -> bool:
    """Whether any non-zombie process is left in group ``pgid`` (POSIX).

    ``killpg(pgid, 0)`` also succeeds for zombies nobody reaped yet, so on
    Linux the members are confirmed through /proc. macOS answers EPERM for a
    group of zombies (issue 47), which is also what a member of another user
    would answer: the members are then looked at (``psutil``) before the group
    counts as alive. ``probe`` (``killpg(pgid, 0)``) and ``live_members`` are
    injected in tests.
    """
    if sys.platform == "win32":  # pragma: no cover - narrows for mypy (issue 35)
        raise OSError("POSIX only")
    try:
        (probe or _probe_group)(pgid)
    except ProcessLookupError:
        return False
    except PermissionError:
        if not proc_dir.is_dir():  # macOS/BSD: zombies, or a member we may not signal
            return (live_members or _live_members_psutil)(pgid)
    if not proc_dir.is_dir():  # pragma: no cover - macOS/BSD: trust killpg
        return True
    return any(True for _ in live_group_members(pgid, proc_dir=proc_dir))


def _probe_group(pgid: int) -> None:
    if sys.platform == "win32":  # pragma: no cover - narrows for mypy (issue 35)
        raise OSError("POSIX only")
    os.killpg(pgid, 0)


def _live_members_psutil(pgid: int) -> bool:
    """Whether a process of group ``pgid`` is anything but a zombie (systems without /proc)."""
    if sys.platform == "win32":  # pragma: no cover - narrows for mypy (issue 35)
        raise OSError("POSIX only")
    import psutil  # only after an EPERM: the common path stays one system call

    for proc in psutil.process_iter(["status"]):
        try:
            if os.getpgid(proc.pid) == pgid and proc.info["status"] != psutil.STATUS_ZOMBIE:
                return True
        except (OSError, psutil.Error):  # gone meanwhile
            continue
    return False


def live_group_members(pgid: int, *, proc_dir: Path = Path("/proc")) -> list[int]:
    """Pids of non-zombie processes of group ``pgid``, read from /proc (Linux)."""
    members: list[int] = []
    for entry in proc_dir.iterdir():
        if not entry.name.isdigit():
            continue
        state_pgrp = _state_and_pgrp(entry / "stat")
        if state_pgrp is not None and state_pgrp[1] == pgid and state_pgrp[0] not in "ZX":
            members.append(int(entry.name))
    return members


def _state_and_pgrp(stat_file: Path) -> tuple[str, int] | None:
    try:
        raw = stat_file.read_text(encoding="utf-8", errors="replace")
    except OSError:  # the process went away while we looked
        return None
    # "pid (comm) S ppid pgrp ..."; comm may contain spaces and parentheses.
    fields = raw[raw.rfind(")") + 2 :].split()
    if len(fields) < 3:
        return None
    return fields[0], int(fields[2])


def pid_alive(pid: int, *, proc_dir: Path = Path("/proc")) -> bool:
    """Whether ``pid`` is a running (non-zombie) process."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover
        return True
    status = _state_and_pgrp(proc_dir / str(pid) / "stat")
    return status is None or status[0] not in "ZX" if proc_dir.is_dir() else True


def tree_alive(tree: ProcessTree, *, is_windows: bool = IS_WINDOWS) -> bool:
    """Whether the child or (POSIX) anything left in its group is still running."""
    if not tree.exited():
        return True
    if is_windows or tree.pgid is None:
        return False
    return group_alive(tree.pgid)


def send_rung(tree: ProcessTree, rung: Rung, *, is_windows: bool = IS_WINDOWS) -> None:
    """Signal the whole tree with one rung of the ladder (never raises for a gone process)."""
    if is_windows:  # pragma: no cover - exercised by the Windows CI job
        _send_windows(tree, rung)
        return
    if sys.platform == "win32":  # pragma: no cover - narrows for mypy (issue 35)
        raise OSError("POSIX only")
    target = tree.pgid if tree.pgid is not None else tree.pid
    try:
        if tree.pgid is not None:
            os.killpg(target, posix_signal(rung))
        else:  # pragma: no cover - every child gets its own group
            os.kill(target, posix_signal(rung))
    except (ProcessLookupError, PermissionError):
        pass


def _send_windows(tree: ProcessTree, rung: Rung) -> None:  # pragma: no cover - Windows only
    send_windows_rung(tree, rung, ctrl_break=_ctrl_break, run=_run_quietly)


def send_windows_rung(
    tree: ProcessTree,
    rung: Rung,
    *,
    ctrl_break: Callable[[int], None],
    run: Callable[[list[str]], None],
    system_root: str | None = None,
) -> None:
    """One rung on Windows: CTRL_BREAK (or Ctrl+C into a ConPTY), then the Job Object.

    Without a job (it could not be made), ``taskkill /T /F`` by full path;
    the kill rung also ends the direct child itself.
    """
    if rung == "polite":
        with contextlib.suppress(OSError, EOFError):  # EOFError: a closed pseudoconsole
            if tree.interrupt is not None:
                tree.interrupt()
            else:
                ctrl_break(tree.pid)
        return
    if tree.end_tree is None or not tree.end_tree():
        run(windows_rung_command(rung, tree.pid, system_root=system_root))
    if rung == "kill":
        with contextlib.suppress(OSError):
            tree.kill_child()


def _ctrl_break(pid: int) -> None:  # pragma: no cover - Windows only
    os.kill(pid, signal.CTRL_BREAK_EVENT)  # type: ignore[attr-defined,unused-ignore]


def _run_quietly(command: list[str]) -> None:  # pragma: no cover - Windows only
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        subprocess.run(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=10,
            check=False,
        )


class Ladder:
    """Escalating stop of a process tree; call ``advance`` whenever time passes.

    ``start_at="terminate"`` skips the polite rung: used for stragglers left in
    the group after the direct child exited (background jobs of a shell ignore
    SIGINT, so the polite rung would only cost a grace period).
    """

    def __init__(
        self,
        tree: ProcessTree,
        *,
        grace: float,
        log: Log,
        start_at: Rung = "polite",
        is_windows: bool = IS_WINDOWS,
        clock: Callable[[], float] = time.monotonic,
        on_rung: Callable[[Rung], None] | None = None,
    ) -> None:
        self._tree = tree
        self._on_rung = on_rung  # also signal what escaped the group (descendants.py)
        self._grace = max(0.0, grace)
        self._log = log
        self._rungs = RUNGS[RUNGS.index(start_at) :]
        self._is_windows = is_windows
        self._clock = clock
        self._next = 0  # index into _rungs of the rung to send next
        self.next_due: float | None = None  # when advance() must run again
        self.last_rung: Rung | None = None

    @property
    def exhausted(self) -> bool:
        """True once SIGKILL was sent and its grace period is over."""
        return self._next >= len(self._rungs) and (
            self.next_due is None or self._clock() >= self.next_due
        )

    def advance(self, *, force: bool = False) -> None:
        """Send the next rung if its time has come (or now, with ``force``)."""
        now = self._clock()
        if self._next >= len(self._rungs):
            return
        if not force and self.next_due is not None and now < self.next_due:
            return
        if self.last_rung is not None and not tree_alive(self._tree, is_windows=self._is_windows):
            return
        rung = self._rungs[self._next]
        self._next += 1
        self.last_rung = rung
        self.next_due = now + self._grace
        self._log(f"kill ladder: {self._describe(rung)} to process tree {self._tree.pid}")
        send_rung(self._tree, rung, is_windows=self._is_windows)
        if self._on_rung is not None:
            self._on_rung(rung)

    def _describe(self, rung: Rung) -> str:
        if self._is_windows:
            return describe_windows_rung(self._tree, rung)
        return signal.Signals(posix_signal(rung)).name


def wait_until(
    condition: Callable[[], bool],
    timeout: float,
    *,
    clock: Callable[[], float] = time.monotonic,
    exit_fd: int | None = None,
) -> bool:
    """Poll ``condition`` with an exponential backoff (0.2 ms → 20 ms) until true or timeout.

    ``exit_fd`` (a pidfd, ``ProcessTree.exit_fd``): first wait until it is readable,
    i.e. until that process exited, then poll. A supervisor exits a moment after its
    child, when the pipes' end-of-file is already in: the backoff's sleeps made
    each agent call ~1 ms longer on a loaded machine (issue 18's figure).
    """
    deadline = clock() + timeout
    delay = 0.0002  # a child seen at end-of-file is usually reapable within microseconds
    while not condition():
        remaining = deadline - clock()
        if remaining <= 0:
            return False
        if exit_fd is not None:
            import select  # POSIX: a pidfd is Linux's

            select.select([exit_fd], [], [], remaining)
            exit_fd = None  # once: what is left in the group is polled
            continue
        time.sleep(min(delay, remaining))
        delay = min(delay * 2, 0.02)
    return True


def stop_tree(
    tree: ProcessTree,
    *,
    grace: float,
    log: Log,
    start_at: Rung = "polite",
    is_windows: bool = IS_WINDOWS,
) -> Rung | None:
    """Run the whole ladder now, blocking until the tree is gone; return the last rung sent.

    For callers that have no output to pump meanwhile (probes, cleanup paths).
    """
    ladder = Ladder(tree, grace=grace, log=log, start_at=start_at, is_windows=is_windows)

    def gone() -> bool:
        return not tree_alive(tree, is_windows=is_windows)

    while not gone():
        ladder.advance()
        if ladder.exhausted:
            log(f"kill ladder: process tree {tree.pid} survived SIGKILL")
            break
        wait_until(gone, max(0.0, (ladder.next_due or 0.0) - time.monotonic()))
    return ladder.last_rung
