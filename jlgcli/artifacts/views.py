"""What a line means, not how it is spelled: the decoded view the redactor also reads (issue 32).

Agent streams are JSON: a key on its own line is ``\\nsk-ant-…`` in the raw
bytes, a ``cat config.json`` result is ``\\"api_key\\": \\"…\\"``, an encoder
may write ``\\u0073k-ant-…``, and a coloured key is wrapped in (possibly
escaped) ANSI sequences. ``decoded_view`` gives the text with JSON string
escapes decoded (``\\n``, ``\\t``, ``\\"``, ``\\\\``, ``\\uXXXX``) and terminal
sequences removed, plus the way back: a span found in the view is masked in
the raw bytes (``raw_span``), so what is written stays valid JSON.

The cost is one regex scan of lines holding a backslash or an ESC byte, and
work proportional to the escapes found; other lines are not copied.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from jlgcli.lazy_re import lazy

_ESC = rb"(?:\x1b|\\u001[bB])"
# One token of the raw text that reads differently: a terminal sequence (raw or
# JSON-escaped ESC: CSI, OSC up to its BEL/ST, a charset or one-byte escape),
# then a JSON string escape. Left to right, so ``\\\\n`` is a backslash and an n.
_SPELLING = lazy(
    _ESC + rb"(?:\[[0-?]{0,64}[ -/]{0,8}[@-~]"
    rb"|\][^\x07\x1b\\\n]{0,4096}(?:\x07|\\u0007|" + _ESC + rb"\\\\?)?"
    rb"|[()][0-9A-Za-z]|[@-Z\\-_])?"
    rb"|\\u[0-9a-fA-F]{4}|\\[\"\\/bfnrt]"
)
_SIMPLE = {
    ord('"'): b'"', ord("\\"): b"\\", ord("/"): b"/",
    ord("b"): b"\b", ord("f"): b"\f", ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t",
}  # fmt: skip


def needs_view(data: bytes) -> bool:
    """Whether ``data`` may read differently once decoded (a backslash or an ESC byte)."""
    return b"\\" in data or b"\x1b" in data


class DecodedView:
    """``text``: the decoded bytes; ``raw_span`` maps a span of it back to the raw bytes."""

    __slots__ = ("_dec_ends", "_dec_starts", "_raw_ends", "_raw_starts", "text")

    def __init__(self, data: bytes) -> None:
        parts: list[bytes] = []
        self._dec_starts: list[int] = []
        self._dec_ends: list[int] = []
        self._raw_starts: list[int] = []
        self._raw_ends: list[int] = []
        raw_pos = dec_pos = 0
        for match in _SPELLING.finditer(data):
            start, end = match.span()
            parts.append(data[raw_pos:start])
            dec_pos += start - raw_pos
            value = _decoded(match.group())
            parts.append(value)
            self._dec_starts.append(dec_pos)
            self._raw_starts.append(start)
            dec_pos += len(value)
            self._dec_ends.append(dec_pos)
            self._raw_ends.append(end)
            raw_pos = end
        parts.append(data[raw_pos:])
        self.text = b"".join(parts)

    def raw_span(self, start: int, end: int) -> tuple[int, int]:
        """The raw bytes behind ``text[start:end]`` (whole escapes at both ends)."""
        return self._raw_start(start), max(self._raw_start(start), self._raw_end(end))

    def _raw_start(self, pos: int) -> int:
        index = bisect_right(self._dec_starts, pos) - 1
        if index < 0:
            return pos
        if pos < self._dec_ends[index]:  # inside a decoded escape: from its start
            return self._raw_starts[index]
        return self._raw_ends[index] + pos - self._dec_ends[index]

    def _raw_end(self, pos: int) -> int:
        index = bisect_left(self._dec_starts, pos) - 1  # escapes starting at pos come after
        if index < 0:
            return pos
        if pos < self._dec_ends[index]:  # inside a decoded escape: to its end
            return self._raw_ends[index]
        return self._raw_ends[index] + pos - self._dec_ends[index]


def _decoded(token: bytes) -> bytes:
    if token[:1] == b"\\":
        if token[1] == 0x75 and len(token) == 6:  # \uXXXX
            code = int(token[2:], 16)
            if code != 0x1B:
                return chr(code).encode("utf-8", "surrogatepass")
        elif len(token) == 2:
            return _SIMPLE[token[1]]
    return b""  # a terminal sequence reads as nothing
