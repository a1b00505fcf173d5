"""A lock on a file that the OS frees when its holder dies, even by SIGKILL (issue 37).

The same locks ``filelock`` takes (``flock`` on POSIX, a one-byte ``msvcrt.locking``
region on Windows), so a jlgcli of either kind sees the other's lock, without importing
``filelock``: that package pulls in ``logging``, ``inspect`` and ``urllib`` and cost every
loop ~40 ms of CPU and ~3.6 MB at its start — eight times over in a batch of eight tasks.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

IS_WINDOWS = sys.platform == "win32"
_RETRY_S = 0.01

Locker = tuple[Callable[[int], bool], Callable[[int], None]]


def os_locker(windows: bool = IS_WINDOWS) -> Locker:
    """``(try_lock(fd) -> bool, unlock(fd))`` of this OS: the only place they differ."""
    if windows:
        import msvcrt

        def try_windows(fd: int) -> bool:
            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined,unused-ignore]
            except OSError:
                return False
            return True

        def unlock_windows(fd: int) -> None:
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined,unused-ignore]

        return try_windows, unlock_windows
    import fcntl

    def try_posix(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # type: ignore[attr-defined,unused-ignore]
        except OSError:  # BlockingIOError: someone holds it
            return False
        return True

    def unlock_posix(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)  # type: ignore[attr-defined,unused-ignore]

    return try_posix, unlock_posix


class LockTimeoutError(Exception):
    """The lock was still held by another when the wait ran out."""


class FileLock:
    """An exclusive lock on ``path`` (created, with its folder, if missing) until ``release``."""

    def __init__(self, path: str | Path, *, locker: Locker | None = None) -> None:
        self.path = str(path)
        self._try, self._unlock = locker or os_locker()
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self, timeout: float = 0.0) -> bool:
        """Take the lock, waiting up to ``timeout`` seconds; False when another holds it."""
        if self._fd is not None:
            return True
        deadline = time.monotonic() + timeout
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)  # as ``filelock`` does
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            if self._try(fd):
                self._fd = fd
                return True
            os.close(fd)
            if time.monotonic() >= deadline:
                return False
            time.sleep(_RETRY_S)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            try:
                self._unlock(fd)
            finally:
                os.close(fd)

    def hold(self, timeout: float) -> FileLock:
        """For ``with lock.hold(10):``; raises ``LockTimeoutError`` when the wait runs out."""
        if not self.acquire(timeout):
            raise LockTimeoutError(f"{self.path} is held by another process")
        return self

    def __enter__(self) -> FileLock:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.release()
