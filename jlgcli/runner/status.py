"""Live progress during an agent call (issue 17): nobody should think jlgcli hangs.

On a terminal: one status line on stderr, redrawn in place every second while
the agent is silent — elapsed time, the agent's last activity, the cost and
tokens known so far. Without a terminal (CI logs): a plain heartbeat line after
every ``HEARTBEAT_S`` of silence. Never on stdout, so never in ``--json``.
"""

from __future__ import annotations

import threading
import time
from types import TracebackType

from jlgcli.runner.console import Console

TICK_S = 1.0
QUIET_BEFORE_STATUS_S = 2.0
HEARTBEAT_S = 30.0
ACTIVITY_CHARS = 60


class LiveStatus:
    """A background ticker for one backend call; feed it what the agent shows."""

    def __init__(
        self,
        console: Console,
        label: str,
        *,
        terminal: bool | None = None,
        total_before_ms: float | None = None,
        started: float | None = None,
    ) -> None:
        """``total_before_ms``: a loop's time before this call; the line then shows the
        call's time and the run's total (``12s (total 1m02s)``). ``started``: when the call
        began (``time.monotonic()``), if not now (``jlgcli watch`` attaching later)."""
        self.console = console
        self.label = label
        self.total_before_ms = total_before_ms
        self.terminal = console.is_terminal() if terminal is None else terminal
        self.started = time.monotonic() if started is None else started
        self.last_output = self.started
        self.last_activity = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_heartbeat = self.started

    def saw(self, text: str) -> None:
        """The agent printed ``text``: remember its last line as the activity."""
        self.last_output = time.monotonic()
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if lines:
            self.last_activity = lines[-1][:ACTIVITY_CHARS]

    def line(self, now: float) -> str:
        from jlgcli.durations import format_duration_ms

        call_ms = (now - self.started) * 1000
        spent = format_duration_ms(call_ms)
        if self.total_before_ms is not None:
            spent += f" (total {format_duration_ms(self.total_before_ms + call_ms)})"
        parts = [self.label, spent]
        if self.last_activity:
            parts.append(f"last: {self.last_activity}")
        else:
            parts.append("waiting for the agent's first output")
        return "[jlgcli] " + " · ".join(parts)

    def tick(self, now: float) -> None:
        """One beat: a status redraw (terminal) or a heartbeat line (no terminal)."""
        silent = now - self.last_output
        if self.terminal:
            if silent >= QUIET_BEFORE_STATUS_S:
                self.console.status(self.line(now))
        elif silent >= HEARTBEAT_S and now - self._last_heartbeat >= HEARTBEAT_S:
            self._last_heartbeat = now
            self.console.progress(self.line(now).removeprefix("[jlgcli] ") + " (still working)")

    def _run(self) -> None:
        while not self._stop.wait(TICK_S):
            self.tick(time.monotonic())

    def __enter__(self) -> LiveStatus:
        if self.console.verbosity >= 1:
            self._thread = threading.Thread(target=self._run, name="jlgcli-status", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2 * TICK_S)
        self.console.clear_status()
