"""``transcript.ndjson``: every output chunk of a run, written and flushed as it arrives (F-006).

One JSON object per line: ``{"t": 1.234, "type": "stdout", "text": "..."}`` for
output (``t`` = seconds since the run started), and ``{"t": …, "type": kind,
…}`` for the runner's own records (iteration start/end, exit, stop). Each
record is flushed to the OS before the call returns, so a run killed midway
keeps everything up to the kill (with a redactor, at most the current partial
line of each stream is held back until its newline or ``close()``).

Speed matters (100 MB of output must not slow a run down, issue 18): the sink
writes the bytes the event carries (``event.data``; text events are encoded
once), checked (``json_body_utf8``) and escaped with a few ``bytes.replace``
calls, which only run when the character is present (one Hyperscan probe of a
large chunk says which are); ``json.dumps`` per chunk is 3x slower. Bytes that
are not UTF-8 (a cut character, a binary tool's output) are written as
``{"…","b64":"…"}`` instead of ``"text"``, so every line stays valid JSON and
nothing is lost.
"""

from __future__ import annotations

import binascii
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from jlgcli.artifacts.probes import INVALID_UTF8, BytesProbe, byte_class
from jlgcli.artifacts.redact import Redactor, StreamRedactor
from jlgcli.artifacts.transcript_bound import cut_front
from jlgcli.errors import ExitCode, JlgError

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any, BinaryIO, Protocol

    class OutputEvent(Protocol):
        """What the sink reads of an event (``jlgcli.process.model.OutputEvent``: the
        process layer is above artifacts, so it is named by its shape, not imported)."""

        @property
        def stream(self) -> str: ...
        @property
        def t(self) -> float: ...
        @property
        def redacted(self) -> bool: ...
        @property
        def data(self) -> bytes: ...
        @property
        def text(self) -> str: ...


WRITE_HINT = (
    "pass --artifacts-dir DIR (a writable directory), free some disk space, or fix permissions"
)

# Backslash first: the later escapes introduce backslashes of their own. Each is a
# ``bytes.replace`` (``memchr``-driven), which only runs when its byte is present. A
# large chunk is asked once, by one Hyperscan scan (probes.py), which of the rarer bytes
# it holds (a backslash, a CR, any control byte, one of the 26 written ``\\uXXXX``) and,
# when it is not ASCII, whether it is UTF-8: in place of a full ``memchr`` pass per absent
# byte, three probes and 26 passes for the rare ones (~8 ms less per 20 MB of agent output).
_COMMON_ESCAPES: tuple[tuple[bytes, bytes], ...] = (
    (b'"', b'\\"'),
    (b"\n", b"\\n"),
)
_CONTROL_ESCAPES: tuple[tuple[bytes, bytes], ...] = (
    (b"\t", b"\\t"),
    (b"\x1b", b"\\u001b"),
)
_RARE_ESCAPES: tuple[tuple[bytes, bytes], ...] = tuple(
    (bytes([c]), b"\\u%04x" % c) for c in range(0x20) if c not in (0x09, 0x0A, 0x0D, 0x1B)
)
# Shorter inputs ask Python directly: cheaper than a Hyperscan call there.
PROBE_MIN = 8 * 1024
# The patterns of the escapes probe, by id; the UTF-8 one appends INVALID_UTF8.
_ESCAPE_PROBE = (
    byte_class(c for c in range(0x20) if c != 0x0A),  # _ANY_CONTROL (not \n: every line's)
    byte_class(raw[0] for raw, _ in _RARE_ESCAPES),  # _RARE_CONTROL
    rb"\\",  # _BACKSLASH
    rb"\r",  # _CR
)
_ANY_CONTROL, _RARE_CONTROL, _BACKSLASH, _CR = range(len(_ESCAPE_PROBE))
_PROBE_PATTERNS = {
    "invalid utf-8": INVALID_UTF8,
    "escapes": _ESCAPE_PROBE,
    "escapes, utf-8": (*_ESCAPE_PROBE, *INVALID_UTF8),
}
_probes: dict[str, BytesProbe | None] = {}  # compiled on first need


def json_escape_utf8(data: bytes) -> bytes:
    """The body of a JSON string (without quotes) for UTF-8 ``data``; non-ASCII kept as is."""
    probe = _probe("escapes") if len(data) >= PROBE_MIN else None
    return _escaped(data, None if probe is None else probe.matched(data))


