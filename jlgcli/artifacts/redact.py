"""Best-effort redaction of secrets in everything jlgcli writes (RG-007, DESIGN "secrets").

Recognised (docs/secrets.md): the provider token shapes of ``rules.py`` (taken
from gitleaks' rules, MIT, each pattern naming its rule), ``Bearer``/``Authorization``
credentials, URL user-info passwords (``postgres://admin:pw@db``), Sentry-style DSN
keys, PEM/PGP private-key blocks (held back across reads until their END line),
``curl -u``/``mysql -p``/netrc/Docker ``auth`` secrets, values assigned to secret
names (``NAME=value``, ``"name": "value"``, ``name: value``; ``is_secret_name``)
and, verbatim, the values (8+ characters) of such variables in the environment.
Tokens are found wherever they start, and lines holding a backslash or an ESC
byte are also read decoded (``views.py``): issue 32.

Speed (issue 18): on inputs of 8 KiB or more, one Hyperscan database
(``candidates.py``: a SIMD multi-pattern matcher, ~2 GB/s where ``re``
alternations run at 15-60 MB/s) finds the few places that may hold a secret — a
provider prefix, ``://``, ``-----BEGIN``, a secret-sounding name before
``=``/``:``, ``Bearer``, ``Authorization``, a known literal; the exact rules of
``exact.py`` then run there only, and only the families whose candidates were
found (issue 32); once compiled, it reads inputs of 512 bytes or more too (issue 50).
Shorter inputs, and platforms without a Hyperscan wheel, get the exact rules on
everything, with the same result.

It works on UTF-8 bytes: ``bytes.lower()`` is ASCII-only, so indices in the
lowered copy are indices in the original. Every scan is a substring search or a
pattern starting with a literal, which ``re`` runs at ~1.5 GB/s (a pattern
starting with a look-behind or a character class is 20x slower); patterns are
bounded, so the cost is linear in the input (~130 MB/s in all). It never raises.
"""

from __future__ import annotations

import os
import sys
import threading
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence

from jlgcli.artifacts.candidates import (
    ALL,
    CLASS_TOKENS,
    COMPILED_MIN,
    DIRECTED,
    FINDER_MIN,
    TOKENS,
    Candidate,
    CandidateFinder,
    Window,
    compile_candidates,
    windows,
)
from jlgcli.artifacts.escapes import Edit, masks
from jlgcli.artifacts.exact import directed_edits, spelled_edits
from jlgcli.artifacts.exact import is_secret_name as is_secret_name  # importable from here
from jlgcli.artifacts.views import DecodedView, needs_view

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any, NewType

    from jlgcli.artifacts.streaming import StreamRedactor as StreamRedactor

MASK = "[REDACTED]"
# Text that went through a Redactor. The functions that show text to a person
# (output.show, the dev reporter) take only this type: a new door that hands
# them raw text fails the type check (mypy --strict), not a review (issue 32).
# At run time ``Redacted(text)`` is the text itself, as NewType's call is (a run
# imports no typing, issue 49).
if TYPE_CHECKING:
    Redacted = NewType("Redacted", str)
else:
    Redacted = str
ENV_VALUE_MIN = 8
_VIEW_DEPTH = 3


