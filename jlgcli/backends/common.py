"""Helpers every adapter shares: bounded buffers and versions.

The rate-limit, quota and auth texts live in ``limits.py`` (re-exported here; the reset
times they name in ``resets.py``, imported where a limit was hit);
they run only over *error* text, never over a successful answer: a model may
well write "rate limit" in a perfectly good reply.
"""

from __future__ import annotations

import re
from collections import deque

from jlgcli.backends.limits import find_auth_error, find_rate_limit

__all__ = [
    "LineSplitter",
    "TailBuffer",
    "find_auth_error",
    "find_rate_limit",
    "format_version",
    "parse_version",
    "version_at_least",
]

DEFAULT_TAIL_CHARS = 64 * 1024
DEFAULT_MAX_LINE_CHARS = 16 * 1024 * 1024  # one NDJSON event; a huge final answer fits

_VERSION = re.compile(r"(?<![\w.])v?(\d+)\.(\d+)(?:\.(\d+))?")


class TailBuffer:
    """The last ``limit`` characters of everything appended (raw output for error reports)."""

    def __init__(self, limit: int = DEFAULT_TAIL_CHARS) -> None:
        self.limit = limit
        self._chunks: deque[str] = deque()
        self._size = 0

    def append(self, text: str) -> None:
        """Add ``text``; drop whole old chunks once well over the limit (amortised O(1))."""
        if not text:
            return
        if len(text) >= self.limit:
            self._chunks.clear()
            self._chunks.append(text[-self.limit :])
            self._size = self.limit
            return
        self._chunks.append(text)
        self._size += len(text)
        while self._size - len(self._chunks[0]) >= self.limit:
            self._size -= len(self._chunks.popleft())

    def text(self) -> str:
        """The kept tail, at most ``limit`` characters."""
        joined = "".join(self._chunks)
        return joined[-self.limit :] if len(joined) > self.limit else joined

    def __len__(self) -> int:
        return min(self._size, self.limit)


class LineSplitter:
    """Cut a stream of chunks into complete lines (``\\n`` ends a line, ``\\r`` is kept).

    A partial line longer than ``max_line`` is dropped (and counted in
    ``overflows``) so a newline-free stream of junk cannot grow memory forever.
    """

    def __init__(self, max_line: int = DEFAULT_MAX_LINE_CHARS) -> None:
        self.max_line = max_line
        self._partial: list[str] = []
        self._partial_len = 0
        self.overflows = 0

    def feed(self, text: str) -> list[str]:
        """Complete lines found in ``text`` (without their ``\\n``)."""
        if "\n" not in text:
            self._keep(text)
            return []
        pieces = text.split("\n")
        first = "".join(self._partial) + pieces[0]
        self._partial, self._partial_len = [], 0
        lines = [first, *pieces[1:-1]]
        self._keep(pieces[-1])
        return lines

    def flush(self) -> str | None:
        """The unterminated last line, if any (the stream has ended)."""
        rest = "".join(self._partial)
        self._partial, self._partial_len = [], 0
        return rest or None

    def _keep(self, text: str) -> None:
        if not text:
            return
        self._partial.append(text)
        self._partial_len += len(text)
        if self._partial_len > self.max_line:
            self._partial, self._partial_len = [], 0
            self.overflows += 1


def parse_version(text: str) -> tuple[int, int, int] | None:
    """The first ``X.Y[.Z]`` in a ``--version`` output, e.g. ``codex-cli 0.169.0`` → (0, 169, 0)."""
    match = _VERSION.search(text)
    if match is None:
        return None
    major, minor, patch = match.groups()
    return int(major), int(minor), int(patch or 0)


def format_version(version: tuple[int, int, int]) -> str:
    """``(2, 1, 197)`` → ``"2.1.197"``."""
    return ".".join(str(part) for part in version)


def version_at_least(version: tuple[int, int, int], minimum: tuple[int, int, int]) -> bool:
    """Whether ``version >= minimum``."""
    return version >= minimum


def how_it_ended(name: str, exit_code: int | None, signal_number: int | None = None) -> str:
    """``codex exited with code 3`` or ``codex was killed by SIGKILL`` (never "code None")."""
    if exit_code is not None:
        return f"{name} exited with code {exit_code}"
    if signal_number is not None:
        from jlgcli.process.signals import signal_name

        return f"{name} was killed by {signal_name(signal_number)}"
    return f"{name} was killed by a signal"
