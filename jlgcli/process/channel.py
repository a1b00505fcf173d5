"""Byte channels between the run loop and a child: output chunks in, input bytes out.

``SelectChannel`` (POSIX) multiplexes the child's pipes or pty master with a
selector in the calling thread: no threads, so a pipe held open by an escaped
grandchild is simply closed when we stop reading. ``ThreadChannel`` (Windows,
where pipes cannot be selected; also the winpty reader) runs one blocking
reader per stream into a bounded queue, so a slow sink throttles the child
instead of growing memory. Both read up to ``CHUNK`` bytes per call and hand
over one chunk per read; ``b""`` marks the end of a stream.
"""

from __future__ import annotations

import contextlib
import errno
import os
import queue
import selectors
import sys
import threading
from collections.abc import Callable, Mapping

TYPE_CHECKING = False

if TYPE_CHECKING:  # types only: a run imports no typing (issue 49)
    from typing import Protocol

    from jlgcli.process.model import StreamName

    Chunk = tuple[StreamName, bytes]

# Up to 256 KiB per read: the pipe transport widens its pipes to 1 MiB on Linux
# (pipe.widen_pipe), and every read costs an event, a transcript record and a
# redaction pass, so fewer, larger reads stream faster (issue 18). A pty still
# hands out 4 KiB at a time; the Windows queue holds at most 16 chunks (4 MiB).
CHUNK = 256 * 1024


if TYPE_CHECKING:

    class Channel(Protocol):
        """What the run loop needs from a transport's I/O."""

        @property
        def open(self) -> bool:
            """True while any output stream has not reached its end."""
            ...

        def read(self, timeout: float) -> list[Chunk]:
            """Chunks that arrived within ``timeout`` seconds (possibly none)."""
            ...

        def send(self, data: bytes) -> None:
            """Queue ``data`` for the child's input; written without blocking the loop."""
            ...

        def end_input(self) -> None:
            """Close the child's stdin once the queued input is written (pipes only)."""
            ...

        def close(self) -> None:
            """Stop reading and release what the channel holds."""
            ...


class SelectChannel:
    """Selector over the child's output fds and its input fd (POSIX)."""

    def __init__(
        self,
        outputs: Mapping[int, StreamName],
        input_fd: int | None = None,
        *,
        owns_fds: bool = True,
    ) -> None:
        self._streams = dict(outputs)
        self._open_fds = set(outputs)
        self._input_fd = input_fd
        self._owns = owns_fds
        self._outbox = bytearray()
        self._end_input = False
        self._selector = selectors.DefaultSelector()
        self._registered: dict[int, int] = {}
        self._dirty = True  # registrations must be recomputed before the next select
        if sys.platform == "win32":  # pragma: no cover - narrows for mypy (issue 35)
            raise OSError("POSIX only")
        for fd in outputs:
            os.set_blocking(fd, False)  # reads never wait: the selector does
        if input_fd is not None:
            os.set_blocking(input_fd, False)  # a full pipe/pty must not block the loop

    @property
    def open(self) -> bool:
        return bool(self._open_fds)

    def send(self, data: bytes) -> None:
        if self._input_fd is not None and data:
            self._outbox += data
            self._dirty = True

    def end_input(self) -> None:
        self._end_input = True
        self._maybe_close_input()

    def read(self, timeout: float) -> list[Chunk]:
        if self._dirty:
            self._sync_registrations()
        if not self._registered:
            return []
        chunks: list[Chunk] = []
        for key, mask in self._selector.select(max(0.0, timeout)):
            fd = int(key.fd)
            if mask & selectors.EVENT_WRITE:
                self._write_some()
            if mask & selectors.EVENT_READ and fd in self._open_fds:
                data = self._read_fd(fd)
                if data is not None:
                    chunks.append((self._streams[fd], data))
        return chunks

    def close(self) -> None:
        for fd in list(self._registered):
            self._selector.unregister(fd)
        self._registered.clear()
        self._selector.close()
        if self._owns:
            for fd in {*self._streams, *([self._input_fd] if self._input_fd is not None else [])}:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._open_fds.clear()
        self._input_fd = None

    def _read_fd(self, fd: int) -> bytes | None:
        try:
            data = os.read(fd, CHUNK)
        except BlockingIOError:  # spurious wake-up (pty master shared with input)
            return None
        except OSError as exc:
            if exc.errno != errno.EIO:  # EIO: the pty's other side is closed
                raise
            data = b""
        # A pty hands out at most 4 KiB per read: take what else is already
        # there (non-blocking) so one event carries up to CHUNK bytes.
        while data and len(data) < CHUNK:
            try:
                more = os.read(fd, CHUNK - len(data))
            except OSError:  # EAGAIN: nothing more now; EIO: seen on the next call
                break
            if not more:
                break
            data += more
        if not data:
            self._open_fds.discard(fd)
            self._dirty = True
        return data

    def _write_some(self) -> None:
        fd = self._input_fd
        if fd is None or not self._outbox:
            return
        try:
            written = os.write(fd, self._outbox[:CHUNK])
        except BlockingIOError:
            return
        except OSError:  # the child closed its input (EPIPE) or exited (EIO)
            self._outbox.clear()
            self._end_input = True
            written = 0
        del self._outbox[:written]
        if not self._outbox:
            self._dirty = True
        self._maybe_close_input()

    def _maybe_close_input(self) -> None:
        fd = self._input_fd
        if fd is None or not self._end_input or self._outbox or fd in self._streams:
            return  # a pty master is also the output: it stays open
        self._sync_registrations(drop=fd)
        if self._owns:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._input_fd = None

    def _sync_registrations(self, drop: int | None = None) -> None:
        self._dirty = False
        wanted: dict[int, int] = {fd: selectors.EVENT_READ for fd in self._open_fds}
        if self._input_fd is not None and self._outbox and self._input_fd != drop:
            wanted[self._input_fd] = wanted.get(self._input_fd, 0) | selectors.EVENT_WRITE
        for fd, events in list(self._registered.items()):
            if fd not in wanted:
                self._selector.unregister(fd)
                del self._registered[fd]
            elif wanted[fd] != events:
                self._selector.modify(fd, wanted[fd])
                self._registered[fd] = wanted[fd]
        for fd, events in wanted.items():
            if fd not in self._registered:
                self._selector.register(fd, events)
                self._registered[fd] = events


