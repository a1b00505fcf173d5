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

from collections.abc import Iterable

from jlgcli.artifacts.probes import ScanDatabase, compile_database
from jlgcli.artifacts.rules import CONTEXT_CANDIDATES, TOKEN_CANDIDATES
from jlgcli.lazy_re import lazy

PEM_BEGIN = b"-----BEGIN"
# The END line that closes a private-key block (the one redact's rule waits for: a
# PUBLIC KEY's END line inside an unterminated block does not close it).
_PEM_PRIVATE_END = lazy(rb"-----END[ A-Z0-9]{0,64}PRIVATE KEY(?: BLOCK)?-----")
_TOKEN_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_SNAP_CHARS = _TOKEN_CHARS | frozenset(b". \t\"':=/+~")

# The rule families (bit flags) of exact.py: a window runs the families of the
# candidates it holds, so each family's candidates are a superset of its rules.
# TOKENS: the provider tokens led by a literal; CLASS_TOKENS: those led by a class
# (Twilio ``SK``, Telegram, Discord), whose candidates give only their end.
TOKENS = 1
ANCHORED = 2
BEARER = 4
AUTHORIZATION = 8
CONTEXTS = 16
ASSIGNMENTS = 32
LITERALS = 64
CLASS_TOKENS = 128
ALL = 255
# Not rule families: what a scan reports in ``spans(seen=…)``. DELTAS: a line that may
# be a delta event (deltas.py), reported once per scan, never as a candidate (issue 43: a
# substring search of every read for it cost the redacted transcript a quarter of its
# speed). PEM: a "-----BEGIN" (an ANCHORED candidate too), so the stream redactor knows
# without reading the candidates again whether a private-key block may be open.
DELTAS = 256
PEM = 512
# The families whose candidates start where their rule's match starts: matched
# right there (exact.directed_edits) instead of searched for in the window.
DIRECTED = TOKENS | BEARER | AUTHORIZATION | CONTEXTS

# Where a secret may be, as (pattern, ignore case, families). Hyperscan syntax: no
# look-around.
CANDIDATE_PATTERNS: tuple[tuple[bytes, bool, int], ...] = (
    *((pattern, False, TOKENS) for pattern in TOKEN_CANDIDATES[:-1]),
    (rb"://", False, ANCHORED),
    (rb"-----BEGIN", False, ANCHORED | PEM),
    (rb"bearer(?:[ \t]|\\t)", True, BEARER),
    (rb"authorization", True, AUTHORIZATION),
    (CONTEXT_CANDIDATES, True, CONTEXTS),
    # an escaped ASCII character (\u0073k-…) or escaped ESC: read decoded (views.py),
    # where any family may be
    (rb"\\u00[0-7][0-9a-fA-F]", False, ALL),
)
# Patterns that start with a repeat or a character class: asked for their end only
# (no SOM_LEFTMOST: the leftmost start of "name [ \t]*=" alone made the whole scan
# 3x slower). Their window is the line around that end, which holds the start too.
END_ONLY_PATTERNS: tuple[tuple[bytes, bool, int], ...] = (
    (TOKEN_CANDIDATES[-1], False, CLASS_TOKENS),
    (
        rb"(?:token|key|secret|pass(?:w(?:or)?d|phrase)?|pwd|cred(?:ential)?s?|cookies?)"
        rb"(?:_?[0-9]{1,3})?\\?[\"']?(?:[ \t]|\\t)*[:=]",
        True,
        ASSIGNMENTS,
    ),
    # An escape sequence glued between two token characters may split a token's prefix
    # (s\x1b[1mk-ant-…): its line is read decoded, where any family may be. Colour
    # around words (a space or a line end on one side) is no candidate.
    # (at most 64 parameter bytes, as views.py decodes: bounded, the scan is ~3 ms per
    # 20 MB faster on coloured output)
    (
        rb"[A-Za-z0-9_.\-]\x1b(?:\[[0-9;?]{0,64}[A-Za-z~]|[()][A-Za-z0-9])[A-Za-z0-9_.\-]",
        False,
        ALL,
    ),
)
# Inputs shorter than this are read by the exact rules directly (faster than a scan
# plus windows, and no database to compile for a short run).
FINDER_MIN = 8 * 1024
# Once compiled (a longer input asked for it), the finder reads inputs from this size on.
COMPILED_MIN = 512
# Around a candidate, the exact rules see its whole line, at most this far each way.
_WINDOW = 4096 + 256
_LINE_SNAP = 1024

