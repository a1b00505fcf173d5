"""Turn SIGTERM (and SIGBREAK on Windows) into KeyboardInterrupt in the main thread.

A CI runner cancels a job with SIGTERM; without this, Python dies at once
and the agent's process tree is orphaned. With it, ``run_invocation`` sees
a KeyboardInterrupt, stops the tree through the kill ladder and returns
CANCELLED like it does for Ctrl-C.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

from jlgcli.process.spawn import IS_WINDOWS


def termination_signals(*, is_windows: bool = IS_WINDOWS) -> tuple[str, ...]:
    """Names of the signals turned into KeyboardInterrupt on this platform."""
    return ("SIGTERM", "SIGBREAK") if is_windows else ("SIGTERM",)


def _raise_interrupt(signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@contextlib.contextmanager
def install_termination_handlers() -> Iterator[None]:
    """Within the block, SIGTERM/SIGBREAK raise KeyboardInterrupt; handlers restored after.

    Does nothing outside the main thread (Python only delivers signals there).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: dict[int, Any] = {}
    for name in termination_signals():
        number = getattr(signal, name, None)
        if number is not None:
            previous[number] = signal.signal(number, _raise_interrupt)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
