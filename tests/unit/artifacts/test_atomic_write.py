"""Atomic writes keep the old file on failure and leave no temp behind (F-006, RG-016)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from jlgcli.artifacts import atomic
from jlgcli.artifacts.atomic import atomic_write_bytes, atomic_write_json, atomic_write_text


def _siblings(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir())


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """An empty directory (the isolation fixture puts ``home/`` in pytest's own tmp_path)."""
    work = tmp_path / "work"
    work.mkdir()
    return work


def test_writes_utf8_text_verbatim(work: Path) -> None:
    target = work / "a.md"
    atomic_write_text(target, "résumé ✓\nline\r\n")
    assert target.read_bytes() == "résumé ✓\nline\r\n".encode()
    assert _siblings(target) == ["a.md"]


def test_replaces_an_existing_file(work: Path) -> None:
    target = work / "a.json"
    target.write_text("old", encoding="utf-8")
    atomic_write_json(target, {"k": "é", "n": [1, 2]})
    assert json.loads(target.read_text(encoding="utf-8")) == {"k": "é", "n": [1, 2]}
    assert target.read_text(encoding="utf-8").endswith("}\n")
    assert "é" in target.read_text(encoding="utf-8")  # UTF-8, not \u escapes


def test_failed_replace_keeps_old_file_and_removes_temp(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = work / "result.json"
    target.write_text('{"old": true}\n', encoding="utf-8")

    def broken_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="No space"):
        atomic_write_json(target, {"new": True})
    assert target.read_text(encoding="utf-8") == '{"old": true}\n'
    assert _siblings(target) == ["result.json"]


def test_failed_write_keeps_old_file(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = work / "prompt.md"
    target.write_text("old", encoding="utf-8")

    def broken_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="Input/output"):
        atomic_write_text(target, "new")
    assert target.read_text(encoding="utf-8") == "old"
    assert _siblings(target) == ["prompt.md"]


def test_interrupt_during_write_removes_temp(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = work / "meta.json"

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(target, b"x")
    assert _siblings(target) == []


def test_unserialisable_json_touches_nothing(work: Path) -> None:
    target = work / "result.json"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(TypeError):
        atomic_write_json(target, {"x": object()})
    with pytest.raises(ValueError):
        atomic_write_json(target, {"x": float("nan")})
    assert target.read_text(encoding="utf-8") == "old"
    assert _siblings(target) == ["result.json"]


def test_missing_directory_raises_oserror(work: Path) -> None:
    with pytest.raises(FileNotFoundError):
        atomic_write_text(work / "missing" / "a.txt", "x")


def test_parent_is_a_file_raises_oserror(work: Path) -> None:
    # works as root too, unlike a read-only directory
    blocker = work / "file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(OSError):
        atomic_write_text(blocker / "a.txt", "x")


def test_new_file_gets_default_permissions(work: Path) -> None:
    if os.name == "nt":
        pytest.skip("POSIX permission bits")
    umask = os.umask(0o022)
    os.umask(umask)
    target = work / "a.txt"
    atomic_write_text(target, "x")
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


def test_windows_replace_retries_while_the_target_is_held(work: Path) -> None:
    # Windows branch, tested here with injected flags: a briefly locked target is retried
    calls: list[str] = []
    sleeps: list[float] = []
    src, dst = work / "src", work / "dst"
    src.write_text("new", encoding="utf-8")
    real_replace = Path.replace

    class Flaky(type(src)):  # type: ignore[misc]
        def replace(self, target: object) -> Path:  # type: ignore[override]
            calls.append("replace")
            if len(calls) < 3:
                raise PermissionError(13, "held by another process")
            return real_replace(self, target)  # type: ignore[arg-type]

    atomic._replace(Flaky(src), dst, is_windows=True, sleep=sleeps.append)
    assert dst.read_text(encoding="utf-8") == "new"
    assert len(calls) == 3 and len(sleeps) == 2


def test_windows_replace_gives_up_after_the_last_attempt(work: Path) -> None:
    sleeps: list[float] = []

    class Held(type(work)):  # type: ignore[misc]
        def replace(self, target: object) -> Path:  # type: ignore[override]
            raise PermissionError(13, "held")

    with pytest.raises(PermissionError):
        atomic._replace(Held(work / "s"), work / "d", is_windows=True, attempts=3,
                        sleep=sleeps.append)  # fmt: skip
    assert len(sleeps) == 2


def test_posix_replace_does_not_retry(work: Path) -> None:
    sleeps: list[float] = []

    class Held(type(work)):  # type: ignore[misc]
        def replace(self, target: object) -> Path:  # type: ignore[override]
            raise PermissionError(13, "denied")

    with pytest.raises(PermissionError):
        atomic._replace(Held(work / "s"), work / "d", is_windows=False, sleep=sleeps.append)
    assert sleeps == []


def test_fsync_dir_is_skipped_on_windows_and_tolerant_elsewhere(work: Path) -> None:
    atomic._fsync_dir(work, is_windows=True)
    atomic._fsync_dir(work / "missing", is_windows=False)  # cannot open: ignored
    atomic._fsync_dir(work, is_windows=False)


def test_without_directory_sync_the_data_is_still_fsynced_once(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    target = work / "state.json"
    atomic_write_text(target, "one", sync_directory=False)
    assert target.read_text(encoding="utf-8") == "one" and len(synced) == 1
    atomic_write_text(target, "two")  # the default: the rename is made durable too
    assert target.read_text(encoding="utf-8") == "two" and len(synced) == 3
    atomic.sync_directory(work)
    assert len(synced) == 4
    assert _siblings(target) == ["state.json"]
