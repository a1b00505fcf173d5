"""Secrets cut across events: the text of consecutive delta events read as one (issue 43).

The agent CLIs stream a reply in pieces, one JSON event per piece: gemini
``{"type":"message",…,"content":"…","delta":true}``, claude's partial
messages ``{"type":"stream_event","event":{…"delta":{"type":"text_delta","text":"…"}}}``
(``thinking``, ``partial_json`` alike), copilot ``assistant.message_delta``
``{"deltaContent":"…"}``, codex ``item.plan.delta`` ``{"delta":"…"}``
(research/backends.md §5). A key may start in one piece and end in the next:
each line alone holds no whole secret.

``DeltaChain`` reads the text fields of such lines (their raw, still escaped
bytes) as one text, after what the earlier pieces said (``context``: the last
bytes, or an open private-key block whole), redacts that text and maps each
mask back onto the pieces, so a secret is masked in every event that holds a
part of it, and nothing else in those events changes. ``open_tail`` tells the
stream redactor to hold the last pieces back while their text ends inside a
word: the next piece may continue it.
"""

from __future__ import annotations

from collections.abc import Iterator

from jlgcli.artifacts.escapes import Edit, whole_escapes
from jlgcli.lazy_re import lazy

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.artifacts.redact import Redactor

# The text field of a delta event: the first of these keys with a string value.
_DELTA_TEXT = lazy(
    rb'"(?:deltaContent|content|text|thinking|partial_json|delta)"[ \t]*:[ \t]*"'
    rb'((?:[^"\\\n]|\\.){0,1048576})"'
)
_PEM_PRIVATE_BEGIN = lazy(rb"-----BEGIN[ A-Z0-9]{0,64}PRIVATE KEY(?: BLOCK)?-----")
_PEM_PRIVATE_END = lazy(rb"-----END[ A-Z0-9]{0,64}PRIVATE KEY(?: BLOCK)?-----")
_CONTEXT = 512  # what the pieces already written said: "Bearer ", "api_key=", a prefix
_PEM_CONTEXT = 64 * 1024  # an open private-key block is kept whole (as streaming holds it)
_WORD_HOLD = 16 * 1024  # a "word" longer than this is no secret: released
_SPACE_ESCAPES = (b"\\n", b"\\t", b"\\r")


def delta_text(line: bytes, start: int = 0, end: int | None = None) -> tuple[int, int] | None:
    """The raw span of the text a delta event carries (inside its quotes), or None."""
    end = len(line) if end is None else end
    if line.find(b"delta", start, end) < 0 or line.find(b"{", start, start + 8) < 0:
        return None
    found = _DELTA_TEXT.search(line, start, end)
    return None if found is None else found.span(1)


def _ends_a_word(text: bytes) -> bool:
    """Whether a piece's (escaped) text ends at a space or line break."""
    return not text or text[-1:] in b" " or text[-2:] in _SPACE_ESCAPES


class DeltaChain:
    """The text of one stream's delta events so far (``context``), and the masks it implies."""

    def __init__(self) -> None:
        self.context = b""

    def edits(
        self, redactor: Redactor, data: bytes, ahead: bytes = b""
    ) -> tuple[list[Edit], list[tuple[int, int]]]:
        """Masks for the delta texts of ``data``'s lines (offsets in ``data``), and those texts.

        Only these masks apply inside those texts: a piece read alone may look
        like what its continuation shows it is not (``password = os.environ``
        then ``["DB_PASSWORD"]``). ``ahead``: the lines held back after
        ``data``: read (a key that ends there starts here), masked when written.
        """
        spans = list(_delta_spans(data))
        if not spans:
            return [], []
        pieces = [data[lo:hi] for lo, hi in spans]
        text = self.context + b"".join(pieces)
        offset = len(self.context)
        self.context = _kept_context(text)
        if b"delta" in ahead:
            text += b"".join(ahead[lo:hi] for lo, hi in _delta_spans(ahead))
        found = redactor._edits_near_candidates(text, None)
        edits: list[Edit] = []
        for start, end, new in found:
            start, end = whole_escapes(text, start, end)
            if end <= offset:
                continue
            pos = offset
            for (lo, _), piece in zip(spans, pieces, strict=True):
                a, b = max(start, pos), min(end, pos + len(piece))
                if b > a:
                    edits.append((lo + a - pos, lo + b - pos, new))
                pos += len(piece)
        return edits, spans


def open_tail(data: bytes, cut: int) -> int:
    """``cut`` moved back before the last delta events whose text ends inside a word.

    Up to ``_WORD_HOLD`` bytes: a longer run of pieces without a space is no secret.
    """
    held = cut
    line_end = cut - 1 if cut and data[cut - 1] == 0x0A else cut
    while line_end > 0:
        line_start = data.rfind(b"\n", 0, line_end) + 1
        span = delta_text(data, line_start, line_end)
        if span is None:
            break
        piece = data[span[0] : span[1]]
        if _ends_a_word(piece):
            break
        if cut - line_start > _WORD_HOLD:
            return cut
        held = line_start
        if b" " in piece or any(escape in piece for escape in _SPACE_ESCAPES):
            break  # the open word starts in this piece
        line_end = line_start - 1
    return held


def _kept_context(text: bytes) -> bytes:
    """What later pieces are read after: the last bytes, or an open private-key block."""
    begin = None
    pos = 0
    while (found := _PEM_PRIVATE_BEGIN.search(text, pos)) is not None:
        end = _PEM_PRIVATE_END.search(text, found.end())
        if end is None:
            begin = found.start()
            break
        pos = end.end()
    if begin is not None and len(text) - begin <= _PEM_CONTEXT:
        return text[begin:]
    return text[-_CONTEXT:]


def _delta_spans(data: bytes) -> Iterator[tuple[int, int]]:
    """The text spans of the delta events in ``data``, found from their "delta" only."""
    pos = data.find(b"delta")
    while pos >= 0:
        line_start = data.rfind(b"\n", 0, pos) + 1
        line_end = data.find(b"\n", pos)
        line_end = len(data) if line_end < 0 else line_end
        span = delta_text(data, line_start, line_end)
        if span is not None:
            yield span
        pos = data.find(b"delta", line_end)
