"""Find the top-level JSON objects in free text, last first (RG-010, seed 004).

Agent output is prose, logs and code with, somewhere near the end, a JSON
object. "Top-level" means not nested inside another JSON object or array that
itself parses: ``{"data": {"status": "done"}}`` holds one top-level object
(the outer one); ``{"data": {"status": "done"}, oops}`` holds one too (the
inner one, because its parent does not parse).

Design (linear time, usually touching only the tail of the text)
-----------------------------------------------------------------
A backwards ``raw_decode`` from every ``{`` is quadratic, and a forward scan
of megabytes in Python is slow, so the text is scanned **right to left**, over
a reversed tail window that grows fourfold when the scan needs more (total work
O(n)). The scan mirrors a forward JSON tokenizer with resets:

* **prose mode** looks for the next ``}`` or ``]`` whose left neighbour can
  end a JSON member (a string followed by ``:``/``,``/``[``, a number, a
  literal, another bracket). Two literal-prefix regex searches do this at C
  speed; quotes and braces in prose are ignored, so unbalanced prose cannot
  derail the scan.
* **candidate mode** starts at that closer and tokenizes JSON backwards:
  strings (a quote is a delimiter iff an even number of backslashes precedes
  it, which fixes string parity without knowing where the value starts),
  brackets (a stack), and runs of whitespace, punctuation, numbers and
  ``true``/``false``/``null``. Anything else (a letter of prose, a raw
  control character inside a string, a mismatched bracket, nesting deeper than
  ``MAX_DEPTH``) is a *reset*: the open candidate fails, the completed spans
  inside it are promoted to top level, and prose mode resumes after the
  offending character (after the whole bracket run, or at the control
  character that ends an unterminated string). One exception: when the failed
  candidate had a string, that string may have swallowed the end of a real
  object (``{"a":"b"}",1}``), so its region is re-scanned from just inside
  its first string, once (a re-scan never triggers another re-scan).
  Strings never span lines (a raw newline is invalid in a JSON string), so a
  stray quote costs at most the rest of its line.
* Shortcut: before tokenizing from a closer, two guesses of the opener (the
  last one within 4 KiB, the first one on the closer's line) are decoded by
  ``json``; a value ends at a given closer only if it starts at the opener the
  tokenizer would match, so a guess that decodes exactly up to the closer *is*
  that span. This finds flat objects and one-line JSON events at C speed.
* A span completed at stack depth 0 is a top-level candidate. It is decoded
  by ``json`` (as a slice: json's errors count the lines before their
  position, which in place would be quadratic); if it parses to an object it
  is yielded, if it parses to an array its contents are nested
  and skipped, if it does not parse its child spans are candidates in turn. A
  failed parse reports where it failed; a child containing that position
  fails the same way (JSON parsing is context free) and is not decoded again,
  so every character is decoded O(1) times.

Spans are produced right to left, so objects come out last first, lazily: a
caller that stops at the first acceptable object never scans the rest.

A caller that wants only objects with a given key (json completion: ``status``)
passes ``key``: a candidate whose text holds neither ``"key"`` nor a ``\\u``
escape cannot have that key, so it is skipped before decoding, and the scan
ends where no text to its left holds one (10 MB of agent text without
``"status"``: a few ms instead of ~120).

Against the obvious quadratic oracle (decode at every ``{``/``[`` left to
right, skip what parses) the tests find no difference on documents of JSON and
prose; on random bracket soup the only differences seen are empty objects
``{}`` skipped with the rest of an unterminated string's line (an object with
a key needs a string, and that region has no string delimiter).

Limits: strict JSON only (no ``NaN``, no raw control characters in strings);
nesting deeper than ``MAX_DEPTH`` is treated as prose; the work is capped by a
step budget (Python-level tokens and decodes: ``DEFAULT_BUDGET`` is about
66,000 candidate objects or 3 MB of densely tokenized JSON, some 150 ms),
after which iteration simply ends, so a fitting object buried under
megabytes of *other* JSON may be missed. Never raises on any
``str`` input. The scanner itself is in ``_scan.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from jlgcli.completion._scan import DECODER, MAX_DEPTH, Budget, Needles, Span, scan

__all__ = ["DEFAULT_BUDGET", "MAX_DEPTH", "iter_objects_from_end", "last_matching"]

T = TypeVar("T")

DEFAULT_BUDGET = 200_000  # steps: about 150 ms of the most expensive input there is


def iter_objects_from_end(
    text: str, *, budget: int = DEFAULT_BUDGET, key: str | None = None
) -> Iterator[dict[str, Any]]:
    """Yield the top-level JSON objects of ``text``, last first (see the module doc).

    Lazy: stopping early costs only the tail scanned so far. ``budget`` caps
    the Python-level work; when it runs out the iteration ends. With ``key``,
    objects whose text cannot hold that key are skipped before decoding (and
    may or may not be yielded): the caller wants only objects with it.
    """
    steps = Budget(budget)
    needles = None if key is None else Needles(text, (json.dumps(key, ensure_ascii=False), "\\u"))
    for found in scan(text, steps, needles):
        if isinstance(found, dict):
            yield found
        else:
            yield from _resolve(text, found, steps, needles)


def last_matching(
    text: str,
    convert: Callable[[dict[str, Any]], T | None],
    *,
    budget: int = DEFAULT_BUDGET,
    key: str | None = None,
) -> T | None:
    """The first non-``None`` ``convert(obj)`` over the top-level objects, last first.

    ``convert`` is the schema check of a protocol (json completion, rebound
    replies): it returns the typed value, or ``None`` to skip the object.
    ``key``: a key ``convert`` requires, so objects without it are not decoded.
    """
    for obj in iter_objects_from_end(text, budget=budget, key=key):
        value = convert(obj)
        if value is not None:
            return value
    return None


def _resolve(
    text: str, span: Span, steps: Budget, needles: Needles | None
) -> Iterator[dict[str, Any]]:
    """Decode a top-level candidate; if it does not parse, its children are candidates."""
    work: list[tuple[Span, int | None]] = [(span, None)]
    while work:
        (start, end, kids), failed_at = work.pop()
        if needles is not None and not any(text.find(k, start, end) >= 0 for k in needles.needles):
            continue  # neither it nor its children (inside it) can hold the wanted key
        if failed_at is not None and start < failed_at < end:
            # The parent's parse entered this span and failed in it: so does its own parse.
            work.extend((kid, failed_at) for kid in reversed(kids))
            continue
        if steps.left <= 0:
            return
        steps.left -= 1 + ((end - start) >> 10)
        try:
            # A slice: json's errors count the lines before their position, so
            # decoding in place would cost O(start) per failure.
            value, stop = DECODER.raw_decode(text[start:end])
        except json.JSONDecodeError as exc:
            work.extend((kid, start + exc.pos) for kid in reversed(kids))
            continue
        except (ValueError, RecursionError):  # NaN, an int over the digit limit, ...
            work.extend((kid, None) for kid in reversed(kids))
            continue
        if stop != end - start:  # pragma: no cover - the tokenizer and json agree on spans
            work.extend((kid, None) for kid in reversed(kids))
        elif isinstance(value, dict):
            yield value
        # A parsing array: the objects inside it are nested, not top-level.
