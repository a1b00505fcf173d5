"""Redaction in the encoding it runs in: JSON string escapes and JSON structure (issue 43).

The redactor reads agent event lines as they arrive (JSON), so a value rule
that reads the raw bytes must end at an escape exactly where it would end at
the decoded character: ``password=hunter2\\"`` ends before ``\\"``, and
``password=hunter2\\nDONE`` before ``\\n`` (the next line, ``DONE``, is the
agent's completion marker). ``value_run`` builds such a character class: a
plain byte of the class, or an escape (``\\\\``, ``\\/``, ``\\uXXXX``) whose
decoded character is in the class, or a lone backslash that starts no escape
(plain text: ``C:\\path``).

``masks`` turns the (possibly overlapping) replacements the rules want into the
ones applied: overlapping matches are masked as their union, a mask never
begins or ends inside an escape (so it stays valid in a JSON string), and in a
line that is a JSON document a mask never covers the structure: a match that
crosses from one string into another (a key block spanning two events held
back together) masks the part in the string where it starts and the part in
the string where it ends, and leaves the structure and other fields as they are.
"""

from __future__ import annotations

import json
import re

from jlgcli.lazy_re import lazy

Edit = tuple[int, int, bytes]  # (start, end, replacement)

_HEX = b"0123456789abcdefABCDEF"
# The characters after a backslash that make a JSON escape (``u`` with 4 hex digits).
_SIMPLE_ESCAPES = b'"\\/bfnrt'
_JSON_STRING = lazy(rb'"(?:[^"\\\n]|\\.)*"')


def _hex_alternatives(codes: list[int]) -> bytes:
    def spelled(code: int) -> bytes:
        return b"".join(
            b"[%c%c]" % (c, c ^ 0x20) if chr(c) in "abcdef" else bytes([c]) for c in b"%02x" % code
        )

    return b"|".join(spelled(code) for code in codes)


def value_run(byte_class: bytes, repeat: bytes) -> bytes:
    """A pattern for ``[byte_class]{repeat}`` read through JSON string escapes.

    ``byte_class``: the body of a bytes character class (``^\\s"'``); ``repeat``:
    the quantifier (``{1,4096}``). The backslash itself is taken out of the class:
    it only stands for itself where it starts no escape.
    """
    single = re.compile(b"[" + byte_class + b"]")
    ascii_ok = [code for code in range(0x20, 0x7F) if single.fullmatch(bytes([code]))]
    units = [rb"(?!\\)[" + byte_class + b"]"]
    escaped = [rb"\\" + re.escape(bytes([c])) for c in b"\\/" if c in ascii_ok]
    if ascii_ok:
        escaped.append(rb"\\u00(?:" + _hex_alternatives(ascii_ok) + b")")
    if single.fullmatch(b"\xc3"):  # the class takes UTF-8 bytes: a \u escape of non-ASCII too
        escaped.append(rb"\\u(?!00[0-7])[0-9a-fA-F]{4}")
    if 0x5C in ascii_ok:
        escaped.append(rb"\\(?![\"\\/bfnrt]|u[0-9a-fA-F]{4})")  # a backslash as itself
    units += escaped
    return b"(?:" + b"|".join(units) + b")" + repeat


def quoted_end(data: bytes, pos: int, quote: int, limit: int) -> int:
    """Where the quoted value opened just before ``pos`` closes, or -1.

    Escapes are skipped (``\\"`` inside a double-quoted JSON value is part of
    it); a value that holds a line break, raw or escaped, is no one-line value.
    """
    end = min(len(data), limit)
    i = pos
    while i < end:
        found = _QUOTE_OR_BREAK[quote].search(data, i, end)
        if found is None:
            return -1
        i = found.start()
        byte = data[i]
        if byte == quote:
            return i
        if byte != 0x5C:  # a raw line break
            return -1
        escape = data[i + 1 : i + 2]
        if escape in (b"n", b"r"):
            return -1
        if escape == b"u" and data[i + 2 : i + 6].lower() in (b"000a", b"000d"):
            return -1
        i += 2
    return -1


_QUOTE_OR_BREAK = {quote: lazy(b"[\\\\\n\r" + bytes([quote]) + b"]") for quote in b"\"'"}


