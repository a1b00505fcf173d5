"""Ctrl-C, CI cancellation, hang-up and quit of a process that calls run_invocation (STYLE #4).

A small driver program runs ``fake-agent`` through ``run_invocation`` and
writes every byte its sink receives to a file. The test waits for the
driver's READY (printed once 20 lines of the agent reached the sink), sends it
SIGINT, SIGTERM, SIGHUP or SIGQUIT, and checks: the outcome carries the signal
(``interrupted_by``), the driver exits 128 + its number (issue 14), the agent and
its grandchild are dead, and what was delivered is exactly what the agent wrote.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support.environ import without_coverage
from support.platform_names import signal_param

from jlgcli.process.tree import pid_alive

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.name == "nt", reason="POSIX signals; Windows uses CTRL_BREAK_EVENT"),
]

DRIVER = r"""
import json, sys
from jlgcli.process import install_termination_handlers, run_invocation
from jlgcli.process.model import Invocation, Limits, StopReason

delivered = open(sys.argv[1], "wb")
transport = sys.argv[2]
lines = 0

def sink(event):
    global lines
    if event.stream != "stdout":
        return
    delivered.write(event.text.encode("utf-8"))
    delivered.flush()
    lines += event.text.count("\n")
    if lines >= 20 and lines - event.text.count("\n") < 20:  # mid-stream: tell the test
        print("READY", flush=True)

with install_termination_handlers():
    outcome = run_invocation(
        Invocation(tuple(sys.argv[3:]), transport=transport),
        limits=Limits(kill_grace=5),
        sinks=[sink],
        log=lambda line: print("log:", line, file=sys.stderr, flush=True),
    )
delivered.close()
print(json.dumps({"reason": outcome.stop_reason.value, "pid": outcome.pid,
                  "stdout_bytes": outcome.stdout_bytes,
                  "interrupted_by": outcome.interrupted_by}), flush=True)
cancelled = outcome.stop_reason is StopReason.CANCELLED
sys.exit(128 + outcome.interrupted_by if cancelled else (outcome.exit_code or 0))
"""


@pytest.mark.parametrize(
    ("transport", "signum"),
    [  # names, not signal.SIGHUP: evaluated at import, where Windows has none (issue 35)
        signal_param("pipe", "SIGINT"),
        signal_param("pty", "SIGINT"),
        signal_param("pipe", "SIGTERM"),
        signal_param("pipe", "SIGHUP"),
        signal_param("pty", "SIGQUIT"),
    ],
)
def test_interrupt_kills_the_tree_delivers_every_byte_and_exits_128_plus_n(
    tmp_path: Path, transport: str, signum: int
) -> None:
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER, encoding="utf-8")
    delivered, record, pidfile = tmp_path / "delivered", tmp_path / "record", tmp_path / "gc.pid"
    proc = subprocess.Popen(
        [
            sys.executable,
            str(driver),
            str(delivered),
            transport,
            "fake-agent",
            "--spawn-grandchild",
            str(pidfile),
            "--slow-lines",
            "1000000",
            "--interval",
            "0.002",
            "--record",
            str(record),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env=without_coverage(),  # signalled: not measured (support/environ.py says why)
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "READY"
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 128 + signum, err
        summary = json.loads(out.strip().splitlines()[-1])
        assert (summary["reason"], summary["interrupted_by"]) == ("cancelled", signum)
        assert "kill ladder: SIGINT" in err
        assert not pid_alive(summary["pid"])
        assert not pid_alive(int(pidfile.read_text()))
        text = delivered.read_bytes()
        assert len(text) == summary["stdout_bytes"] or transport == "pty"
        written = record.read_bytes()
        if transport == "pty":  # the terminal adds "\r" before each "\n"
            text = text.replace(b"\r\n", b"\n")
        body = text.replace(b"READY\n", b"")
        assert body == written.replace(b"READY\n", b""), "delivered differs from what was written"
        assert body.count(b"\n") >= 19
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        # A failed case must not leave the grandchild (its own session) asleep for an hour.
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)
