"""The right-to-left scanner behind ``json_objects`` (its module docstring has the design).

Positions: ``rev`` is a reversed tail of the text; ``rev[i]`` is
``text[n - 1 - i]``. Every regular expression here reads ``rev``, so JSON
appears backwards in them: ``eurt`` is ``true``, and a string's closing quote
comes first.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from json.scanner import make_scanner
from typing import Any

MAX_DEPTH = 128  # far below json's recursion limit; real agent JSON nests < 20 deep
_FIRST_WINDOW = 1 << 16
_EDGE = 8  # a token ending this close to a window edge may continue past it
_LOOK_MAX = 8192  # the longest text the prose-mode look-ahead reads after a closer
_GUESS_MAX = 4096  # how far back the shortcut looks for an opener

_EVEN_BS = r"(?=(?:\\\\)*(?!\\))"  # followed (= preceded in the text) by 2k backslashes
_ODD_BS = r"(?=(?:\\\\)*\\(?!\\))"
_CHARS = r'[^"\x00-\x1f]'
_STRING = rf'"{_EVEN_BS}{_CHARS}*(?:"{_ODD_BS}{_CHARS}*)*"{_EVEN_BS}'
_FILL = r"[ \t\r\n,:0-9.E+\-]+|e(?:urt|slaf)?|llun"  # blanks, punctuation, numbers, literals
# Everything between two brackets is one token, 32 strings/runs at most so that a
# step stays bounded (the budget charges a step 1 + length // 16).
_TOKEN = re.compile(
    rf"(?P<flat>(?:{_STRING}|{_FILL}){{1,32}})"
    r"|(?P<close>[}\]]+)"
    r"|(?P<open>[{\[])"
)
# What may precede a closer in JSON (read leftwards): a member's value followed by
# ``:``/``,``/``[``, or a bracket. Bounded to _LOOK_MAX characters: when a bound is
# reached the closer is accepted and the tokenizer decides.
_AFTER_VALUE = r"(?:[ \t\r\n]{0,255}[:,\[]|[ \t\r\n]{256})"
_STRING_END = (
    rf'"{_EVEN_BS}(?=({_CHARS}{{0,4096}}))\1'  # atomic: no backtracking into the run
    rf'(?:"{_ODD_BS}|"{_AFTER_VALUE}|{_CHARS})'
)
_VALUE_END = (
    r'(?=[ \t\r\n{\[}\]"0-9el])'  # a cheap first test: most prose closers fail here
    r"(?=[ \t\r\n]{256}|[ \t\r\n]{0,255}(?:"
    r"[{\[}\]]"
    rf"|{_STRING_END}"
    rf"|[0-9](?:[0-9.eE+\-]{{64}}|[0-9.eE+\-]{{0,63}}{_AFTER_VALUE})"
    rf"|(?:eurt|eslaf|llun){_AFTER_VALUE}))"
)
_BRACE = re.compile(r"\}" + _VALUE_END)
_BRACKET = re.compile(r"\]" + _VALUE_END)
_CTRL = re.compile(r"[\x00-\x1f]")
_EVEN_QUOTE = re.compile(rf'"{_EVEN_BS}')
_BACKSLASHES_TO_END = re.compile(r"\\*\Z")
_MATCHING = {"{": "}", "[": "]"}
_OPENING = {"}": "{", "]": "["}


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


DECODER = json.JSONDecoder(parse_constant=_no_constants)  # strict: no NaN/Infinity
_scan_once = make_scanner(DECODER)  # type: ignore[arg-type]  # raw_decode minus its wrapper

# A span: (start, end) in the text, and its completed child spans, rightmost first.
Span = tuple[int, int, list[Any]]


class Budget:
    """Python-level work left (tokens, decodes); the scan stops at zero."""

    __slots__ = ("left",)

    def __init__(self, steps: int) -> None:
        self.left = steps


class Needles:
    """Where the wanted objects can still be: text holding one of ``needles``.

    A caller that only wants objects with a given key (``"status"``) passes
    the key as it appears in JSON, plus ``\\u`` (an escaped key such as
    ``"st\\u0061tus"`` decodes to it too). ``any_before(t)`` says whether
    ``text[:t]`` still holds one; as ``t`` only decreases, each needle's text is
    searched once in all (linear).
    """

    __slots__ = ("found", "needles", "text")

    def __init__(self, text: str, needles: tuple[str, ...]) -> None:
        self.text = text
        self.needles = needles
        self.found = [len(text) + 1] * len(needles)  # an occurrence's end, -1: none left

    def any_before(self, t: int) -> bool:
        """True when some needle lies entirely inside ``text[:t]``."""
        if not self.needles:
            return True
        for k, needle in enumerate(self.needles):
            end = self.found[k]
            if end > t:  # not inside text[:t] (or not searched yet): search leftwards
                start = self.text.rfind(needle, 0, t)
                end = self.found[k] = -1 if start < 0 else start + len(needle)
            if end >= 0:
                return True
        return False


class _Window:
    """``text[lo:]`` reversed, grown x4 on demand (total copying <= 4n/3)."""

    __slots__ = ("lo", "rev", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.lo = max(0, len(text) - _FIRST_WINDOW)
        self.rev = text[self.lo :][::-1]

    def grow(self) -> bool:
        if self.lo == 0:
            return False
        lo = max(0, len(self.text) - 4 * (len(self.text) - self.lo))  # x4: fewer copies
        self.rev += self.text[lo : self.lo][::-1]  # reverse only the new part
        self.lo = lo
        return True


class _Closers:
    """Prose mode: the next ``}`` or ``]`` in ``rev`` that could end a JSON value.

    Each pattern remembers its next match (valid while the scan has not passed
    it) or, when none was found, where to search from once the window grows.
    """

    __slots__ = ("brace", "brace_from", "bracket", "bracket_from", "win")

    def __init__(self, win: _Window) -> None:
        self.win = win
        self.rewind()

    def rewind(self) -> None:
        """Forget everything: the scan goes back to an earlier position."""
        self.brace = self.bracket = -2  # a position; -1: none before *_from; -2: search
        self.brace_from = self.bracket_from = 0

    def grow(self) -> bool:
        """Grow the window; searches that found nothing must run again."""
        if not self.win.grow():
            return False
        if self.brace == -1:
            self.brace = -2
        if self.bracket == -1:
            self.bracket = -2
        return True

    def next(self, i: int) -> int:
        """The first candidate closer at or after ``i``, or -1 at the start of the text."""
        while True:
            brace, bracket = self.brace, self.bracket
            rev = self.win.rev
            safe = len(rev) - _LOOK_MAX if self.win.lo else len(rev) + 1
            if brace == -2 or 0 <= brace < i:
                start = i if i > self.brace_from else self.brace_from
                m = _BRACE.search(rev, start)
                brace = -1 if m is None else m.start()
                if brace >= safe or brace < 0:  # near the edge the look-ahead was cut
                    brace, self.brace_from = -1, start if start > safe else safe
                self.brace = brace
            if bracket == -2 or 0 <= bracket < i:
                start = i if i > self.bracket_from else self.bracket_from
                m = _BRACKET.search(rev, start)
                bracket = -1 if m is None else m.start()
                if bracket >= safe or bracket < 0:
                    bracket, self.bracket_from = -1, start if start > safe else safe
                self.bracket = bracket
            if brace >= 0 and (bracket < 0 or brace < bracket):
                return brace
            if bracket >= 0:
                return bracket
            if not self.grow():
                return -1


def _cut_backslashes(rev: str, stop: int) -> bool:
    """A string's closing-quote test read backslashes up to the window edge."""
    return rev.startswith("\\", stop) and _BACKSLASHES_TO_END.match(rev, stop) is not None