def _escape_around(data: bytes, pos: int) -> tuple[int, int] | None:
    """The escape that ``pos`` falls strictly inside, as (start, end), or None."""
    for start in range(max(0, pos - 5), pos):
        if data[start] != 0x5C:
            continue
        run = start
        while run > 0 and data[run - 1] == 0x5C:
            run -= 1
        if (start - run) % 2:
            continue  # this backslash is itself escaped
        following = data[start + 1 : start + 2]
        if following == b"u" and all(c in _HEX for c in data[start + 2 : start + 6]):
            end = start + 6 if len(data) >= start + 6 else start + 2
        elif following and following in _SIMPLE_ESCAPES:
            end = start + 2
        else:
            continue
        if start < pos < end:
            return start, end
    return None


def whole_escapes(data: bytes, start: int, end: int) -> tuple[int, int]:
    """``start``/``end`` moved outwards so neither falls inside an escape."""
    if b"\\" not in data[max(0, start - 5) : end + 5]:
        return start, end
    around = _escape_around(data, start)
    if around is not None:
        start = around[0]
    around = _escape_around(data, end)
    if around is not None:
        end = around[1]
    return start, end


def masks(data: bytes, edits: list[Edit]) -> list[Edit]:
    """The replacements to apply, sorted: ``edits`` confined, then merged where they overlap.

    Each merged span takes the replacement of its first edit.
    """
    pieces: list[Edit] = []
    lines: dict[int, list[tuple[int, int]] | None] = {}  # each line read as JSON once
    previous = None
    for edit in edits:
        if edit == previous:  # (a window's rules often find one secret twice: token, Bearer…)
            continue
        previous = edit
        start, end, new = edit
        if b"\\" in data[start - 5 if start > 5 else 0 : end + 5]:
            start, end = whole_escapes(data, start, end)
        # (a value quoted by a JSON string's own quotes, "x": "…", is checked as well)
        if b"\n" in data[start:end] or b'"' in data[start - 1 if start else 0 : end + 1]:
            pieces += [(lo, hi, new) for lo, hi in _confined(data, start, end, lines)]
        elif end > start:
            pieces.append((start, end, new))
    if len(pieces) < 2:
        return pieces
    pieces.sort(key=_by_start_longest)
    merged: list[Edit] = []
    start, end, new = pieces[0]
    for edit in pieces[1:]:
        if edit[0] < end:
            end = max(end, edit[1])
            continue
        merged.append((start, end, new))
        start, end, new = edit
    merged.append((start, end, new))
    return merged


def _by_start_longest(edit: Edit) -> tuple[int, int]:
    return edit[0], -edit[1]


def _confined(
    data: bytes, start: int, end: int, lines: dict[int, list[tuple[int, int]] | None]
) -> list[tuple[int, int]]:
    """The parts of ``data[start:end]`` that may be masked: not the structure of a JSON line."""
    parts: list[tuple[int, int]] = []
    plain_end = -1  # where the last part masked as plain text ends
    line_start = data.rfind(b"\n", 0, start) + 1
    while line_start < end:
        line_end = data.find(b"\n", line_start)
        line_end = len(data) if line_end < 0 else line_end
        lo, hi = max(start, line_start), min(end, line_end)
        if line_start not in lines:
            lines[line_start] = _json_strings(data, line_start, line_end)
        strings = lines[line_start]
        if strings is None:  # not a JSON line: masked as it is, across lines too
            if parts and plain_end == lo - 1:  # with the line break between
                lo = parts.pop()[0]
            parts.append((lo, hi))
            plain_end = hi
        else:
            plain_end = -1
            for s_lo, s_hi in strings:  # contents, without the quotes
                if s_lo <= start < s_hi or s_lo < end <= s_hi:
                    piece = (max(lo, s_lo), min(hi, s_hi))
                    if piece[1] > piece[0]:
                        parts.append(piece)
        line_start = line_end + 1
    return [(lo, hi) for lo, hi in parts if hi > lo]


def _json_strings(data: bytes, start: int, end: int) -> list[tuple[int, int]] | None:
    """The contents of the strings of ``data[start:end]`` if it is one JSON document."""
    line = data[start:end].strip()
    if line[:1] not in (b"{", b"["):
        return None
    try:
        json.loads(line)
    except ValueError:
        return None
    return [(m.start() + 1, m.end() - 1) for m in _JSON_STRING.finditer(data, start, end)]
