"""Byte-faithful reads and atomic writes for the dev loop's files (NFR-2).

Plan files are decoded with ``surrogateescape`` and without newline
translation, so re-encoding an unchanged text gives back the exact bytes:
a status change then leaves every other byte of the file identical.
"""

from __future__ import annotations

from pathlib import Path

ENCODING = "utf-8"
ERRORS = "surrogateescape"


def read_text_exact(path: Path) -> str:
    """The file's text, decoded so that ``write_text_atomic`` reproduces its bytes."""
    return path.read_bytes().decode(ENCODING, ERRORS)


def read_text_capped(path: Path, limit: int) -> tuple[str, int]:
    """At most ``limit`` bytes of a file as text, and how many bytes were left out.

    Reads only what it keeps, so a huge file referenced by a task costs little.
    """
    size = path.stat().st_size
    with path.open("rb") as handle:
        data = handle.read(limit)
    return data.decode(ENCODING, "replace"), max(0, size - len(data))


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8, newlines untouched) atomically, keeping the file's permission bits.

    ``jlgcli.artifacts.atomic`` (the one atomic writer: temp file beside the
    target, fsync, rename retried on Windows, directory fsync), with the
    bytes ``read_text_exact`` read: a reader, or a resumed run after a kill,
    sees the old file or the new one, never a half-written one (NFR-2).
    """
    from jlgcli.artifacts.atomic import atomic_write_bytes

    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    atomic_write_bytes(path, text.encode(ENCODING, ERRORS), mode=mode)


def copy_atomic(source: Path, target: Path) -> None:
    """Copy a file's bytes to ``target`` atomically."""
    write_text_atomic(target, read_text_exact(source))


def relative_to_root(path: Path, root: Path) -> str:
    """``path`` as shown to the user: relative to the project root when inside it, with ``/``."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
