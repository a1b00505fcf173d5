"""Redaction of a stream cut into arbitrary chunks: one partial line held back (issue 15).

Split from ``redact.py`` (issue 32). A secret split across two reads is still
caught: a stream is cut after its last newline; a line longer than
``_HOLD_LIMIT`` is cut so no match straddles the cut; a private-key block is
held back until its END line. A secret split across two delta events (issue 43)
is caught too: the pieces' texts are read as one (``deltas.DeltaChain``), and
the last pieces are held back while their text ends inside a word; and so is a
key hard-wrapped at a pty's width (``wrapped_at``, ``wraps.py``).
"""

from __future__ import annotations

from jlgcli.artifacts.candidates import DELTAS, PEM, PEM_BEGIN, Candidate
from jlgcli.artifacts.deltas import DeltaChain, open_tail
from jlgcli.artifacts.escapes import Edit
from jlgcli.artifacts.redact import Redacted
from jlgcli.artifacts.wraps import wrap_edits, wrapped_line_open, wraps
from jlgcli.lazy_re import lazy

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.artifacts.redact import Redactor

_NAME_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.")
_PEM_BEGIN = PEM_BEGIN
_PEM_PRIVATE_BEGIN = lazy(rb"-----BEGIN[ A-Z0-9]{0,64}PRIVATE KEY(?: BLOCK)?-----")
_PEM_PRIVATE_END = lazy(rb"-----END[ A-Z0-9]{0,64}PRIVATE KEY(?: BLOCK)?-----")

# A stream is cut after its last newline (no pattern spans a newline, so the
# result is the same as redacting the whole stream); a line longer than
# _HOLD_LIMIT is cut _TAIL bytes from its end, moved back so no match and no
# half-written "name = " or "Bearer " straddles the cut.
_HOLD_LIMIT = 32 * 1024
_TAIL = 8 * 1024
_JOIN_BACK = 512
_PEM_HOLD = 64 * 1024
_JOIN_CHARS = _NAME_CHARS | frozenset(b" \t\"':=/+~")


def _before_open_private_key(buf: bytes, cut: int) -> int:
    """``cut``, moved back to the start of the line of a private-key block still open before it.

    A PEM block spans lines: its body is held back until its END line arrives
    (up to ``_PEM_HOLD`` bytes; a longer "block" is no key and is cut as usual).
    Blocks are taken from the first, as ``_ANCHORED`` takes them from the whole
    text: a second BEGIN inside an open block neither closes nor reopens it.
    """
    pos = 0
    while True:
        begin = _PEM_PRIVATE_BEGIN.search(buf, pos, cut)
        if begin is None:
            return cut
        end = _PEM_PRIVATE_END.search(buf, begin.end(), cut)
        if end is None:
            # from its line's start: a JSON event is never cut inside (issue 43)
            line = buf.rfind(b"\n", 0, begin.start()) + 1
            return line if len(buf) - line <= _PEM_HOLD else cut
        pos = end.end()


class StreamRedactor:
    """Redacts a chunked stream, holding back at most one partial line (<= 32 KiB).

    ``feed`` returns what can be written now; ``flush`` returns the rest at the end.
    """

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._pending = b""
        self._chain = DeltaChain()
        self._width = 0  # a pty's width: lines wrapped there are read joined

    def wrapped_at(self, width: int) -> None:
        """Read lines exactly ``width`` characters wide as wrapped onto the next (a pty)."""
        self._width = max(0, width)

    def feed(self, data: bytes) -> bytes:
        """Redacted bytes that are safe to emit after appending ``data``."""
        buf = self._pending + data if self._pending else data
        # One candidate scan of the whole buffer serves the forced cut, the
        # private-key check (a 10-byte substring search would cost as much again)
        # and the redaction.
        seen: set[int] = set()
        spans = self._redactor.candidate_spans(buf, seen)
        deltas = DELTAS in seen if spans is not None else b"delta" in buf
        cut = buf.rfind(b"\n") + 1
        if len(buf) - cut > _HOLD_LIMIT:
            cut = self._forced_cut(buf, floor=cut, spans=spans)
        if PEM in seen if spans is not None else _PEM_BEGIN in buf:
            cut = _before_open_private_key(buf, cut)
        if cut and deltas:
            cut = open_tail(buf, cut)
        if self._width:
            cut = wrapped_line_open(buf, cut, self._width)
        self._pending = buf[cut:]
        if not cut:
            return b""
        if spans is not None:  # a scan of buf[:cut] finds exactly those ending by the cut
            spans = [span for span in spans if span[1] <= cut]
        return self._redact(buf[:cut], spans, ahead=self._pending, deltas=deltas)

    def _redact(
        self, data: bytes, spans: list[Candidate] | None, *, ahead: bytes = b"", deltas: bool
    ) -> bytes:
        extra: list[Edit] = []
        texts: list[tuple[int, int]] = []
        if deltas:
            extra, texts = self._chain.edits(self._redactor, data, ahead)
        if self._width and (breaks := wraps(data, self._width)):
            extra += wrap_edits(self._redactor, data, breaks)
        return self._redactor.redact_bytes(data, spans=spans, extra=extra, only_extra=texts)

    def feed_text(self, text: str) -> Redacted:
        """``feed`` for text; cuts fall on character boundaries."""
        data = self.feed(text.encode("utf-8", "surrogatepass"))
        return Redacted(data.decode("utf-8", "surrogatepass"))

    def flush_text(self) -> Redacted:
        """``flush`` for text."""
        return Redacted(self.flush().decode("utf-8", "surrogatepass"))

    def flush(self) -> bytes:
        """Everything still held back, redacted."""
        buf, self._pending = self._pending, b""
        return self._redact(buf, None, deltas=b"delta" in buf) if buf else b""

    @property
    def pending(self) -> int:
        """Bytes held back, waiting for the end of their line."""
        return len(self._pending)

    def _forced_cut(self, buf: bytes, *, floor: int, spans: list[Candidate] | None) -> int:
        cut = len(buf) - _TAIL
        limit = max(floor, cut - _JOIN_BACK)
        while cut > limit and buf[cut - 1] in _JOIN_CHARS:
            cut -= 1
        moved = True
        # near the candidates only: a long JSON line is not read whole on every read
        edits = self._redactor._edits_near_candidates(buf, spans)
        while moved:
            moved = False
            for start, end, _ in edits:
                if start < cut < end:
                    cut, moved = start, True
        while cut > floor and 0x80 <= buf[cut] < 0xC0:
            cut -= 1  # never split a UTF-8 sequence
        return max(cut, floor)
