"""Windows: a closed console window, a logoff or a shutdown takes the Ctrl-C path too.

Python maps only CTRL_C (SIGINT) and CTRL_BREAK (SIGBREAK) to signals. For
CTRL_CLOSE_EVENT, CTRL_LOGOFF_EVENT and CTRL_SHUTDOWN_EVENT Windows calls a
handler registered with ``SetConsoleCtrlHandler`` in a new thread and ends the
process as soon as the handler returns (at most ~5 s later in any case). The
handler therefore interrupts the main thread with SIGBREAK and waits, within
that budget, until the main thread has stopped the tree and written the
result (``cleanup_finished``). The Job Object (``jlgcli.process.job``) still
ends every child if Windows kills us first.
"""

from __future__ import annotations

import _thread
import signal
import threading
from collections.abc import Callable
from typing import Any

from jlgcli.process.signals import note_interruption

CTRL_CLOSE_EVENT = 2
CTRL_LOGOFF_EVENT = 5
CTRL_SHUTDOWN_EVENT = 6
CLOSING_EVENTS = {
    CTRL_CLOSE_EVENT: "CTRL_CLOSE_EVENT",
    CTRL_LOGOFF_EVENT: "CTRL_LOGOFF_EVENT",
    CTRL_SHUTDOWN_EVENT: "CTRL_SHUTDOWN_EVENT",
}
SIGBREAK_NUMBER = 21
WAIT_FOR_CLEANUP = 4.5  # seconds: Windows ends the process about 5 s after the event

cleanup_finished = threading.Event()


def console_handler(
    interrupt_main: Callable[[int], None] | None = None,
    *,
    wait: float = WAIT_FOR_CLEANUP,
    done: threading.Event = cleanup_finished,
) -> Callable[[int], int]:
    """The handler body: 1 (handled) for a closing event after the cleanup, 0 otherwise."""

    interrupt = interrupt_main or _interrupt_main

    def handle(event: int) -> int:
        if event not in CLOSING_EVENTS:
            return 0  # CTRL_C / CTRL_BREAK: Python's own handler raises the signal
        number = int(getattr(signal, "SIGBREAK", SIGBREAK_NUMBER))
        note_interruption(number)
        interrupt(number)
        done.wait(wait)
        return 1

    return handle


def _interrupt_main(signum: int) -> None:  # pragma: no cover - Windows only
    _thread.interrupt_main(signal.Signals(signum))


def watch_console_close(kernel32: Any = None) -> Callable[[], None]:
    """Register the handler with ``kernel32`` (injected in tests); returns the undo function."""
    import ctypes

    if kernel32 is None:  # pragma: no cover - Windows only
        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined,unused-ignore]
    factory: Any = getattr(ctypes, "WINFUNCTYPE", ctypes.CFUNCTYPE)  # stdcall on Windows
    callback = factory(ctypes.c_int, ctypes.c_uint)(console_handler())
    cleanup_finished.clear()  # a new command: a closing event waits for its cleanup
    kernel32.SetConsoleCtrlHandler(callback, True)

    def undo() -> None:
        cleanup_finished.set()  # the command is over: a waiting handler may return now
        kernel32.SetConsoleCtrlHandler(callback, False)

    _registered.append(callback)  # ctypes callbacks must outlive their registration
    return undo


_registered: list[Any] = []
