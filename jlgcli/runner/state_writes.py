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

import threading
from collections.abc import Callable


class StateWrites:
    """At most one write in flight; its error comes back from the next ``wait``."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def submit(self, write: Callable[[], None]) -> None:
        """Wait for the write before (raising its error), then start ``write``."""
        self.wait()

        def run() -> None:
            try:
                write()
            except BaseException as exc:  # handed to the caller's thread by ``wait``
                self._error = exc

        self._thread = threading.Thread(target=run, name="jlgcli-state", daemon=False)
        self._thread.start()

    def wait(self) -> None:
        """The write in flight has ended; raises its error (once)."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        error, self._error = self._error, None
        if error is not None:
            raise error
