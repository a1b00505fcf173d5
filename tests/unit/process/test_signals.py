"""Every stop request takes the Ctrl-C path as ``Interrupted`` carrying its signal (issue 14)."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from jlgcli.process import install_termination_handlers
from jlgcli.process.console_events import (
    CTRL_CLOSE_EVENT,
    CTRL_LOGOFF_EVENT,
    console_handler,
    watch_console_close,
)
from jlgcli.process.signals import (
    Interrupted,
    exit_code_for,
    first_interruption,
    forget_interruptions,
    interrupt_signal,
    signal_name,
    termination_signals,
)

posix_only = pytest.mark.skipif(os.name == "nt", reason="os.kill terminates at once on Windows")


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    forget_interruptions()
    yield
    forget_interruptions()


def test_signal_names_per_platform() -> None:
    assert termination_signals(is_windows=False) == ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")
    assert termination_signals(is_windows=True) == ("SIGINT", "SIGTERM", "SIGBREAK")


def test_exit_codes_follow_the_shell_convention() -> None:
    assert [exit_code_for(n) for n in (2, 15, 1, 3, 13)] == [130, 143, 129, 131, 141]
    assert signal_name(15) == "SIGTERM"
    assert signal_name(13) == "SIGPIPE"
    assert signal_name(999) == "signal 999"


def test_interrupted_is_a_keyboard_interrupt_carrying_its_signal() -> None:
    exc = Interrupted(15)
    assert isinstance(exc, KeyboardInterrupt)
    assert (exc.signum, exc.signal_name) == (15, "SIGTERM")
    assert interrupt_signal(exc) == 15
    assert interrupt_signal(KeyboardInterrupt()) == signal.SIGINT  # plain Ctrl-C


@posix_only
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"])
def test_each_signal_raises_interrupted_inside_and_is_restored_after(name: str) -> None:
    number = getattr(signal, name)
    # Under nohup SIGHUP starts ignored, and an ignored signal stays so (next test): start
    # from the default, as a terminal's shell does.
    started = signal.signal(
        number, signal.default_int_handler if name == "SIGINT" else signal.SIG_DFL
    )
    try:
        before = signal.getsignal(number)
        with pytest.raises(Interrupted) as caught, install_termination_handlers():
            os.kill(os.getpid(), number)
            for _ in range(1000):  # the handler runs between bytecodes of the main thread
                pass
        assert caught.value.signum == number
        assert first_interruption() == number
        assert signal.getsignal(number) is before
    finally:
        signal.signal(number, started)


@posix_only
def test_a_signal_ignored_at_start_stays_ignored() -> None:  # nohup
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with install_termination_handlers():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGHUP)  # nothing happens
        assert first_interruption() is None
    finally:
        signal.signal(signal.SIGHUP, previous)


def test_only_the_first_interruption_is_remembered() -> None:
    from jlgcli.process.signals import note_interruption

    assert note_interruption(1) is True
    assert note_interruption(15) is False
    assert first_interruption() == 1


def test_outside_the_main_thread_it_does_nothing() -> None:
    before = signal.getsignal(signal.SIGTERM)
    seen: list[object] = []

    def worker() -> None:
        with install_termination_handlers():
            seen.append(signal.getsignal(signal.SIGTERM))

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == [before]


def test_windows_console_close_interrupts_main_and_waits_for_the_cleanup() -> None:
    interrupted: list[int] = []
    done = threading.Event()
    handle = console_handler(interrupted.append, wait=30, done=done)
    results: list[int] = []
    thread = threading.Thread(target=lambda: results.append(handle(CTRL_CLOSE_EVENT)))
    thread.start()
    assert not done.is_set()
    done.set()  # the main thread finished stopping the tree and writing the result
    thread.join()
    sigbreak = int(getattr(signal, "SIGBREAK", 21))
    assert interrupted == [sigbreak]
    assert results == [1]
    assert first_interruption() == sigbreak
    assert handle(0) == 0  # CTRL_C_EVENT is Python's own: not handled here
    assert handle(CTRL_LOGOFF_EVENT) == 1


def test_windows_console_handler_is_registered_and_removed() -> None:
    calls: list[tuple[Any, bool]] = []

    class FakeKernel32:
        def SetConsoleCtrlHandler(self, callback: Any, add: bool) -> int:
            calls.append((callback, add))
            return 1

    from jlgcli.process.console_events import cleanup_finished

    cleanup_finished.clear()
    undo = watch_console_close(FakeKernel32())
    assert not cleanup_finished.is_set()
    undo()
    assert cleanup_finished.is_set()  # a handler waiting for the cleanup is released
    assert [add for _cb, add in calls] == [True, False]
    assert calls[0][0] is calls[1][0]