def _escaped(data: bytes, found: set[int] | None) -> bytes:
    """``json_escape_utf8``, told which of the escapes probe's bytes ``data`` holds
    (None: not asked, every escape looks for its byte)."""
    if (found is None or _BACKSLASH in found) and b"\\" in data:
        data = data.replace(b"\\", b"\\\\")
    for raw, escaped in _COMMON_ESCAPES:
        if raw in data:  # memchr: faster than finding the specials with one translate pass
            data = data.replace(raw, escaped)
    if found is not None and _ANY_CONTROL not in found:
        return data
    if (found is None or _CR in found) and b"\r" in data:
        data = data.replace(b"\r", b"\\r")
    rare = found is None or _RARE_CONTROL in found
    for raw, escaped in (*_CONTROL_ESCAPES, *_RARE_ESCAPES) if rare else _CONTROL_ESCAPES:
        if raw in data:
            data = data.replace(raw, escaped)
    return data


def json_body_utf8(data: bytes) -> bytes | None:
    """``json_escape_utf8(data)``, or None when ``data`` is not strict UTF-8."""
    if len(data) >= PROBE_MIN:
        ascii_only = data.isascii()  # (ASCII is UTF-8: no need to ask)
        probe = _probe("escapes" if ascii_only else "escapes, utf-8")
        if probe is not None:
            found = probe.matched(data)
            if not ascii_only and max(found, default=0) > _CR:  # one of INVALID_UTF8
                return None
            return _escaped(data, found)
    return json_escape_utf8(data) if is_utf8(data) else None


def is_utf8(data: bytes) -> bool:
    """Whether ``data`` is strict UTF-8 (what ``data.decode("utf-8")`` accepts)."""
    if data.isascii():
        return True
    if len(data) >= PROBE_MIN:
        invalid = _probe_finds("invalid utf-8", data)
        if invalid is not None:
            return not invalid
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _probe(question: str) -> BytesProbe | None:
    """The probe for ``question`` (compiled on first need); None without Hyperscan."""
    if question not in _probes:
        _probes[question] = BytesProbe.compile(_PROBE_PATTERNS[question])
    return _probes[question]


def _probe_finds(question: str, data: bytes) -> bool | None:
    """Hyperscan's answer to ``question`` about ``data``; None without Hyperscan."""
    probe = _probe(question)
    return None if probe is None else probe.found(data)


