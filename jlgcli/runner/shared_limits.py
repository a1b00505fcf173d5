"""Rate limits shared by the tasks of a batch (issue 37).

A batch gives each task's loop a folder (its options' ``shared_limits``, issue
44: never an environment variable) holding one file per backend with the epoch
second its rate limit resets. A task that meets a limit writes it there; every
task reads it before a call and, while that backend's limit has not reset,
waits for it too instead of hammering the backend. The folder is the batch's
(named in the options it hands down from the user's config folder, never by
a repository); what is read back is only a number, bounded by the time the
loop has left.
"""

from __future__ import annotations

from pathlib import Path

from jlgcli.lazy_re import lazy_text

_SAFE = lazy_text(r"[^A-Za-z0-9_.-]")


def _file(backend: str, folder: Path | None) -> Path | None:
    return folder / (_SAFE.sub("_", backend) + ".until") if folder is not None else None


def note(backend: str, until: float, folder: Path | None) -> None:
    """Record that ``backend`` is limited until the epoch second ``until`` (keeps the later)."""
    path = _file(backend, folder)
    if path is None or until <= limited_until(backend, folder):
        return
    from jlgcli.artifacts.atomic import atomic_write_text

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, f"{until:.3f}\n", sync_directory=False)
    except OSError:  # sharing is a courtesy: a task still waits for its own limits
        return


def limited_until(backend: str, folder: Path | None) -> float:
    """The epoch second ``backend``'s shared limit resets (0 when there is none)."""
    path = _file(backend, folder)
    if path is None:
        return 0.0
    try:
        value = float(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return 0.0
    return value if value == value else 0.0  # NaN: none
