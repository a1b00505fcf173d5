"""A cancel seen after the child ended stops nothing (issue 49: the one-shot's login check).

The login check beside a call is cancelled when the call ends; its ``login status``
had often ended already, its exit not yet polled. Starting the kill ladder then took a
snapshot of the tree (psutil, ~12 ms to import) and sent signals to nobody.
"""

from __future__ import annotations

import os
import sys
import threading

import pytest

from jlgcli.process.child import start_child
from jlgcli.process.model import Invocation, Limits, StopReason
from jlgcli.process.run import _Run

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="waitid is POSIX's")


@posix_only
def test_a_cancel_after_the_child_exited_reports_its_exit_and_starts_no_ladder() -> None:
    argv = ("sh", "-c", "exit 3")
    child = start_child(
        "pipe", argv, cwd=None, env=dict(os.environ), stdin=None, dimensions=(24, 80)
    )
    os.waitid(os.P_PID, child.tree.pid, os.WEXITED | os.WNOWAIT)  # ended, not reaped
    cancel = threading.Event()
    cancel.set()
    logs: list[str] = []
    run = _Run(Invocation(argv), child, Limits(total_timeout=30), (), cancel, logs.append, None)
    outcome = run.execute()
    assert (outcome.stop_reason, outcome.exit_code) == (StopReason.EXITED, 3)
    assert run.ladder is None and "cancelled" not in logs