class TranscriptSink:
    """A ``Sink`` writing ``OutputEvent``s to an NDJSON file (thread-safe; one per run).

    ``start``: the ``time.monotonic()`` of the run's start (default: now). A write
    failure raises ``JlgError`` 73 (RG-016) and is kept in ``error`` so the
    runner can fail the run even when a reader thread swallowed the exception.
    """

    def __init__(
        self,
        path: Path,
        *,
        redactor: Redactor | None = None,
        start: float | None = None,
        limit: int | None = None,
        on_error: Callable[[JlgError], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.start = time.monotonic() if start is None else start
        self.records = 0
        self.error: JlgError | None = None
        # Kept by default (issue 51): at most ``limit`` bytes, the oldest lines cut
        # (transcript_bound); a write failure is ``on_error``'d once and the rest dropped.
        self.limit = limit
        self.dropped = 0
        self._size = 0
        self._on_error = on_error
        self._redactor = redactor
        self._streams: dict[str, StreamRedactor] = {}
        self._carry: dict[str, bytes] = {}  # an incomplete UTF-8 character at a chunk's end
        self._last_t: dict[str, float] = {}
        self._lock = threading.Lock()
        self._closed = False
        try:
            # closed in close(); a bounded one reads its tail back (w+b)
            self._fh: BinaryIO = open(self.path, "wb" if limit is None else "w+b")  # noqa: SIM115
        except OSError as exc:
            raise _write_error(self.path, exc, "cannot create") from None

    def __call__(self, event: OutputEvent) -> None:
        """Write one output chunk (redacted here unless ``event.redacted``) and flush it."""
        raw = getattr(event, "data", None)  # bytes events: written as they are
        data = raw if isinstance(raw, bytes) else event.text.encode("utf-8", "backslashreplace")
        t = event.t - self.start
        with self._lock:
            # Redacted where it entered jlgcli (issue 32): written as it is, not redacted twice.
            if self._redactor is not None and not getattr(event, "redacted", False):
                stream = self._streams.get(event.stream)
                if stream is None:
                    stream = self._streams[event.stream] = self._redactor.stream()
                data = stream.feed(data)
            else:
                data = self._complete_characters(event.stream, data)
            self._last_t[event.stream] = t
            if data:
                self._write(_output_record(event.stream, t, data))

    def write_record(self, kind: str, **fields: Any) -> None:
        """Write a non-output record (``iteration``, ``exit``, ``stop`` …), after held output."""
        t = time.monotonic() - self.start
        record = {"t": round(t, 3), "type": kind, **fields}
        with self._lock:
            self._drain()
            if self._redactor is not None:
                record = self._redactor.redact_obj(record)
            line = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str) + "\n"
            self._write(line.encode("utf-8", "backslashreplace"))

    def close(self) -> None:
        """Write what redaction held back, then close the file. Idempotent."""
        with self._lock:
            if self._closed:
                return
            try:
                if self.error is None:
                    self._drain()
            finally:
                self._closed = True
                try:
                    self._fh.close()
                except OSError as exc:
                    if self.error is None:  # else: the bytes that failed, retried; known
                        self._fail(exc)

    def __enter__(self) -> TranscriptSink:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _complete_characters(self, stream: str, data: bytes) -> bytes:
        """``data`` after the bytes held from the last chunk, minus a cut character at its end."""
        held = self._carry.pop(stream, b"")
        if held:
            data = held + data
        cut = _incomplete_tail(data)
        if cut < len(data):
            self._carry[stream] = data[cut:]
            data = data[:cut]
        return data

    def _drain(self) -> None:
        pending = [(name, stream.flush()) for name, stream in self._streams.items()]
        pending += list(self._carry.items())
        self._carry.clear()
        for name, data in pending:
            if data:
                self._write(_output_record(name, self._last_t.get(name, 0.0), data))

    def _write(self, record: bytes) -> None:
        if self.error is not None:
            if self._on_error is not None:
                return  # reported once; the run goes on without it
            raise self.error
        if self._closed:
            return  # a late chunk from a reader thread after the run ended
        try:
            if self.limit is not None and self._size + len(record) > self.limit and self._size:
                self._size, self.dropped = cut_front(
                    self._fh, self._size, limit=self.limit, dropped=self.dropped,
                    t=time.monotonic() - self.start,
                )  # fmt: skip
            self._fh.write(record)
            self._fh.flush()
        except OSError as exc:
            self._fail(exc)
            return
        self._size += len(record)
        self.records += 1

    def _fail(self, exc: OSError) -> None:
        self.error = _write_error(self.path, exc, "cannot write")
        if self._on_error is not None:
            self._on_error(self.error)
            return
        raise self.error from None


def _incomplete_tail(data: bytes) -> int:
    """Where a UTF-8 sequence cut by the end of ``data`` starts (``len(data)`` if none)."""
    size = len(data)
    for back in range(1, min(4, size) + 1):
        byte = data[size - back]
        if byte < 0x80:
            return size
        if byte >= 0xC0:  # a lead byte: complete if its sequence fits
            needed = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return size if back >= needed else size - back
    return size


def json_string_utf8(data: bytes) -> bytes | None:
    """``data`` as a JSON string with its quotes (non-ASCII kept as is), or None when
    ``data`` is not strict UTF-8.

    Tried for issue 43 and measured on agent-like text (``benchmarks/transcript.py``): one
    pass by pydantic-core's ``to_json`` costs a ~33 ms import, paid by every run since each
    keeps its transcript (issue 51); the standard library's C escaper after a decode took
    2.5x the CPU of the probes and ``bytes.replace`` passes here, which skip at ``memchr``
    speed what plain text lacks. So the passes stay.
    """
    body = json_body_utf8(data)
    return None if body is None else b'"%s"' % body


def _output_record(stream: str, t: float, data: bytes) -> bytes:
    text = json_body_utf8(data)  # formatted once: a 64 KiB chunk is not copied twice
    if text is None:
        encoded = binascii.b2a_base64(data, newline=False)
        return b'{"t":%.3f,"type":"%s","b64":"%s"}\n' % (t, stream.encode(), encoded)
    return b'{"t":%.3f,"type":"%s","text":"%s"}\n' % (t, stream.encode(), text)


def _write_error(path: Path, exc: OSError, what: str) -> JlgError:
    reason = exc.strerror or str(exc)
    return JlgError(
        ExitCode.CANT_CREATE, f"{what} the transcript {path}: {reason}", hint=WRITE_HINT
    )
