"""A run's output path: each read cut at a UTF-8 boundary, filtered, queued, then delivered.

``run_invocation`` reads up to 256 KiB at a time. Each read's bytes are cut at a UTF-8
character boundary (the start of a character split across reads waits for the next
read), go through the stream's filter when there is one (the run's redactor: every sink
then only sees redacted text), and are queued as one ``OutputEvent``. Delivery hands
each event to every sink in order, at most once per sink even when Ctrl-C lands inside a
sink call (the queue remembers how far each event got).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from jlgcli.process.model import OutputEvent, Sink

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.process.model import StreamName
    from jlgcli.process.outcome import ByteFilter


class Delivery:
    """The bytes of one run on their way to its sinks; ``counts`` are the bytes read."""

    def __init__(self, sinks: Sequence[Sink]) -> None:
        self.sinks = tuple(sinks)
        self.carry: dict[StreamName, bytes] = {"stdout": b"", "stderr": b""}
        self.filters: dict[StreamName, ByteFilter] = {}
        self.counts: dict[StreamName, int] = {"stdout": 0, "stderr": 0}
        self.pending: deque[tuple[OutputEvent, int]] = deque()

    def take(self, stream: StreamName, data: bytes) -> bytes:
        """Count a read of ``stream``; what of it (with the bytes held back) ends whole."""
        self.counts[stream] += len(data)
        if self.carry[stream]:
            data = self.carry[stream] + data
        cut = utf8_boundary(data)
        if cut < len(data):
            data, self.carry[stream] = data[:cut], data[cut:]
        else:
            self.carry[stream] = b""
        return data

    def end(self, stream: StreamName, now: float) -> None:
        """``stream`` ended: what was held back goes out as it is."""
        data, self.carry[stream] = self.carry[stream], b""
        self.emit(stream, data, now, last=True)

    def flush_carry(self, now: float) -> None:
        for stream in self.carry:
            self.end(stream, now)

    def emit(self, stream: StreamName, data: bytes, now: float, *, last: bool = False) -> None:
        """Queue ``data`` for the sinks, through the stream's filter when there is one."""
        kept = self.filters.get(stream)
        if kept is not None:
            data = kept.feed(data) + (kept.flush() if last else b"")
        if data:
            self.pending.append((OutputEvent(stream, data, now, redacted=kept is not None), 0))

    def deliver(self) -> None:
        # At most once per sink even when Ctrl-C lands inside a sink call.
        while self.pending:
            event, index = self.pending[0]
            while index < len(self.sinks):
                self.pending[0] = (event, index + 1)
                self.sinks[index](event)
                index += 1
            self.pending.popleft()


def utf8_boundary(data: bytes) -> int:
    """Where an incomplete UTF-8 character at the end of ``data`` starts (``len(data)``: none)."""
    end = len(data)
    for back in range(1, min(3, end) + 1):
        byte = data[end - back]
        if byte < 0x80:  # ASCII: complete
            return end
        if byte >= 0xC0:  # a lead byte: is its sequence complete?
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4 if byte < 0xF8 else 1
            return end - back if back < need else end
    return end  # only continuation bytes: invalid, decoded with replacement as they are
