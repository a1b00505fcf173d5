"""Ending processes by psutil handle: a tree's descendants, signalled, ended and reaped.

What the kill ladder's process group does not reach — the descendants seen when a stop
began and the orphans re-parented to jlgcli (``jlgcli.process.descendants``) — is ended
here: SIGTERM, then SIGKILL after the grace period, then reaped. psutil checks each
pid's start time, so a pid reused by an unrelated process is never signalled. psutil
(~12 ms to import) is loaded only when there is something to end.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable

TYPE_CHECKING = False

if TYPE_CHECKING:
    import psutil

Log = Callable[[str], None]


def descendants_of(pid: int) -> list[psutil.Process]:
    """Every live descendant of ``pid`` (empty when ``pid`` is gone)."""
    import psutil

    try:
        return list(psutil.Process(pid).children(recursive=True))
    except psutil.Error:
        return []


def signal_processes(processes: Iterable[psutil.Process], signum: int | None) -> None:
    """Send ``signum`` to each process still running (None: SIGKILL / TerminateProcess)."""
    import psutil

    for process in processes:
        with contextlib.suppress(psutil.Error, OSError):
            if signum is None:
                process.kill()
            else:
                process.send_signal(signum)


def end_processes(
    processes: Iterable[psutil.Process], *, grace: float, log: Log, reason: str
) -> list[int]:
    """SIGTERM ``processes``, SIGKILL what is left after ``grace``, reap our children.

    Returns the pids that were still running. psutil checks each pid's start
    time, so a pid reused by an unrelated process is never signalled.
    """
    live = {p.pid: p for p in processes if _running(p)}
    if not live:
        return []
    import psutil

    log(f"{reason}: ending {len(live)} leftover process(es): {sorted(live)}")
    for process in live.values():
        with contextlib.suppress(psutil.Error):
            process.terminate()
    _gone, alive = psutil.wait_procs(list(live.values()), timeout=max(grace, 0.05))
    for process in alive:
        with contextlib.suppress(psutil.Error):
            process.kill()
    psutil.wait_procs(alive, timeout=5)
    return sorted(live)


def _running(process: psutil.Process) -> bool:
    import psutil

    try:
        if process.status() == psutil.STATUS_ZOMBIE:
            with contextlib.suppress(ChildProcessError, psutil.Error):
                process.wait(0)  # an orphan of ours that already ended: reap it
            return False
        return bool(process.is_running())
    except psutil.Error:
        return False
