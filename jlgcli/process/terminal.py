"""Answers to the queries a TUI sends its terminal, so it does not stall under our pty.

A TUI that asks for the cursor position (``ESC[6n``) or the device
attributes (``ESC[c``) may wait for the reply before drawing anything
(backends.md §3: codex sends ``ESC[6n``; claude ``ESC[c``). We answer like a
plain VT100 with the cursor at the top-left. Queries split across chunks are
found by keeping a few characters of the previous chunk.
"""

from __future__ import annotations

import re

_QUERIES = re.compile(r"\x1b\[(?:6n|5n|0?c)")
_REPLIES = {
    "\x1b[6n": b"\x1b[1;1R",  # cursor position report: row 1, column 1
    "\x1b[5n": b"\x1b[0n",  # device status: OK
    "\x1b[c": b"\x1b[?1;2c",  # primary device attributes: VT100 with advanced video
    "\x1b[0c": b"\x1b[?1;2c",
}
_KEEP = 3  # longest query minus one: enough to see a query cut by a chunk boundary


class TerminalResponder:
    """Feed it the child's output; it returns the bytes to write back."""

    def __init__(self) -> None:
        self._tail = ""

    def feed(self, text: str) -> bytes:
        """Replies for every complete query that ends in ``text``."""
        window = self._tail + text
        if "\x1b" not in window:  # the common case: no query, no regex
            self._tail = window[-_KEEP:]
            return b""
        replies = b"".join(
            _REPLIES[m.group()] for m in _QUERIES.finditer(window) if m.end() > len(self._tail)
        )
        self._tail = window[-_KEEP:]
        return replies
