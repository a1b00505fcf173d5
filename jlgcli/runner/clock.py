"""The run's sense of time, injected so guardrails are tested without waiting."""

from __future__ import annotations

import time

from jlgcli.moments import datetime, timezone


class Clock:
    """Wall time (epoch seconds, for stated rate-limit resets), monotonic time and sleeping."""

    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    def now(self) -> datetime:
        return datetime.now(timezone.utc)

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


SYSTEM_CLOCK = Clock()
