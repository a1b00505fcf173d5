"""Atomic file writes: a reader sees the old file or the new one, never half of one.

Write a temporary file next to the target, flush and fsync it, then
``os.replace`` it over the target. On any failure the temporary file is removed
and the previous file is left as it was. Errors are the ``OSError`` of the
failing step: callers turn it into their own ``JlgError`` (73 for artifacts and
config writes). Stdlib only: the config commands import this on cheap paths.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

# Windows: an indexer or antivirus briefly holding the target makes os.replace
# fail with PermissionError; a few short retries ride that out.
_REPLACE_ATTEMPTS = 5
_REPLACE_BACKOFF = 0.05


def atomic_write_bytes(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    sync_directory: bool = True,
    mode: int | None = None,
    finish: Callable[[Callable[[], None]], None] | None = None,
) -> None:
    """Replace ``path`` with ``data`` atomically (same-directory temp, fsync, ``os.replace``).

    ``sync_directory=False`` skips the directory fsync that makes the rename itself
    durable: after a crash a reader may then find the previous version (never half
    of one). For files rewritten often where one step behind is fine (the resume
    state after each iteration), it halves the fsyncs. ``mode``: the permission bits
    of the new file (e.g. those of the file it replaces), set before the rename.
    ``finish``: given the rest (the fsync, the rename) once the data is written, to run it
    later or elsewhere (a thread: ``runner.state_writes``); a failure to write, such as a
    full disk, is still raised here.
    """
    target = Path(path)
    tmp, fd = _create_temp(target)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if finish is None:
                os.fsync(fh.fileno())
        if mode is not None:
            tmp.chmod(mode)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    settle = functools.partial(_settle, tmp, target, sync_directory=sync_directory)
    if finish is None:
        settle(synced=True)
    else:
        finish(settle)


def _settle(tmp: Path, target: Path, *, sync_directory: bool, synced: bool = False) -> None:
    """The written temporary file made durable (unless ``synced``), then put in place."""
    is_windows = sys.platform == "win32"
    try:
        if not synced:
            with open(tmp, "r+b") as fh:  # Windows' fsync (_commit) needs write access
                os.fsync(fh.fileno())
        _replace(tmp, target, is_windows=is_windows)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    if sync_directory:
        _fsync_dir(target.parent, is_windows=is_windows)


def atomic_write_text(
    path: str | os.PathLike[str],
    text: str,
    *,
    sync_directory: bool = True,
    finish: Callable[[Callable[[], None]], None] | None = None,
) -> None:
    """Replace ``path`` with ``text`` as UTF-8, atomically; newlines are written as given."""
    data = text.encode("utf-8", "surrogatepass")
    atomic_write_bytes(path, data, sync_directory=sync_directory, finish=finish)


def atomic_write_json(
    path: str | os.PathLike[str], obj: Any, *, indent: int | None = 2, sync_directory: bool = True
) -> None:
    """Replace ``path`` with ``obj`` as UTF-8 JSON plus a final newline, atomically.

    ``obj`` is serialised before anything touches the disk, so a value JSON
    cannot represent raises ``TypeError``/``ValueError`` and leaves no trace.
    ``sync_directory``: as for ``atomic_write_bytes``.
    """
    text = json.dumps(obj, indent=indent, ensure_ascii=False, allow_nan=False)
    atomic_write_text(path, text + "\n", sync_directory=sync_directory)


def _create_temp(target: Path) -> tuple[Path, int]:
    """Create an exclusive temp file beside ``target`` (same filesystem for os.replace)."""
    # O_BINARY: without it Windows' CRT would turn "\n" into "\r\n" behind our back.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = target.with_name(f".{target.name}.{os.urandom(4).hex()}.tmp")
        try:
            # 0o666 & ~umask, like a plain open(): artifacts keep the user's usual permissions.
            return tmp, os.open(tmp, flags, 0o666)
        except FileExistsError:  # pragma: no cover - 32 random bits colliding
            continue
    raise FileExistsError(f"cannot create a temporary file beside {target}")  # pragma: no cover


def _replace(
    src: Path,
    dst: Path,
    *,
    is_windows: bool,
    attempts: int = _REPLACE_ATTEMPTS,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """``os.replace``, retried on Windows while another process briefly holds ``dst``."""
    tries = attempts if is_windows else 1
    for attempt in range(1, tries + 1):
        try:
            src.replace(dst)  # os.replace: atomic, overwrites on every OS
            return
        except PermissionError:
            if attempt == tries:
                raise
            sleep(_REPLACE_BACKOFF * attempt)


def sync_directory(directory: str | os.PathLike[str]) -> None:
    """Make the renames done in ``directory`` durable (after ``sync_directory=False`` writes)."""
    _fsync_dir(Path(directory), is_windows=sys.platform == "win32")


def _fsync_dir(directory: Path, *, is_windows: bool) -> None:
    """Persist the rename itself (POSIX); Windows cannot open a directory, and needs not."""
    if is_windows:
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on a directory; the data is already safe
    finally:
        os.close(fd)
