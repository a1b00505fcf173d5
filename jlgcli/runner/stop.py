"""Stopping a run from elsewhere (issue 52): ``api.stop``, what the board's Stop button calls.

The process to stop comes from the user's own record of starts
(``config.started``: id, root, time, pid), never from the run's folder,
and is signalled only while the run's lock is held and when that process is
older than the run (a pid reused since is someone else's). POSIX: SIGTERM, the
path of any termination: the run stops its agent's tree, writes its ending
(stop cause ``interrupted``, exit 143) and can be resumed; a batch task stopped
so is left for ``loop --resume BATCH``. Windows has no signal one console can
send another's process: the run is ended at once (it shows as killed; its
state is kept and ``--resume`` continues it).
"""

from __future__ import annotations

import contextlib
import os
import sys
from datetime import datetime
from pathlib import Path

from jlgcli.errors import ExitCode, JlgError

_HINT = "see the running ones with: jlgcli runs"


def stop_run(root: Path, run_id: str) -> int:
    """Ask the live run ``run_id`` under ``root`` to stop; its pid. ``JlgError`` 64 when it
    is not running or its process cannot be told."""
    from jlgcli.artifacts.ids import is_safe_run_id
    from jlgcli.config.started import is_running, started_pid

    if not is_safe_run_id(run_id) or not (root / run_id).is_dir():
        raise JlgError(ExitCode.USAGE, f"no run {run_id!r} in {root}", hint=_HINT)
    if not is_running(root / run_id):
        raise JlgError(ExitCode.USAGE, f"run {run_id} is not running", hint=_HINT)
    pid = started_pid(root, run_id)
    started = _started_at(root, run_id)
    if pid is None or pid == os.getpid() or started is None or not _older_than(pid, started):
        raise JlgError(
            ExitCode.USAGE,
            f"cannot tell which process runs {run_id}",
            hint="it was not started by this user, or before jlgcli recorded its process: "
            "stop it where it runs (Ctrl-C)",
        )
    terminate(pid)
    return pid


def _started_at(root: Path, run_id: str) -> datetime | None:
    from jlgcli.runner.listing import read_run

    return read_run(root / run_id).started_at


def _older_than(pid: int, started: datetime) -> bool:
    """Whether process ``pid`` exists and began before the run did (not a reused pid)."""
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
