"""The runs this user started, and the lock a live run holds (issue 31).

``--resume latest`` must not be won by a file a repository ships: a run
directory is anyone's to plant, and its name (a time stamp to the second plus
a random suffix) orders neither truly nor safely. So every loop records its
start in the user's own config folder (``started-runs.jsonl``: run id, the
absolute runs root, the start time to the microsecond), and ``latest`` is the
newest run of that root in this record. Same-second starts keep their order
(the microseconds, then the order of the lines).

A live run holds ``<runs root>/<id>/run.lock`` (an ``artifacts.oslock`` lock: the
OS frees it when the process dies, even on SIGKILL), so ``--resume`` and
``jlgcli runs`` can tell a run that is still going from one that stopped.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from jlgcli.moments import datetime, timezone

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

RECORD_FILE = "started-runs.jsonl"
LOCK_FILE = "run.lock"
_KEEP = 2000  # the record keeps the newest starts only
_LOCK_WAIT_S = 10.0


def _record_path() -> Path:
    from jlgcli.config.paths import user_config_dir

    return user_config_dir() / RECORD_FILE


def record_start(root: Path, run_id: str, started_at: datetime) -> None:
    """Add this start to the user's record (newest last); raises ``OSError`` when it cannot."""
    from jlgcli.artifacts.oslock import FileLock, LockTimeoutError

    path = _record_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(
        {"id": run_id, "root": str(root.resolve()),
         "at": started_at.astimezone(timezone.utc).isoformat(timespec="microseconds"),
         "pid": os.getpid()},  # what `jlgcli board` stops (issue 52)
        ensure_ascii=True,
    )  # fmt: skip
    try:
        held = FileLock(str(path) + ".lock").hold(_LOCK_WAIT_S)
    except LockTimeoutError as exc:
        raise OSError(str(exc)) from None
    with held:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            lines = []
        lines = [*lines[-(_KEEP - 1) :], line]
        from jlgcli.artifacts.atomic import atomic_write_text

        atomic_write_text(path, "\n".join(lines) + "\n")


def started_here(root: Path) -> list[str]:
    """The ids of the runs this user started under ``root``, newest first."""
    try:
        text = _record_path().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    wanted = os.path.normcase(str(root.resolve()))  # Windows: C:\Proj is c:\proj
    found: list[tuple[str, int, str]] = []
    for number, line in enumerate(text.splitlines()):
        entry = _entry(line)
        if entry is not None and os.path.normcase(entry["root"]) == wanted:
            found.append((entry["at"], number, entry["id"]))
    return [run_id for _, _, run_id in sorted(found, reverse=True)]


def started_process(root: Path, run_id: str) -> tuple[int, datetime] | None:
    """The process that started (or last resumed) run or batch ``run_id`` under ``root``,
    and when it started, from the user's own record; ``None`` when not recorded."""
    try:
        text = _record_path().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    wanted = os.path.normcase(str(root.resolve()))
    for line in reversed(text.splitlines()):
        entry = _entry(line)
        if entry and entry["id"] == run_id and os.path.normcase(entry["root"]) == wanted:
            pid: Any = json.loads(line).get("pid")
            if isinstance(pid, int) and not isinstance(pid, bool) and pid > 0:
                return pid, datetime.fromisoformat(entry["at"])
            return None
    return None


def _entry(line: str) -> dict[str, str] | None:
    try:
        data: Any = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict) or not all(
        isinstance(data.get(key), str) for key in ("id", "root", "at")
    ):
        return None
    try:  # normalised, so that string order is time order
        data["at"] = (
            datetime.fromisoformat(data["at"])
            .astimezone(timezone.utc)
            .isoformat(timespec="microseconds")
        )
    except ValueError:
        return None
    return data


class RunLock:
    """``<run dir>/run.lock``, held by the process running (or resuming) that run."""

    def __init__(self, run_dir: Path) -> None:
        from jlgcli.artifacts.oslock import FileLock

        self.path = run_dir / LOCK_FILE
        self._lock = FileLock(self.path)

    def acquire(self) -> bool:
        """Take the lock now; False when another process holds it (the run is live)."""
        return self._lock.acquire()

    def release(self) -> None:
        self._lock.release()


def is_running(run_dir: Path) -> bool:
    """Whether a live process holds ``run_dir``'s lock (no lock file: not running)."""
    if not (run_dir / LOCK_FILE).is_file():
        return False
    lock = RunLock(run_dir)
    try:
        if not lock.acquire():
            return True
    except OSError:  # a lock file we cannot open: we cannot tell, say not running
        return False
    lock.release()
    return False
