"""Answers to the queries a TUI sends its terminal, so it does not stall under our pty.

A TUI that asks for the cursor position (``ESC[6n``) or the device
attributes (``ESC[c``) may wait for the reply before drawing anything
(backends.md §3: codex sends ``ESC[6n``; claude ``ESC[c``). We answer like a
plain VT100 with the cursor at the top-left. Queries split across chunks are
found by keeping a few bytes of the previous chunk. It works on the raw bytes,
so a chunk without ESC costs one ``in`` test and no decode.
"""

from __future__ import annotations

from jlgcli.lazy_re import lazy

_QUERIES = lazy(rb"\x1b\[(?:6n|5n|0?c)")
_REPLIES = {
    b"\x1b[6n": b"\x1b[1;1R",  # cursor position report: row 1, column 1
    b"\x1b[5n": b"\x1b[0n",  # device status: OK
    b"\x1b[c": b"\x1b[?1;2c",  # primary device attributes: VT100 with advanced video
    b"\x1b[0c": b"\x1b[?1;2c",
}
_KEEP = 3  # longest query minus one: enough to see a query cut by a chunk boundary


class TerminalResponder:
    """Feed it the child's output; it returns the bytes to write back."""

    def __init__(self) -> None:
        self._tail = b""

    def feed(self, data: bytes | str) -> bytes:
        """Replies for every complete query that ends in ``data`` (raw output bytes)."""
        chunk = data.encode("utf-8") if isinstance(data, str) else data
        if b"\x1b" not in chunk and b"\x1b" not in self._tail:  # the common case: no copy
            self._tail = b""  # a query starts with ESC: without one, nothing to keep
            return b""
        window = self._tail + chunk
        replies = b"".join(
            _REPLIES[m.group()] for m in _QUERIES.finditer(window) if m.end() > len(self._tail)
        )
        self._tail = window[-_KEEP:]
        return replies


def typed_input(data: bytes, *, is_windows: bool) -> bytes:
    """``data`` as typed into a pty, followed by the terminal's end of input.

    POSIX: ^D ends a line, a second ^D on an empty line is end-of-file. A
    Windows console reads lines ended by Enter (CR) and takes Ctrl+Z at the
    start of a line, then Enter, as end of input; ^D means nothing to it, so a
    program reading stdin to its end waited for the timeout (issue 47).
    """
    if is_windows:
        lines = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r")
        return lines + (b"" if not lines or lines.endswith(b"\r") else b"\r") + b"\x1a\r"
    return data + (b"\x04" if data.endswith(b"\n") else b"\x04\x04")
