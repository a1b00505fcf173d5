"""Questions about bytes, each one Hyperscan scan (issue 18).

The transcript asks two questions of every large chunk: which of the bytes that need
an escape beyond ``"`` and a line break it holds (the 29 control bytes, the backslash:
nearly never all), and is it valid UTF-8 (nearly always). Asked in Python, the first
costs a ``memchr`` pass per byte (~35 ms per 100 MB) and the second a full decode to
``str`` (~65-90 ms per 100 MB of mixed text). A single-match Hyperscan scan answers the
first in ~7-11 ms and the second in ~26-38 ms (each non-ASCII byte costs it work; ASCII
is UTF-8 without asking). Issue 18 found one database for both questions slower than
two; on agent-like text (``benchmarks/transcript.py``) issue 43 found the opposite once
the scan reports which pattern matched (``matched``): 8.1-8.9 ms per 20 MB for all of
them against 12.5 ms for three probes, so a chunk that is not ASCII asks once.
The balance depends on the CPU: on another machine of this kind (AMD EPYC,
AVX-512) the decode took 42-61 ms and the scan 56-78 ms per 100 MB of mixed
text, so the scan is kept for the machines where it wins by 2x, not everywhere.
Without Hyperscan (no wheel for the platform, an old CPU)
``BytesProbe.compile`` gives None and the caller asks Python: slower, same answer.

``ScanDatabase``/``compile_database`` are the one Hyperscan wrapper of the
project; the redactor's candidate finder (candidates.py) uses them too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

_CONT = rb"[\x80-\xBF]"
_NOT_CONT = rb"(?:[\x00-\x7F\xC0-\xFF]|\z)"
# Every byte string that is not strict UTF-8 (what ``bytes.decode("utf-8")``
# rejects: overlongs, surrogates, beyond U+10FFFF, cut sequences) contains one
# of these, and valid UTF-8 none. Decoding stops at the first bad byte: either
# a byte no sequence starts with (never valid, or a continuation byte after
# nothing, after ASCII, or after a complete sequence), or a lead byte whose
# next bytes leave its range or end the input.
INVALID_UTF8: tuple[bytes, ...] = (
    rb"[\xC0\xC1\xF5-\xFF]",
    rb"(?:\A|[\x00-\x7F]|[\xC2-\xDF]" + _CONT + rb"|[\xE0-\xEF]" + _CONT + rb"{2}|[\xF0-\xF4]"
    + _CONT + rb"{3})" + _CONT,
    rb"[\xC2-\xDF]" + _NOT_CONT,
    rb"\xE0(?:[\x00-\x9F\xC0-\xFF]|\z|[\xA0-\xBF]" + _NOT_CONT + rb")",
    rb"[\xE1-\xEC\xEE\xEF](?:" + _NOT_CONT + rb"|" + _CONT + _NOT_CONT + rb")",
    rb"\xED(?:[\x00-\x7F\xA0-\xFF]|\z|[\x80-\x9F]" + _NOT_CONT + rb")",
    rb"\xF0(?:[\x00-\x8F\xC0-\xFF]|\z|[\x90-\xBF](?:" + _NOT_CONT + rb"|" + _CONT + _NOT_CONT
    + rb"))",
    rb"[\xF1-\xF3](?:" + _NOT_CONT + rb"|" + _CONT + rb"(?:" + _NOT_CONT + rb"|" + _CONT
    + _NOT_CONT + rb"))",
    rb"\xF4(?:[\x00-\x7F\x90-\xFF]|\z|[\x80-\x8F](?:" + _NOT_CONT + rb"|" + _CONT + _NOT_CONT
    + rb"))",
)  # fmt: skip


def byte_class(members: Iterable[int]) -> bytes:
    """A pattern matching any one of ``members`` (byte values)."""
    return b"[" + b"".join(b"\\x%02x" % byte for byte in sorted(set(members))) + b"]"


class ScanDatabase:
    """A compiled Hyperscan block-mode database; ``scan`` is thread-safe (a scratch per thread).

    The one wrapper of Hyperscan here: ``BytesProbe`` and the redactor's
    ``CandidateFinder`` (candidates.py) both scan through it.
    """

    def __init__(self, database: Any, new_scratch: Any) -> None:
        self._database = database
        self._new_scratch = new_scratch  # hyperscan.Scratch
        self._local = threading.local()  # a scratch per thread, as Hyperscan requires

    def scan(self, data: bytes, on_match: Callable[[int, int, int, int, object], None]) -> None:
        """Call ``on_match(id, start, end, flags, context)`` for each match in ``data``."""
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = self._new_scratch(self._database)
        self._database.scan(data, match_event_handler=on_match, scratch=scratch)


def compile_database(
    expressions: Sequence[bytes], flags: Sequence[Iterable[str]]
) -> ScanDatabase | None:
    """``expressions`` compiled with their ``flags`` (``HS_FLAG_`` names, e.g. ``"CASELESS"``).

    None when Hyperscan cannot be used: no wheel for the platform, a CPU it
    does not support, or a pattern too large for its compiler.
    """
    try:
        import hyperscan
    except ImportError:  # pragma: no cover - hyperscan has wheels for the supported platforms
        return None
    try:
        database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        database.compile(
            expressions=list(expressions),
            ids=list(range(len(expressions))),
            elements=len(expressions),
            flags=[sum(getattr(hyperscan, f"HS_FLAG_{name}") for name in names) for names in flags],
        )
    except Exception:  # pragma: no cover - an unsupported CPU or an oversized pattern
        return None
    return ScanDatabase(database, hyperscan.Scratch)


class BytesProbe:
    """``found(data)``: whether any of the patterns matches in ``data`` (thread-safe)."""

    def __init__(self, database: ScanDatabase) -> None:
        self._database = database

    @classmethod
    def compile(cls, patterns: Iterable[bytes]) -> BytesProbe | None:
        """A probe for these patterns (bytes semantics), or None when Hyperscan cannot be used."""
        expressions = list(patterns)
        database = compile_database(expressions, [("SINGLEMATCH",)] * len(expressions))
        return None if database is None else cls(database)

    def found(self, data: bytes) -> bool:
        """Whether a pattern matches somewhere in ``data``."""
        hits: list[int] = []

        def on_match(_id: int, _start: int, _end: int, _flags: int, _context: object) -> None:
            hits.append(1)  # once per pattern: they are single-match

        self._database.scan(data, on_match)
        return bool(hits)

    def matched(self, data: bytes) -> set[int]:
        """The indices of the patterns that match somewhere in ``data`` (one scan)."""
        hits: set[int] = set()

        def on_match(id_: int, _start: int, _end: int, _flags: int, _context: object) -> None:
            hits.add(id_)  # once per pattern: they are single-match

        self._database.scan(data, on_match)
        return hits
