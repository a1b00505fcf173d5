"""Where a secret may be: the fast half of redaction (issue 18).

One Hyperscan database (``hyperscan``: Intel's SIMD multi-pattern matcher,
~2 GB/s on agent output where RE2 ran at ~600 MB/s and a ``re`` alternation at
15-60 MB/s) finds the places that may hold a secret; ``windows`` turns them
into the spans (lines, bounded) the exact rules of ``redact.py`` then examine.
The patterns are a superset of those rules, so the result is the same as
scanning everything.

The database is compiled on first use (10-40 ms with the issue-32 families, plus ~5 ms
to import the
module): the redactor only asks for it on inputs of ``FINDER_MIN`` bytes or
more, so a run whose output is short never pays for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from jlgcli.artifacts.probes import ScanDatabase, compile_database
from jlgcli.artifacts.rules import CONTEXT_CANDIDATES, TOKEN_CANDIDATES

PEM_BEGIN = b"-----BEGIN"
PEM_END = b"-----END"
_TOKEN_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_SNAP_CHARS = _TOKEN_CHARS | frozenset(b". \t\"':=/+~")

# Where a secret may be (a superset of every exact rule in redact.py), as
# (pattern, ignore case). Hyperscan syntax: no look-around.
CANDIDATE_PATTERNS: tuple[tuple[bytes, bool], ...] = (
    *((pattern, False) for pattern in TOKEN_CANDIDATES[:-1]),
    (rb"://|-----BEGIN", False),
    (rb"bearer[ \t]|authorization|" + CONTEXT_CANDIDATES, True),
    # an escaped ASCII character (\u0073k-…) or escaped ESC: read decoded (views.py)
    (rb"\\u00[0-7][0-9a-fA-F]", False),
)
# Patterns that start with a repeat or a character class: asked for their end only
# (no SOM_LEFTMOST: the leftmost start of "name [ \t]*=" alone made the whole scan
# 3x slower). Their window is the line around that end, which holds the start too.
END_ONLY_PATTERNS: tuple[tuple[bytes, bool], ...] = (
    (TOKEN_CANDIDATES[-1], False),
    (
        rb"(?:token|key|secret|pass(?:w(?:or)?d|phrase)?|pwd|cred(?:ential)?s?|cookies?)"
        rb"(?:_?[0-9]{1,3})?\\?[\"']?[ \t]*[:=]",
        True,
    ),
)
# Inputs shorter than this are read by the exact rules directly (faster than a scan
# plus windows, and no database to compile for a short run).
FINDER_MIN = 8 * 1024
# Around a candidate, the exact rules see its whole line, at most this far each way.
_WINDOW = 4096 + 256
_LINE_SNAP = 1024

Span = tuple[int, int]


class CandidateFinder:
    """A compiled candidate database; ``spans`` is thread-safe (probes.ScanDatabase)."""

    def __init__(self, database: ScanDatabase, end_only: int) -> None:
        self._database = database
        self._end_only = end_only  # the ids of END_ONLY_PATTERNS start here

    def spans(self, data: bytes) -> list[Span]:
        """Every candidate's (start, end) in ``data``, sorted by start (``end`` for both
        of a name-before-separator candidate)."""
        found: list[Span] = []
        add = found.append
        end_only = self._end_only

        def on_match(id_: int, start: int, end: int, _flags: int, _context: object) -> None:
            add((end, end) if end_only <= id_ < end_only + len(END_ONLY_PATTERNS) else (start, end))

        self._database.scan(data, on_match)
        found.sort()  # reported by end offset
        return found


def compile_candidates(literals: Iterable[bytes]) -> CandidateFinder | None:
    """The candidate finder for these literals, or None when Hyperscan cannot be used.

    None (no wheel for the platform, a CPU without SSSE3, a literal too large
    for the compiler) means the exact rules scan everything: slower, same result.
    """
    expressions = [pattern for pattern, _ in CANDIDATE_PATTERNS]
    flags: list[tuple[str, ...]] = [("SOM_LEFTMOST", "CASELESS") if nocase else ("SOM_LEFTMOST",)
                                    for _, nocase in CANDIDATE_PATTERNS]  # fmt: skip
    end_only = len(expressions)
    expressions += [pattern for pattern, _ in END_ONLY_PATTERNS]
    flags += [("CASELESS",) if nocase else () for _, nocase in END_ONLY_PATTERNS]
    for literal in literals:
        expressions.append(b"".join(b"\\x%02x" % byte for byte in literal))
        flags.append(("SOM_LEFTMOST",))
    database = compile_database(expressions, flags)
    return None if database is None else CandidateFinder(database, end_only)


def windows(data: bytes, spans: Iterable[Span]) -> Iterator[Span]:
    """Merged spans around candidates (sorted by start): their lines, clipped to ``_WINDOW``.

    A clipped start moves back to a non-name character, so a window never begins
    inside a word (the exact rules would take its tail for a token start). A
    private-key block extends its window to its END line.
    """
    size = len(data)
    lo = hi = -1
    for start, end in spans:
        if start < hi:
            hi = max(hi, _window_end(data, end, size, start))
            continue
        if hi >= 0:
            yield lo, hi
        lo, hi = _window_start(data, start), _window_end(data, end, size, start)
    if hi >= 0:
        yield lo, hi


def _window_start(data: bytes, start: int) -> int:
    floor = max(0, start - _WINDOW)
    lo = data.rfind(b"\n", floor, start) + 1 or floor
    if lo == floor and floor > 0:
        limit = max(0, lo - _LINE_SNAP)
        while lo > limit and data[lo - 1] in _SNAP_CHARS:
            lo -= 1
    return lo


def _window_end(data: bytes, end: int, size: int, start: int) -> int:
    if data.startswith(PEM_BEGIN, start):
        found = data.find(PEM_END, end, end + 65_536 + 256)
        end = size if found < 0 else found + len(PEM_END)
    ceiling = min(size, end + _WINDOW)
    found = data.find(b"\n", end, ceiling)
    return ceiling if found < 0 else found + 1
