"""Stopping a run or a batch from elsewhere: ``api.stop``, what ``jlgcli stop`` and the
board's Stop button call (issue 52).

The process to stop, and when it started, come from the user's own record of starts
(``config.started``: id, root, time, pid), never from the run's folder, and it is
signalled only while the run's (or batch's) lock is held and when that process is older
than the start recorded (a pid reused since is someone else's). POSIX: SIGTERM, the path
of any termination: a run stops its agent's tree, writes its ending (stop cause
``interrupted``, exit 143) and can be resumed; a batch stops its tasks the same way and
``loop --resume BATCH`` goes on with them. Windows has no signal one console can send
another's process: the process is ended at once (a run shows as killed; its state is
kept and ``--resume`` continues it).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from jlgcli.errors import ExitCode, JlgError
from jlgcli.moments import datetime

_HINT = "see the running ones with: jlgcli runs"


def stop_run(root: Path, run_id: str) -> int:
    """Ask the live run ``run_id`` under ``root`` to stop; its pid. ``JlgError`` 64 when it
    is not running or its process cannot be told."""
    from jlgcli.artifacts.ids import is_safe_run_id

    if not is_safe_run_id(run_id) or not (root / run_id).is_dir():
        raise JlgError(ExitCode.USAGE, f"no run {run_id!r} in {root}", hint=_HINT)
    return stop_started(root, run_id, root / run_id)


def stop_started(root: Path, ident: str, folder: Path, *, kind: str = "run") -> int:
    """Signal the process recorded as having started ``ident`` (a run or a batch) under
    ``root``, whose lock is in ``folder``; its pid."""
    from jlgcli.config.started import is_running, started_process

    if not is_running(folder):
        raise JlgError(ExitCode.USAGE, f"{kind} {ident} is not running", hint=_HINT)
    found = started_process(root, ident)
    if found is None or found[0] == os.getpid() or not _older_than(*found):
        raise JlgError(
            ExitCode.USAGE,
            f"cannot tell which process runs {ident}",
            hint="it was not started by this user, or before jlgcli recorded its process: "
            "stop it where it runs (Ctrl-C)",
        )
    terminate(found[0])
    return found[0]


def wait_ended(
    folder: Path,
    timeout_s: float,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> bool:
    """Wait until no process holds ``folder``'s lock (the run wrote its ending), at most
    ``timeout_s``; whether it ended."""
    from jlgcli.config.started import is_running

    deadline = clock() + timeout_s
    while is_running(folder):
        if clock() >= deadline:
            return False
        sleep(0.1)
    return True


def _older_than(pid: int, started: datetime) -> bool:
    """Whether process ``pid`` exists and began before the start recorded (not a reused pid)."""
    import psutil

    try:
        created = psutil.Process(pid).create_time()
    except (psutil.Error, OSError):
        return False
    return created <= started.timestamp() + 1.0  # the record's time is the run's, to the µs


def terminate(pid: int, *, is_windows: bool = sys.platform == "win32") -> None:
    """SIGTERM on POSIX (the run ends as on any termination); TerminateProcess on Windows."""
    if is_windows:
        import psutil

        with contextlib.suppress(psutil.NoSuchProcess):  # it ended meanwhile: what was asked
            psutil.Process(pid).terminate()
        return
    import signal

    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
