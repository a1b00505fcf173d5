"""``artifacts.oslock``: the run and record locks without ``filelock`` (issue 37)."""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import pytest

from jlgcli.artifacts import oslock
from jlgcli.artifacts.oslock import FileLock, LockTimeoutError


def test_a_second_holder_is_refused_until_the_first_releases(tmp_path: Path) -> None:
    first, second = FileLock(tmp_path / "a.lock"), FileLock(tmp_path / "a.lock")
    assert first.acquire() and first.held
    assert first.acquire()  # taking it again is a no-op
    assert not second.acquire(timeout=0.05) and not second.held
    first.release()
    first.release()  # twice is harmless
    assert second.acquire()
    second.release()


def test_the_lock_file_and_its_folder_are_created(tmp_path: Path) -> None:
    lock = FileLock(tmp_path / "old-run" / "run.lock")
    assert lock.acquire() and (tmp_path / "old-run" / "run.lock").is_file()
    lock.release()


def test_hold_raises_after_its_wait_and_the_with_block_releases(tmp_path: Path) -> None:
    path = tmp_path / "b.lock"
    with FileLock(path).hold(1.0), pytest.raises(LockTimeoutError):
        FileLock(path).hold(0.02)
    with FileLock(path).hold(0.0) as again:
        assert again.held


def test_the_os_frees_the_lock_of_a_killed_holder(tmp_path: Path) -> None:
    path = tmp_path / "c.lock"
    code = (
        "import sys, time; from jlgcli.artifacts.oslock import FileLock\n"
        "assert FileLock(sys.argv[1]).acquire(); print('held', flush=True); time.sleep(60)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        assert not FileLock(path).acquire()
    finally:
        holder.kill()
        holder.wait()
    assert FileLock(path).acquire(timeout=5.0)


def test_the_windows_branch_locks_one_byte_with_msvcrt(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[int, int, int]] = []
    held: set[int] = set()

    def locking(fd: int, mode: int, size: int) -> None:
        calls.append((fd, mode, size))
        if mode == 2 and fd in held:
            raise OSError("locked")
        (held.add if mode == 2 else held.discard)(fd)

    fake = types.SimpleNamespace(LK_NBLCK=2, LK_UNLCK=0, locking=locking)
    monkeypatch.setitem(sys.modules, "msvcrt", fake)
    try_lock, unlock = oslock.os_locker(windows=True)
    assert try_lock(7) and not try_lock(7)
    unlock(7)
    assert try_lock(7)
    assert calls == [(7, 2, 1), (7, 2, 1), (7, 0, 1), (7, 2, 1)]
