"""Waiting out a rate limit with a visible countdown, on the run's clock (tests inject one)."""

from __future__ import annotations

from jlgcli.runner.clock import Clock
from jlgcli.runner.console import Console


def countdown(console: Console, clock: Clock, seconds: float, reason: str) -> None:
    """Wait ``seconds`` showing the time left every 10 s and in the last 5 s (Ctrl-C stops it)."""
    from jlgcli.durations import format_duration_ms

    deadline = clock.monotonic() + max(0.0, seconds)
    last_shown: int | None = None
    while (left := deadline - clock.monotonic()) > 0:
        shown = int(left + 0.999)
        if shown != last_shown and (last_shown is None or shown % 10 == 0 or shown <= 5):
            console.progress(f"{reason}: waiting {format_duration_ms(shown * 1000)}")
            last_shown = shown
        clock.sleep(min(1.0, left))
