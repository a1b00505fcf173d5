"""Every way of being told to stop becomes one ``Interrupted`` (a KeyboardInterrupt).

SIGINT (Ctrl-C), SIGTERM (a CI cancel), SIGHUP (a closed terminal or SSH
session) and SIGQUIT (Ctrl-\\) all take the Ctrl-C path: ``run_invocation``
sees a KeyboardInterrupt, stops the whole tree through the kill ladder and
returns CANCELLED with the signal in ``ProcessOutcome.interrupted_by``; the
run records cause ``interrupted`` and exits 128 + the signal's number (130,
143, 129, 131). On Windows, CTRL_BREAK (SIGBREAK) and the console's close,
logoff and shutdown events do the same (``jlgcli.process.console_events``).

``Interrupted`` subclasses KeyboardInterrupt, so every existing
``except KeyboardInterrupt`` keeps working and can read ``signum`` with
``interrupt_signal(exc)``. A signal that was ignored when jlgcli started
(``nohup``, a background job without job control) stays ignored.
"""

from __future__ import annotations

import sys
from types import FrameType

TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal as _signal  # what mypy reads: the same functions and numbers
    from typing import Any
else:
    # The C module under ``signal``, whose import wraps it in enums (~0.7 ms of every
    # command's start-up); ``signal`` itself is imported only to name a signal.
    _signal = __import__("_signal")


IS_WINDOWS = sys.platform == "win32"
SIGPIPE_NUMBER = 13  # POSIX; Windows has no SIGPIPE, the number is only used for the exit code
_first: list[int] = []  # the first interruption of this process (signal number)


class Interrupted(KeyboardInterrupt):
    """A stop request: ``signum`` is the signal that asked for it (SIGINT for Ctrl-C)."""

    def __init__(self, signum: int, name: str | None = None) -> None:
        self.signum = signum
        self.signal_name = name or signal_name(signum)
        super().__init__(self.signal_name)


def signal_name(signum: int) -> str:
    """``SIGTERM`` for 15; ``SIGPIPE`` even on Windows; ``signal N`` for an unknown number."""
    if signum == SIGPIPE_NUMBER and not hasattr(_signal, "SIGPIPE"):
        return "SIGPIPE"
    import signal

    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def interrupt_signal(exc: BaseException | None = None) -> int:
    """The signal behind ``exc`` (a plain KeyboardInterrupt is Ctrl-C: SIGINT)."""
    return int(getattr(exc, "signum", _signal.SIGINT))


def exit_code_for(signum: int) -> int:
    """The shell's convention for a program ended by a signal: 128 + its number."""
    return 128 + signum


def note_interruption(signum: int) -> bool:
    """Remember the first interruption of this process; True if this one is the first."""
    if _first:
        return False
    _first.append(signum)
    return True


def forget_interruptions() -> None:
    """Start afresh: the next interruption is the first (one per command)."""
    _first.clear()


def first_interruption() -> int | None:
    """The signal of the first interruption seen by this process, if any."""
    return _first[0] if _first else None


def termination_signals(*, is_windows: bool = IS_WINDOWS) -> tuple[str, ...]:
    """Names of the signals that take the Ctrl-C path on this platform."""
    if is_windows:
        return ("SIGINT", "SIGTERM", "SIGBREAK")
    return ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")


def raise_interrupted(signum: int, _frame: FrameType | None = None) -> None:
    """The signal handler: record the signal, raise ``Interrupted`` in the main thread."""
    note_interruption(signum)
    raise Interrupted(signum)


def _keeps_default(previous: Any) -> bool:
    # A signal ignored at start (nohup, `cmd &` without job control) stays ignored;
    # a handler someone else installed (not the default ones) stays theirs.
    return previous in (_signal.SIG_DFL, _signal.default_int_handler, None)


class install_termination_handlers:  # noqa: N801 - used as a function, in a ``with``
    """Within the block, the termination signals raise ``Interrupted``; handlers restored after.

    Does nothing outside the main thread (Python only delivers signals there).
    Nested uses are harmless: an inner block sees our handler and keeps it. A class, not
    ``contextlib.contextmanager``: every command enters it, and contextlib costs ~0.7 ms
    of start-up where nothing else needs it (``config get``).
    """

    def __init__(self, *, is_windows: bool = IS_WINDOWS) -> None:
        self.is_windows = is_windows
        self.previous: dict[int, Any] = {}
        self.undo_console: Any = _nothing

    def __enter__(self) -> None:
        # Not loaded yet: no thread was started through it, so this is the main thread (and
        # a command that starts none, such as `config get`, never loads it: ~0.5 ms a start).
        threading = sys.modules.get("threading")
        if threading is not None and threading.current_thread() is not threading.main_thread():
            return
        for name in termination_signals(is_windows=self.is_windows):
            number = getattr(_signal, name, None)
            if number is None:
                continue
            current = _signal.getsignal(number)
            if _keeps_default(current):
                self.previous[number] = _signal.signal(number, raise_interrupted)
        self.undo_console = _watch_console_events(is_windows=self.is_windows)

    def __exit__(self, *exc_info: object) -> None:
        self.undo_console()
        for number, handler in self.previous.items():
            _signal.signal(number, handler)


def _watch_console_events(*, is_windows: bool) -> Any:
    if not is_windows:
        return _nothing
    from jlgcli.process.console_events import watch_console_close  # pragma: no cover

    return watch_console_close()  # pragma: no cover - Windows only


def _nothing() -> None:
    pass