class Redactor:
    """Replaces secrets with ``[REDACTED]`` and counts how many it replaced (thread-safe).

    ``environ``: the variables whose secret-named values are masked verbatim
    (default: ``os.environ`` now); ``extra_values``: more literal secrets.
    """

    def __init__(
        self, *, environ: Mapping[str, str] | None = None, extra_values: Iterable[str] = ()
    ) -> None:
        env = os.environ if environ is None else environ
        values = {v for k, v in env.items() if len(v) >= ENV_VALUE_MIN and is_secret_name(k)}
        values.update(v for v in extra_values if len(v) >= ENV_VALUE_MIN)
        encoded = {v.encode("utf-8", "surrogatepass") for v in values}
        self._literals = sorted(encoded, key=len, reverse=True)
        self._finders: list[CandidateFinder | None] = []  # compiled on first need
        self._lock = threading.Lock()
        self.count = 0
        self.finder_min = FINDER_MIN  # inputs shorter than this skip the finder
        # ... unless a longer input had it compiled: from this size on it is then the
        # cheaper way (a turn of claude's stream-json, 1.4 KB: ~5 us against ~60 us for
        # the exact rules on all of it, issue 50)
        self.compiled_min = COMPILED_MIN

    def redact(self, text: str) -> Redacted:
        """``text`` with every recognised secret replaced by ``[REDACTED]``."""
        data = text.encode("utf-8", "surrogatepass")
        return Redacted(self.redact_bytes(data).decode("utf-8", "surrogatepass"))

    def redact_bytes(
        self,
        data: bytes,
        *,
        spans: list[Candidate] | None = None,
        extra: Sequence[Edit] = (),
        only_extra: Sequence[tuple[int, int]] = (),
    ) -> bytes:
        """The same on UTF-8 bytes (the transcript's fast path).

        ``spans``: the candidates in ``data`` when a scan of a buffer it begins
        has already found them (``candidate_spans``), so ``data`` is not scanned again;
        ``extra``: more masks, found where ``data`` alone shows no secret (deltas.py);
        ``only_extra``: sorted spans of ``data`` where only those apply.
        """
        found = self._edits_near_candidates(data, spans)
        if only_extra:
            found = [edit for edit in found if not _inside(edit, only_extra)]
        edits = masks(data, [*found, *extra])
        if not edits:
            return data
        with self._lock:
            self.count += len(edits)
        view = memoryview(data)  # slices of it are not copies: join copies once
        parts: list[bytes | memoryview] = []
        pos = 0
        for start, end, replacement in edits:
            parts += (view[pos:start], replacement)
            pos = end
        parts.append(view[pos:])
        return b"".join(parts)

    def redact_obj(self, obj: Any) -> Any:
        """A copy of a JSON-like value with strings redacted and secret-named keys masked."""
        if isinstance(obj, str):
            return self.redact(obj)
        if isinstance(obj, Mapping):
            out: dict[Any, Any] = {}
            for key, value in obj.items():
                if (
                    isinstance(key, str)
                    and isinstance(value, str)
                    and value
                    and is_secret_name(key)
                ):
                    if value != MASK:
                        with self._lock:
                            self.count += 1
                    out[key] = MASK
                else:
                    out[key] = self.redact_obj(value)
            return out
        if isinstance(obj, (list, tuple)):
            return [self.redact_obj(item) for item in obj]
        return obj

    def stream(self) -> StreamRedactor:
        """A redactor for a stream cut into arbitrary chunks (one per output stream)."""
        from jlgcli.artifacts.streaming import StreamRedactor

        return StreamRedactor(self)

    def finder(self) -> CandidateFinder | None:
        """The candidate finder (compiled on the first call), or None without Hyperscan."""
        if not self._finders:
            with self._lock:
                if not self._finders:
                    self._finders.append(compile_candidates(self._literals))
        return self._finders[0]

    def candidate_spans(self, data: bytes, seen: set[int] | None = None) -> list[Candidate] | None:
        """Where the candidate finder sees a possible secret; None: read everything.

        None for inputs shorter than ``finder_min`` (``compiled_min`` once the finder is
        compiled) and without Hyperscan. ``seen``: see ``CandidateFinder.spans``.
        """
        size = len(data)
        if size >= self.finder_min:
            finder = self.finder()
        elif size >= self.compiled_min and self._finders:
            finder = self._finders[0]  # compiled for a longer input: no compile for this one
        else:
            return None
        return None if finder is None else finder.spans(data, seen)

    def _edits_near_candidates(self, data: bytes, spans: list[Candidate] | None) -> list[Edit]:
        """``edits``, computed only on the lines where the candidate finder saw something,
        by the rule families of the candidates found there (exact.py)."""
        if spans is None:
            spans = self.candidate_spans(data)
        if spans is None:
            return self.edits(data)
        edits: list[Edit] = []
        around = windows(data, spans)
        for lo, hi, families, members in around:
            if lo == 0 and hi == len(data):  # (windows may overlap: all their families)
                return self.edits(data, sum_families(around))
            window = data[lo:hi]
            if needs_view(window):
                found = self.edits(window, families)
            else:
                if families & DIRECTED:
                    # read as spelled: the directed families are matched at their candidates
                    # (a window searching class-led tokens finds every token there)
                    tokens = not families & CLASS_TOKENS
                    edits += directed_edits(data, members, tokens=tokens)
                    families &= ~(DIRECTED if tokens else DIRECTED & ~TOKENS)
                    if not families:
                        continue
                found = spelled_edits(window, self._literals, families)  # = self.edits here
            edits += [(start + lo, end + lo, new) for start, end, new in found]
        return edits

    def edits(self, data: bytes, families: int = ALL) -> list[Edit]:
        """Every replacement the rules of ``families`` want in ``data`` (possibly overlapping).

        The rules read ``data`` as it is and, when it holds a backslash or an ESC
        byte, as it reads decoded (views.py); a match in the decoded text masks
        the raw bytes behind it. Such text runs every family: what it decodes
        to was not what the candidates were found in.
        """
        if not needs_view(data):
            return spelled_edits(data, self._literals, families)
        edits = spelled_edits(data, self._literals)
        views: list[DecodedView] = []
        text = data
        # JSON inside JSON (a tool call's input, a script's source in a reply) is
        # escaped once per level: read up to _VIEW_DEPTH levels down.
        while len(views) < _VIEW_DEPTH and needs_view(text):
            view = DecodedView(text)
            if view.text == text:
                break
            views.append(view)
            text = view.text
            for start, end, new in spelled_edits(text, self._literals):
                for outer in reversed(views):
                    start, end = outer.raw_span(start, end)
                if end > start:
                    edits.append((start, end, new))
        return edits


def _inside(edit: Edit, spans: Sequence[tuple[int, int]]) -> bool:
    """Whether ``edit`` lies within one of the sorted, disjoint ``spans``."""
    index = bisect_right(spans, (edit[0], sys.maxsize)) - 1
    return index >= 0 and spans[index][0] <= edit[0] and edit[1] <= spans[index][1]


def sum_families(found: list[Window]) -> int:
    """The union of the families of the windows ``found``."""
    families = 0
    for _, _, family, _ in found:
        families |= family
    return families


def __getattr__(name: str) -> Any:
    """``StreamRedactor`` (streaming.py) is importable from here, as it always was."""
    if name == "StreamRedactor":
        from jlgcli.artifacts.streaming import StreamRedactor

        return StreamRedactor
    raise AttributeError(name)
