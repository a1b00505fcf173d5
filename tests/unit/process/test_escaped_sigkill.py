"""The SIGKILL rung reaches descendants that left the process group (issue 45, issue 14).

Issue 45 names a deliberate bug no test caught: the kill ladder's last rung
skipping the escaped descendants recorded when the stop began. Their SIGTERM
is ignored, so only the ladder's SIGKILL ends them while the run is stopping
(the leftover sweep after the run is a second net, not the ladder's job).
These tests fail when ``_Run._signal_escapers`` returns early for ``"kill"``
or when ``Ladder.advance`` does not hand the ``"kill"`` rung to ``on_rung``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from pathlib import Path

import pytest

from jlgcli.process import run as run_module
from jlgcli.process.model import Limits, OutputEvent, StopReason
from jlgcli.process.tree import RUNGS, Ladder, ProcessTree, pid_alive

from .conftest import Runner

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.process.tree import Rung

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")


def test_the_ladder_hands_every_rung_to_on_rung_including_kill() -> None:
    seen: list[Rung] = []
    tree = ProcessTree(pid=2**22 + 7, pgid=None, exited=lambda: False, kill_child=lambda: None)
    ladder = Ladder(tree, grace=0, log=lambda _m: None, on_rung=seen.append, is_windows=True)
    sent: list[Rung] = []
    with pytest.MonkeyPatch.context() as patch:  # no real signal: the tree is made up
        patch.setattr("jlgcli.process.tree.send_rung", lambda _t, rung, **_k: sent.append(rung))
        for _ in RUNGS:
            ladder.advance(force=True)
    assert sent == ["polite", "terminate", "kill"]
    assert seen == ["polite", "terminate", "kill"]


def test_the_sigkill_rung_reaches_an_escaped_descendant_that_ignores_sigterm(
    run: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pidfile = tmp_path / "daemon.pid"
    signalled: list[tuple[set[int], int | None]] = []
    real = run_module.signal_processes

    def recording(processes: list[object], signum: int | None) -> None:
        signalled.append(({p.pid for p in processes}, signum))  # type: ignore[attr-defined]
        real(processes, signum)  # type: ignore[arg-type]

    monkeypatch.setattr(run_module, "signal_processes", recording)
    cancel = threading.Event()

    def on_ready(event: OutputEvent) -> None:
        if "READY" in event.text:
            cancel.set()

    try:
        rec = run(
            "fake-agent",
            "--ignore-signals",
            "--spawn-grandchild",
            str(pidfile),
            "--detach",
            "--hang",
            transport="pipe",
            cancel=cancel,
            extra_sinks=(on_ready,),
            limits=Limits(total_timeout=60, kill_grace=0.2),
        )
        daemon = int(pidfile.read_text(encoding="utf-8"))
        assert rec.outcome.stop_reason is StopReason.CANCELLED
        assert any("SIGKILL" in line for line in rec.logs)  # the agent ignored SIGINT and SIGTERM
        kills = [pids for pids, signum in signalled if signum == signal.SIGKILL]
        assert any(daemon in pids for pids in kills), signalled
        assert not pid_alive(daemon)
    finally:
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(pidfile.read_text(encoding="utf-8")), signal.SIGKILL)
