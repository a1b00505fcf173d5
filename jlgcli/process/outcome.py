"""Bounded output of a finished process: the first and last bytes of each stream.

``OutputTail`` is a sink (``run_invocation(..., sinks=(tail,))``) that keeps,
per stream, the first ``head`` and the last ``tail`` bytes and counts what it
dropped between them, so a child printing 50 MB costs a constant amount of
memory. It can also keep the tail of both streams interleaved as they arrived
(``merged_tail``: an error excerpt reads the end of everything). Nothing is
decoded until a text view is asked for; cuts fall on UTF-8 character
boundaries, so a view never starts or ends with half a character.
``ProcessOutcome.output`` carries it (``jlgcli.process.captured.run_captured``).
"""

from __future__ import annotations

from collections.abc import Callable

from jlgcli.process.model import OutputEvent

TYPE_CHECKING = False

if TYPE_CHECKING:  # types only: a run imports no typing (issue 49)
    from typing import Protocol

    from jlgcli.process.model import StreamName

DEFAULT_HEAD = 64 * 1024
DEFAULT_TAIL = 64 * 1024


if TYPE_CHECKING:

    class ByteFilter(Protocol):
        """A streaming transform of one stream's bytes (e.g. ``StreamRedactor``)."""

        def feed(self, data: bytes) -> bytes: ...

        def flush(self) -> bytes: ...

    class WidthAware(Protocol):
        """A filter that reads lines wrapped at a pty's width as one (``StreamRedactor``)."""

        def wrapped_at(self, width: int) -> None: ...


def _is_continuation(byte: int) -> bool:
    return byte & 0xC0 == 0x80


def _char_cut(data: bytes, at: int) -> int:
    """``at`` moved back to the start of the UTF-8 character it falls in (at most 3 bytes)."""
    cut = at
    while 0 < cut < len(data) and at - cut < 3 and _is_continuation(data[cut]):
        cut -= 1
    return cut


class StreamTail:
    """The first ``head`` and the last ``tail`` bytes of one stream; counts the rest."""

    __slots__ = ("_head", "_tail", "head_limit", "tail_limit", "total")

    def __init__(self, head: int, tail: int) -> None:
        self.head_limit = max(head, 0)
        self.tail_limit = max(tail, 0)
        self._head = bytearray()
        self._tail = bytearray()  # may hold up to twice tail_limit (trimmed in bulk)
        self.total = 0

    def add(self, data: bytes) -> None:
        """Append ``data`` (a chunk cut at a character boundary, as the transports give)."""
        if not data:
            return
        self.total += len(data)
        room = self.head_limit - len(self._head)
        if room > 0:
            if len(data) <= room:
                self._head += data
                return
            cut = _char_cut(data, room)
            self._head += data[:cut]
            self.head_limit = len(self._head)  # the head is closed: never reopened mid-text
            data = data[cut:]
        if self.tail_limit == 0:
            return
        self._tail += data
        if len(self._tail) > 2 * self.tail_limit:
            del self._tail[: len(self._tail) - self.tail_limit]

    def head_bytes(self) -> bytes:
        return bytes(self._head)

    def _tail_start(self) -> int:
        """Where the kept end starts in the tail buffer: on a whole character."""
        whole = len(self._head) + len(self._tail) == self.total
        if whole and len(self._tail) <= self.tail_limit:
            return 0  # nothing dropped: it starts where the head ended
        start = max(len(self._tail) - self.tail_limit, 0)
        limit = min(start + 3, len(self._tail))
        while start < limit and _is_continuation(self._tail[start]):
            start += 1
        return start

    def tail_bytes(self) -> bytes:
        """The kept end: at most ``tail_limit`` bytes, starting on a whole character."""
        return bytes(self._tail[self._tail_start() :])

    @property
    def dropped(self) -> int:
        """Bytes received but not kept (between the head and the tail)."""
        return self.total - len(self._head) - (len(self._tail) - self._tail_start())

    @property
    def truncated(self) -> bool:
        return self.dropped > 0

    def text(self) -> str:
        """Head and tail decoded as UTF-8 (with replacement), joined without a marker."""
        return (self.head_bytes() + self.tail_bytes()).decode("utf-8", "replace")

    def render(self, note: Callable[[int], str]) -> str:
        """Head and tail decoded, with ``note(dropped_bytes)`` between them when bytes were cut."""
        head = self.head_bytes().decode("utf-8", "replace")
        tail = self.tail_bytes().decode("utf-8", "replace")
        dropped = self.dropped
        return head + tail if dropped <= 0 else f"{head}{note(dropped)}{tail}"


class OutputTail:
    """A sink keeping the head and tail of stdout and stderr, and optionally of both interleaved.

    ``filters``: a factory giving each stream its own streaming transform
    (a redactor): what is kept is what the filter returns. Call ``finish``
    once the run is over to flush them.
    """

    def __init__(
        self,
        head: int = DEFAULT_HEAD,
        tail: int = DEFAULT_TAIL,
        *,
        merged_tail: int = 0,
        filters: Callable[[], ByteFilter] | None = None,
    ) -> None:
        self.stdout = StreamTail(head, tail)
        self.stderr = StreamTail(head, tail)
        self.merged = StreamTail(0, merged_tail)
        self._filters: dict[StreamName, ByteFilter] | None = (
            {"stdout": filters(), "stderr": filters()} if filters is not None else None
        )

    @classmethod
    def holding(cls, stdout: str = "", stderr: str = "") -> OutputTail:
        """An unbounded tail already holding this text (replays and tests)."""
        size = len(stdout.encode()) + len(stderr.encode()) + 1
        tail = cls(size, 0, merged_tail=size)
        tail.add("stdout", stdout.encode())
        tail.add("stderr", stderr.encode())
        return tail

    def __call__(self, event: OutputEvent) -> None:
        self.add(event.stream, event.data)

    def stream(self, name: StreamName) -> StreamTail:
        return self.stdout if name == "stdout" else self.stderr

    def add(self, name: StreamName, data: bytes) -> None:
        if self._filters is not None:
            data = self._filters[name].feed(data)
        self.stream(name).add(data)
        self.merged.add(data)

    def finish(self) -> None:
        """Flush the filters' held-back bytes (a no-op without filters)."""
        if self._filters is None:
            return
        for name, active in self._filters.items():
            rest = active.flush()
            self.stream(name).add(rest)
            self.merged.add(rest)