Candidate = tuple[int, int, int]  # (start, end, families)
Window = tuple[int, int, int, list[Candidate]]  # (start, end, families, candidates)


class CandidateFinder:
    """A compiled candidate database; ``spans`` is thread-safe (probes.ScanDatabase)."""

    def __init__(self, database: ScanDatabase, families: list[int], end_only: range) -> None:
        self._database = database
        self._families = families  # by pattern id
        self._end_only = end_only  # the ids of END_ONLY_PATTERNS

    def spans(self, data: bytes, seen: set[int] | None = None) -> list[Candidate]:
        """Every candidate's (start, end, families) in ``data``, sorted by start (``end``
        for both of a name-before-separator candidate).

        ``seen`` gets ``DELTAS`` when ``data`` may hold a delta event, ``PEM`` when it
        holds a ``-----BEGIN``.
        """
        found: list[Candidate] = []
        add = found.append
        families, end_only = self._families, self._end_only

        def on_match(id_: int, start: int, end: int, _flags: int, _context: object) -> None:
            family = families[id_]
            if family > ALL:  # a flag (DELTAS: no candidate; PEM: an ANCHORED one)
                if seen is not None:
                    seen.add(family & ~ANCHORED)
                if family == DELTAS:
                    return
                family = ANCHORED
            add((end if id_ in end_only else start, end, family))

        self._database.scan(data, on_match)
        found.sort()  # reported by end offset
        return found


def compile_candidates(literals: Iterable[bytes]) -> CandidateFinder | None:
    """The candidate finder for these literals, or None when Hyperscan cannot be used.

    None (no wheel for the platform, a CPU without SSSE3, a literal too large
    for the compiler) means the exact rules scan everything: slower, same result.
    """
    expressions = [pattern for pattern, _, _ in CANDIDATE_PATTERNS]
    flags: list[tuple[str, ...]] = [("SOM_LEFTMOST", "CASELESS") if nocase else ("SOM_LEFTMOST",)
                                    for _, nocase, _ in CANDIDATE_PATTERNS]  # fmt: skip
    families = [family for _, _, family in CANDIDATE_PATTERNS]
    end_only = range(len(expressions), len(expressions) + len(END_ONLY_PATTERNS))
    expressions += [pattern for pattern, _, _ in END_ONLY_PATTERNS]
    flags += [("CASELESS",) if nocase else () for _, nocase, _ in END_ONLY_PATTERNS]
    families += [family for _, _, family in END_ONLY_PATTERNS]
    expressions.append(b"delta")
    flags.append(("SINGLEMATCH",))
    families.append(DELTAS)
    for literal in literals:
        expressions.append(b"".join(b"\\x%02x" % byte for byte in literal))
        flags.append(("SOM_LEFTMOST",))
        families.append(LITERALS)
    database = compile_database(expressions, flags)
    return None if database is None else CandidateFinder(database, families, end_only)


def windows(data: bytes, spans: Iterable[Candidate]) -> list[Window]:
    """Merged spans around candidates (sorted by start): their lines, clipped to ``_WINDOW``,
    with the union of their families and the candidates themselves.

    A clipped start moves back to a non-name character, so a window never begins
    inside a word (the exact rules would take its tail for a token start). A
    private-key block extends its window to its END line.
    """
    merged: list[Window] = []  # a list, not a generator: ~1 us less per window
    size = len(data)
    lo = hi = -1
    families = 0
    members: list[Candidate] = []
    for candidate in spans:
        start, end, found = candidate
        if start < hi:
            # (a candidate ending before the window's closing line break ends there too)
            if end >= hi or data[hi - 1] != 0x0A or data.startswith(PEM_BEGIN, start):
                hi = max(hi, _window_end(data, end, size, start))
            families |= found
            members.append(candidate)
            continue
        if hi >= 0:
            merged.append((lo, hi, families, members))
        lo, hi = _window_start(data, start), _window_end(data, end, size, start)
        families, members = found, [candidate]
    if hi >= 0:
        merged.append((lo, hi, families, members))
    return merged


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
        closed = _PEM_PRIVATE_END.search(data, end, end + 65_536 + 256)
        end = size if closed is None else closed.end()
    ceiling = min(size, end + _WINDOW)
    found = data.find(b"\n", end, ceiling)
    return ceiling if found < 0 else found + 1
