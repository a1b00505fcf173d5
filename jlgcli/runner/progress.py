"""No-progress detection (RG-013): stop a loop whose output keeps repeating.

Definition
----------
``similarity(a, b)`` is the Jaccard index ``|A ∩ B| / |A ∪ B|`` of the two
outputs' sets of **units**, after normalisation: terminal escapes removed,
lower case, blank lines dropped, clock times, dates and durations
(``10:42:07``, ``2026-11-23``, ``12.3s``, ``350 ms``) replaced by one token,
punctuation (``. ! ? ; : , " ' ( ) …``, not symbols such as ``+ = <``) read as
a space: "Working on it." and "Working on it!" say the same (issue 48).
Other numbers are kept as tokens: "file 2 of 7" and "file 3 of 7" differ,
because a counter that moves is what progress looks like (issue 17; an
earlier rule deleted every digit and stopped loops that were progressing).

* When both outputs are shorter than 64 Ki characters the units are **word
  3-shingles** (every run of three consecutive words, escapes and CR redraws
  removed by ``jlgcli.ansi.clean_terminal_text``): one changed word in a
  short reply is a real change, a changed timestamp is not.
* Otherwise the units are **lines** with blanks and control characters
  deleted, computed on UTF-8 bytes: linear and about 0.1 s for 10 MB (difflib
  or full-text fuzzy ratios take tens of seconds there). Time noise is not
  removed in this mode (a regex pass would cost 5x): a log whose timestamps
  move reads as progress, the safe side (no false stop).

Identical texts are 1.0, two empty outputs too.

``NoProgressDetector(limit, threshold)`` counts consecutive outputs whose
similarity to their predecessor is at least ``threshold`` (0.9 by default:
near-identical) *and* that left the work tree as it was; ``observe`` returns
True once the count reaches ``limit``. A change in the work tree since the
previous iteration is progress whatever the reply says. With ``limit=3`` the
fourth identical output in a row, with no file changed, stops the loop.
"""

from __future__ import annotations

import re

from jlgcli.ansi import clean_terminal_text

__all__ = ["NoProgressDetector", "normalise", "similarity"]

SHINGLE_LIMIT = 64 * 1024  # characters; when both texts are shorter, compare word 3-shingles

_TRANSLATE = {ord("\t"): " "}
# Time noise: ISO dates/times, clock times, durations (a number with a time unit).
_TIME_NOISE = (
    r"\d{4}-\d{2}-\d{2}(?:[t ]\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?z?)?"
    r"|\b\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?\b"
    r"|\b\d+(?:\.\d+)? ?(?:ms|s|sec|secs|seconds?|min|mins|minutes?|h|hours?)\b"
)
_TIME_TEXT = re.compile(_TIME_NOISE)
_SPACES = re.compile("  +")
# Punctuation (Unicode P*: ASCII, general punctuation, CJK and full-width forms), never
# symbols or digits: a changed sign or number is a change. ``_`` stays (part of words).
# A pattern string: compiled on the first reply (re's cache), not before the first spawn.
_PUNCTUATION = (
    r"[!\"#%&'()*,\-./:;?@\[\\\]{}\u00a1\u00a7\u00ab\u00b6\u00b7\u00bb\u00bf"
    r"\u2010-\u2027\u2030-\u205e\u3001-\u3003\u3008-\u3011\u3014-\u301f\uff01-\uff0f"
    r"\uff1a\uff1b\uff1f\uff20]+"
)
# Large texts are normalised as UTF-8 bytes (C-speed lower/translate/split; the str
# versions are 10x slower on non-ASCII text): blanks and C0 controls other than
# newline are deleted, escape sequences removed by a literal-prefix regex.
_DELETE_BYTES = b" " + bytes(c for c in range(32) if c != 10) + b"\x7f"
_ESCAPE_BYTES = re.compile(
    rb"\x1b(?:\[[0-?]*[ -/]*[@-~]"  # CSI
    rb"|\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC
    rb"|[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC
    rb"|[ -/]*[0-~])?"  # two-byte and charset sequences
)

_Unit = tuple[str, ...] | bytes


def normalise(text: str) -> str:
    """The text as compared in word mode: see the module docstring."""
    if "\x1b" in text or "\x9b" in text or "\r" in text:
        text = clean_terminal_text(text)
    text = _TIME_TEXT.sub("<t>", text.lower().translate(_TRANSLATE))
    text = _SPACES.sub(" ", re.sub(_PUNCTUATION, " ", text))
    return "\n".join(filter(None, map(str.strip, text.split("\n"))))


class _Features:
    """One output and its unit sets, each computed at most once."""

    __slots__ = ("_lines", "_shingles", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._lines: set[_Unit] | None = None
        self._shingles: set[_Unit] | None = None

    def lines(self) -> set[_Unit]:
        if self._lines is None:
            data = self.text.encode("utf-8", "surrogatepass")
            if b"\x1b" in data:
                data = _ESCAPE_BYTES.sub(b"", data)
            units: set[_Unit] = set(data.lower().translate(None, _DELETE_BYTES).split(b"\n"))
            units.discard(b"")
            self._lines = units
        return self._lines

    def shingles(self) -> set[_Unit]:
        if self._shingles is None:
            words = normalise(self.text).split()
            if len(words) < 3:
                self._shingles = {tuple(words)} if words else set()
            else:
                self._shingles = set(zip(words, words[1:], words[2:], strict=False))
        return self._shingles

    def similarity(self, other: _Features) -> float:
        if self.text == other.text:
            return 1.0
        if len(self.text) < SHINGLE_LIMIT and len(other.text) < SHINGLE_LIMIT:
            mine, theirs = self.shingles(), other.shingles()
        else:
            mine, theirs = self.lines(), other.lines()
        common = len(mine & theirs)
        union = len(mine) + len(theirs) - common
        return common / union if union else 1.0


def similarity(a: str, b: str) -> float:
    """How alike two outputs are, in [0, 1] (1.0: the same after normalisation)."""
    return _Features(a).similarity(_Features(b))


class NoProgressDetector:
    """RG-013: True from ``observe`` once ``limit`` outputs in a row repeat their predecessor."""

    def __init__(self, limit: int, threshold: float = 0.9) -> None:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, not {limit}")
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], not {threshold}")
        self.limit = limit
        self.threshold = threshold
        self.streak = 0  # consecutive outputs near-identical to their predecessor
        self.last_similarity: float | None = None
        self._previous: _Features | None = None

    def observe(self, text: str, *, worktree_changed: bool = False) -> bool:
        """Record one iteration's output; True when the loop should stop for no progress.

        ``worktree_changed``: files changed during the iteration, which is progress.
        """
        current = _Features(text)
        if self._previous is not None:
            self.last_similarity = current.similarity(self._previous)
            repeated = self.last_similarity >= self.threshold and not worktree_changed
            self.streak = self.streak + 1 if repeated else 0
        self._previous = current
        return self.streak >= self.limit

    def reset(self) -> None:
        """Forget the history (e.g. after the task changed)."""
        self.streak = 0
        self.last_similarity = None
        self._previous = None
