"""Where a cancelled run's kill ladder starts (a batch's tasks after a TERM to the batch).

A batch stops its tasks by cancelling their runs; a TERM to the batch (a CI runner
cancelling the job) reached each task as SIGINT, so its own events said 130 while the
batch said 143. A run cancelled in a process that was itself told to terminate now starts
its ladder at SIGTERM; any other cancel stays polite (SIGINT / CTRL_BREAK).
"""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

from jlgcli.process import signals
from jlgcli.process.run import _cancelled_rung


@pytest.fixture(autouse=True)
def no_interruption() -> Iterator[None]:
    signals.forget_interruptions()
    yield
    signals.forget_interruptions()


def test_a_cancel_is_polite_when_nothing_interrupted_this_process() -> None:
    assert _cancelled_rung(is_windows=False) == "polite"


def test_a_cancel_after_a_term_to_this_process_starts_at_sigterm() -> None:
    signals.note_interruption(int(signal.SIGTERM))
    assert _cancelled_rung(is_windows=False) == "terminate"


def test_a_cancel_after_ctrl_c_stays_polite() -> None:
    signals.note_interruption(int(signal.SIGINT))
    assert _cancelled_rung(is_windows=False) == "polite"


def test_windows_keeps_its_polite_rung() -> None:
    """CTRL_BREAK is what a Windows child can be asked to stop with; no signal to pick."""
    signals.note_interruption(int(signal.SIGTERM))
    assert _cancelled_rung(is_windows=True) == "polite"
