"""jlgcli's own stdout and stderr when their reader goes away (``| head -1``, ``2>&-``, a hang-up).

The rules (docs/process.md, "Closed output channels"):

* A standard descriptor closed at start (``2>&-``) is reopened on the null
  device, so no file jlgcli opens later lands on descriptor 2 and Python has a
  ``sys.stderr`` to write to.
* stdout's reader gone (EPIPE; EIO after a hang-up): the run is **stopped**,
  as SIGPIPE would stop any Unix program: the first failed write raises
  ``Interrupted(SIGPIPE)``, which takes the Ctrl-C path (the tree is stopped,
  ``result.json`` says ``interrupted``/``SIGPIPE``) and jlgcli exits 141. A
  run that did not finish never exits 0. When another interruption came first
  the failure only silences stdout.
* stderr broken: stderr only carries progress and diagnostics, so writes to it
  are dropped and nothing else changes (``--json`` on stdout is unaffected).

Either way the descriptor is then pointed at the null device, so buffered
bytes and the interpreter's final flush cannot fail again (Python would exit
120 at shutdown).
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable

from jlgcli.process.signals import (
    SIGPIPE_NUMBER,
    Interrupted,
    first_interruption,
    note_interruption,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

# EINVAL: what Windows reports for a write to a pipe whose reader is gone.
GONE_ERRNOS = {errno.EPIPE, errno.EIO, errno.EBADF, errno.ECONNRESET, errno.EINVAL, errno.ENXIO}


def reopen_closed_descriptors(fds: tuple[int, ...] = (0, 1, 2)) -> list[int]:
    """Open the null device on each standard descriptor that is closed; returns them."""
    reopened: list[int] = []
    for fd in fds:
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        null = os.open(os.devnull, os.O_RDWR)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
        reopened.append(fd)
    return reopened


class GuardedStream:
    """A text stream proxy: a write failing because the reader is gone calls ``on_gone`` once."""

    def __init__(self, stream: TextIO, on_gone: Callable[[], None]) -> None:
        self._stream = stream
        self._on_gone = on_gone
        self.gone = False

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as exc:
            self._failed(exc)
            return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            self._failed(exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def _failed(self, exc: OSError) -> None:
        if exc.errno not in GONE_ERRNOS and not isinstance(exc, BrokenPipeError):
            raise exc
        if self.gone:
            return
        self.gone = True
        _silence(self._stream)
        self._on_gone()


def _silence(stream: TextIO) -> None:
    """Point the stream's descriptor at the null device: later writes and flushes succeed."""
    import contextlib  # here: every command's start-up imports this module, few need it

    with contextlib.suppress(OSError, ValueError, AttributeError):
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, stream.fileno())
        finally:
            os.close(null)
    with contextlib.suppress(OSError, ValueError):
        stream.flush()  # what was buffered goes to the null device


def stdout_gone() -> None:
    """stdout's reader went away: stop the run like SIGPIPE, unless already stopping."""
    if first_interruption() is None:
        note_interruption(SIGPIPE_NUMBER)
        raise Interrupted(SIGPIPE_NUMBER)


def stderr_gone() -> None:
    """stderr broke: progress and diagnostics are dropped from now on."""


class guarded_streams:  # noqa: N801 - used as a function: ``with guarded_streams():``
    """Within the block, ``sys.stdout``/``sys.stderr`` follow the rules above; restored after.

    A class, not ``contextlib.contextmanager``: every command enters it, and contextlib
    costs ~0.7 ms of start-up where nothing else needs it (``config get``).
    """

    def __enter__(self) -> None:
        reopen_closed_descriptors()
        self.saved = sys.stdout, sys.stderr
        self.out = sys.stdout if sys.stdout is not None else _null_text(1)
        self.err = sys.stderr if sys.stderr is not None else _null_text(2)
        sys.stdout = GuardedStream(self.out, stdout_gone)
        sys.stderr = GuardedStream(self.err, stderr_gone)

    def __exit__(self, *exc_info: object) -> None:
        sys.stdout = self.saved[0] if self.saved[0] is not None else self.out
        sys.stderr = self.saved[1] if self.saved[1] is not None else self.err


def _null_text(fd: int) -> TextIO:
    # The descriptor was closed at start and now is the null device (reopen_closed_descriptors).
    return open(fd, "w", encoding="utf-8", errors="replace", closefd=False)
