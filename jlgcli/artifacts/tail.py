"""Read a file another process is still writing, line by line (issue 51: ``jlgcli watch``).

``Tail(path).lines()`` returns the complete lines written since the last call and keeps a
partial last line until its newline comes; a file that does not exist yet gives no lines
(it may appear later); a file that got shorter than what was read (truncated, or replaced
by a new one) is read again from its start. Plain ``open``/``seek``/``read``: no POSIX-only
call, and on Windows the writer keeps its file open while this reads it. A line longer
than ``max_line`` bytes is dropped (the part before its newline too): a reader's memory
stays bounded whatever the file holds.
"""

from __future__ import annotations

import os
from pathlib import Path

MAX_LINE = 4 * 1024 * 1024  # bytes: an event line is far smaller
_CHUNK = 256 * 1024


class Tail:
    """The complete lines of a growing file, each returned once."""

    def __init__(self, path: Path, *, max_line: int = MAX_LINE) -> None:
        self.path = path
        self.max_line = max_line
        self.offset = 0  # bytes of the file consumed (complete lines and the pending part)
        self.restarts = 0  # how many times the file was found shorter and read from the start
        self._pending = b""
        self._skipping = False  # inside a line longer than max_line: dropped up to its end

    def exists(self) -> bool:
        return self.path.is_file()

    def lines(self) -> list[str]:
        """The lines completed since the last call (UTF-8, undecodable bytes replaced)."""
        try:
            with open(self.path, "rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                if size < self.offset:  # truncated or replaced: its new content from the start
                    self.offset, self._pending, self._skipping = 0, b"", False
                    self.restarts += 1
                if size == self.offset:
                    return []
                handle.seek(self.offset)
                data = handle.read(min(size - self.offset, _CHUNK))
        except OSError:  # not there (yet), or gone: nothing new
            return []
        self.offset += len(data)
        return self._split(data)

    def _split(self, data: bytes) -> list[str]:
        parts = (self._pending + data).split(b"\n")
        self._pending = parts.pop()
        found = []
        for part in parts:
            if self._skipping:
                self._skipping = False  # the end of the overlong line
                continue
            if len(part) <= self.max_line:
                found.append(part.decode("utf-8", "replace").removesuffix("\r"))
        if len(self._pending) > self.max_line:
            self._pending, self._skipping = b"", True
        return found

    def at_end(self) -> bool:
        """Everything the file holds now was read (a partial last line aside)."""
        try:
            return self.path.stat().st_size <= self.offset
        except OSError:
            return True