def _guess(text: str, end: int) -> tuple[int, Any] | None:
    """The JSON value ending at ``end``, found by guessing its start, or None.

    A valid value ending at a given closer has exactly one possible start (the
    opener the backward tokenizer would match), so any guess that decodes to
    exactly ``[start, end)`` is the answer. Two cheap guesses, the last opener
    (flat objects) and the line's first opener (one-line nested objects such as
    stream events), each decoding at most _GUESS_MAX characters.
    """
    opener = _OPENING[text[end - 1]]
    floor = end - _GUESS_MAX if end > _GUESS_MAX else 0
    last = text.rfind(opener, floor, end)
    if last < 0:
        return None
    first = -1
    if text[end - 2] not in "}]":  # flat: the last opener is the likely one
        found = _decode_exactly(text, last, end)
        if found is not None:
            return found
    else:  # after a nested end the last opener is an inner one: the line's first
        line = text.rfind("\n", floor, end) + 1
        first = text.find(opener, line if line > floor else floor, end)
        if first != last:
            found = _decode_exactly(text, first, end)
            if found is not None:
                return found
        return _decode_exactly(text, last, end)
    line = text.rfind("\n", floor, end) + 1
    first = text.find(opener, line if line > floor else floor, end)
    return None if first in (last, -1) else _decode_exactly(text, first, end)


