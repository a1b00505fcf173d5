"""SIGTERM (CI cancel) becomes KeyboardInterrupt so the tree is stopped like on Ctrl-C."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from jlgcli.process import install_termination_handlers
from jlgcli.process.signals import termination_signals


def test_signal_names_per_platform() -> None:
    assert termination_signals(is_windows=False) == ("SIGTERM",)
    assert termination_signals(is_windows=True) == ("SIGTERM", "SIGBREAK")


@pytest.mark.skipif(os.name == "nt", reason="os.kill(SIGTERM) terminates at once on Windows")
def test_sigterm_raises_keyboard_interrupt_inside_and_is_restored_after() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), install_termination_handlers():
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):  # the handler runs between bytecodes of the main thread
            pass
    assert signal.getsignal(signal.SIGTERM) is before


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
