"""The resume state written beside the next agent call, not before it (issue 50).

Between iterations ``state.json`` is written with an fsync (``runner.resume``): 5 to 15 ms
on a busy disk, spent between two agent calls. ``StateWrites`` does that write in a
thread while the next call runs. One write at a time, in order: each new write, and
the last state of a run (written in the caller's thread), first waits for the one
before and raises its error, so a state that cannot be written still fails the run
(73), one iteration later at most. The text is made (and redacted) in the caller's
thread; the thread only writes bytes. A crash meanwhile leaves the state before,
complete: what ``write_state`` promised between iterations already.
"""

from __future__ import annotations

import _thread
from collections.abc import Callable


class StateWrites:
    """At most one write in flight; its error comes back from the next ``wait``.

    Each write runs in a thread of its own started with ``_thread``: ``threading.Thread.start``
    waits until the new thread has run, 0.1 ms a write on an idle machine and often more
    than 0.5 ms on a busy one, spent between two agent calls (issue 50). The thread ends
    with its write (nothing outlives the run); ``wait`` is what joins it.
    """

    def __init__(self) -> None:
        self._done: _thread.LockType | None = None  # held until the write in flight ends
        self._error: BaseException | None = None

    def submit(self, write: Callable[[], None]) -> None:
        """Wait for the write before (raising its error), then start ``write``."""
        self.wait()
        done = _thread.allocate_lock()
        done.acquire()
        self._done = done
        _thread.start_new_thread(self._run, (write, done))

    def _run(self, write: Callable[[], None], done: _thread.LockType) -> None:
        """In the write's thread: run it, keep its error for ``wait``, release ``done``."""
        try:
            write()
        except BaseException as exc:  # handed to the caller's thread by ``wait``
            self._error = exc
        finally:
            done.release()

    def wait(self) -> None:
        """The write in flight has ended; raises its error (once)."""
        if self._done is not None:
            self._done.acquire()  # interrupted by Ctrl-C as a join would be
            self._done = None
        error, self._error = self._error, None
        if error is not None:
            raise error