def _decode_exactly(text: str, start: int, end: int) -> tuple[int, Any] | None:
    piece = text[start:end]
    try:
        value, stop = _scan_once(piece, 0)
    except (ValueError, RecursionError, StopIteration):
        return None
    if stop != len(piece):
        return None
    if stop > 2 * MAX_DEPTH and piece.count("{") + piece.count("[") > MAX_DEPTH:
        return None  # possibly too deep: the tokenizer applies the limit exactly
    return start, value


def scan(
    text: str, budget: Budget, needles: Needles | None = None
) -> Iterator[Span | dict[str, Any]]:
    """Top-level candidates right to left: decoded objects, or spans to decode.

    With ``needles``, the scan ends where no text left of it holds one: every
    candidate still to come lies there, so none could be a wanted object.
    """
    n = len(text)
    win = _Window(text)
    ahead = _Closers(win)
    i = 0
    no_rescan_before = 0
    while True:
        i = ahead.next(i)
        if i < 0 or budget.left <= 0:
            return
        if needles is not None and not needles.any_before(n - i):
            return
        budget.left -= 3
        guessed = _guess(text, n - i)
        if guessed is not None:
            start, value = guessed
            if isinstance(value, dict):
                yield value
            i = n - start  # an array: the objects inside it are nested
            continue
        # Candidate mode: tokenize backwards from the closer at rev[i].
        rev = win.rev
        edge = len(rev) - _EDGE if win.lo else n + _EDGE
        started = i
        closers: list[str] = []
        ends: list[int] = []  # text index just after each open closer
        kids: list[list[Span]] = []
        first_quote = -1
        resume = -1  # where prose mode resumes after a reset
        while True:
            if budget.left <= 0:
                return
            budget.left -= 1
            m = _TOKEN.match(rev, i)
            stop = i if m is None else m.end()
            if win.lo and (stop > edge or _cut_backslashes(rev, stop)):
                ahead.grow()
                rev = win.rev
                edge = len(rev) - _EDGE if win.lo else n + _EDGE
                continue
            if m is None:
                if i >= len(rev):  # the start of the text: open candidates fail
                    resume = i
                elif rev[i] == '"' and _EVEN_QUOTE.match(rev, i):
                    # An unterminated string: no string can start before what ends it.
                    ctrl = _CTRL.search(rev, i)
                    if ctrl is None and ahead.grow():
                        rev = win.rev
                        edge = len(rev) - _EDGE if win.lo else n + _EDGE
                        continue
                    resume = ctrl.start() if ctrl else len(rev)
                else:  # prose, or a control character outside a string
                    resume = i + 1
                break
            kind = m.lastgroup
            if kind == "flat":
                budget.left -= (stop - i) >> 4
                if first_quote < 0:
                    first_quote = rev.find('"', i, stop)
            elif kind == "close":
                if len(closers) + stop - i > MAX_DEPTH:
                    resume = stop  # the whole too-deep run is prose
                    break
                for k, ch in enumerate(rev[i:stop]):
                    closers.append(ch)
                    ends.append(n - i - k)
                    kids.append([])
            elif closers[-1] != _MATCHING[m.group()]:
                resume = i + 1
                break
            else:
                closers.pop()
                span = (n - 1 - i, ends.pop(), kids.pop())
                if closers:
                    kids[-1].append(span)
                else:
                    yield span
                    i = stop
                    break
            i = stop
        if resume < 0:
            continue
        # A reset: the open candidates fail; their completed children are top-level.
        if first_quote < 0 or started < no_rescan_before:
            for frame in kids:
                yield from frame
            i = resume
            continue
        # But a string of the failed candidate may have swallowed the end of a real
        # object (`{"a":"b"}",1}`): re-scan from inside its first string, once per
        # region (so at most twice in all). Children left of that quote are found
        # again by the re-scan; the others (ending right of it) are promoted now.
        quote_at = n - 1 - first_quote
        i = first_quote + 1
        for frame in kids:
            for kid in frame:
                if kid[1] > quote_at:
                    yield kid
                    i = max(i, n - kid[0])  # never re-scan inside a promoted child
        no_rescan_before = resume
        ahead.rewind()