_END_INPUT = object()


class ThreadChannel:
    """One blocking reader thread per stream into a bounded queue (Windows, winpty)."""

    def __init__(
        self,
        readers: Mapping[StreamName, Callable[[], bytes]],
        writer: Callable[[bytes], None] | None = None,
        close_input: Callable[[], None] | None = None,
        *,
        max_chunks: int = 16,
    ) -> None:
        self._queue: queue.Queue[Chunk] = queue.Queue(maxsize=max_chunks)
        self._open = set(readers)
        self._stop = threading.Event()
        self._inbox: queue.SimpleQueue[object] = queue.SimpleQueue()
        for name, read in readers.items():
            threading.Thread(target=self._pump, args=(name, read), daemon=True).start()
        if writer is not None:
            threading.Thread(target=self._feed, args=(writer, close_input), daemon=True).start()
        self._has_writer = writer is not None

    @property
    def open(self) -> bool:
        return bool(self._open)

    def read(self, timeout: float) -> list[Chunk]:
        if not self._open:
            return []
        try:
            chunks = [self._queue.get(timeout=max(0.0, timeout))]
        except queue.Empty:
            return []
        while True:
            try:
                chunks.append(self._queue.get_nowait())
            except queue.Empty:
                break
        for name, data in chunks:
            if not data:
                self._open.discard(name)
        return chunks

    def send(self, data: bytes) -> None:
        if self._has_writer:
            self._inbox.put(data)

    def end_input(self) -> None:
        if self._has_writer:
            self._inbox.put(_END_INPUT)

    def close(self) -> None:
        # Threads blocked in a read stay blocked until their handle closes; they are daemons.
        self._stop.set()
        self._open.clear()
        self.end_input()

    def _pump(self, name: StreamName, read: Callable[[], bytes]) -> None:
        while not self._stop.is_set():
            try:
                data = read()
            except (OSError, ValueError, EOFError):  # closed under us
                data = b""
            if not self._put((name, data)) or not data:
                return

    def _put(self, item: Chunk) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _feed(self, write: Callable[[bytes], None], close: Callable[[], None] | None) -> None:
        try:
            while (item := self._inbox.get()) is not _END_INPUT and not self._stop.is_set():
                assert isinstance(item, bytes)
                write(item)
        except OSError:  # the child stopped reading
            pass
        finally:
            if close is not None:
                with contextlib.suppress(OSError):
                    close()
