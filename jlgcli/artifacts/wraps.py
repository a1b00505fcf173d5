"""Keys hard-wrapped at the terminal width: a pty line cut inside a word read whole (issue 43).

A program on a pty (and Windows' ConPTY itself) may break a long line at the
terminal's width: a key printed there arrives as two lines, neither of which
holds the whole key. A line break right after a line exactly ``width``
characters wide (colours and the CR not counted), between two word characters,
is taken for such a wrap: the rules read the text with it removed, and a match
across it masks both sides (the break itself is kept).
"""

from __future__ import annotations

from jlgcli.artifacts.escapes import Edit
from jlgcli.lazy_re import lazy

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.artifacts.redact import Redactor

_COLOUR = lazy(rb"\x1b\[[0-?]*[ -/]*[@-~]")
_HOLD = 16 * 1024
_WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.")


def _last_visible(line: bytes) -> int:
    plain = _COLOUR.sub(b"", line).rstrip(b"\r")
    return plain[-1] if plain else -1


def _width(line: bytes) -> int:
    plain = _COLOUR.sub(b"", line).rstrip(b"\r")
    return len(plain.decode("utf-8", "replace"))


def wraps(data: bytes, width: int, end: int | None = None) -> list[tuple[int, int]]:
    """The (start, end) of each line break in ``data[:end]`` that is a wrap at ``width``."""
    end = len(data) if end is None else end
    found: list[tuple[int, int]] = []
    line_start = 0
    while True:
        brk = data.find(b"\n", line_start, end)
        if brk < 0:
            return found
        line = data[line_start:brk]
        nxt = _COLOUR.sub(b"", data[brk + 1 : brk + 16])[:1]
        if (
            len(line) >= width
            and nxt
            and nxt[0] in _WORD
            and _last_visible(line) in _WORD
            and _width(line) == width
        ):
            found.append((brk - 1 if line.endswith(b"\r") else brk, brk + 1))
        line_start = brk + 1


def wrapped_line_open(data: bytes, cut: int, width: int) -> int:
    """``cut`` moved back before the last lines that may wrap onto a line not read yet.

    A run of wrapped lines is held whole (up to ``_HOLD``: longer is no key).
    """
    held = cut
    while held and data[held - 1] == 0x0A and cut - held <= _HOLD:
        start = data.rfind(b"\n", 0, held - 1) + 1
        line = data[start : held - 1]
        if not (len(line) >= width and _last_visible(line) in _WORD and _width(line) == width):
            break
        held = start
    return held if cut - held <= _HOLD else cut


def wrap_edits(redactor: Redactor, data: bytes, breaks: list[tuple[int, int]]) -> list[Edit]:
    """Masks for ``data`` read with its wrap ``breaks`` removed (each side of a break masked).

    Only matches that cross a break: the others are found in ``data`` as it is.
    """
    segments: list[tuple[int, int, int]] = []  # (raw start, raw end, joined start)
    pos = joined = 0
    for lo, hi in [*breaks, (len(data), len(data))]:
        segments.append((pos, lo, joined))
        joined += lo - pos
        pos = hi
    text = b"".join(data[lo:hi] for lo, hi, _ in segments)
    edits: list[Edit] = []
    for start, end, new in redactor._edits_near_candidates(text, None):
        pieces = [
            (lo + max(start, at) - at, lo + min(end, at + hi - lo) - at)
            for lo, hi, at in segments
            if max(start, at) < min(end, at + hi - lo)
        ]
        if len(pieces) > 1:
            edits += [(lo, hi, new) for lo, hi in pieces]
    return edits
