"""Live progress during an agent call (issue 17): a status line on a terminal, a heartbeat in CI.

``tick(now)`` is driven with explicit times: no test sleeps or asserts a timing.
"""

from __future__ import annotations

import io

from jlgcli.runner.console import Console
from jlgcli.runner.status import HEARTBEAT_S, LiveStatus


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_one_line_redrawn_in_place_while_the_agent_is_silent() -> None:
    err, out = Tty(), io.StringIO()
    console = Console(1, out=out, err=err)
    status = LiveStatus(console, "iteration 2/20 · claude")
    assert status.terminal
    start = status.started
    status.tick(start + 1)  # not silent long enough yet
    assert err.getvalue() == ""
    status.tick(start + 3)
    status.tick(start + 4)
    assert err.getvalue().count("\r\x1b[K[jlgcli] iteration 2/20 · claude · ") == 2
    assert "\n" not in err.getvalue() and "waiting for the agent's first output" in err.getvalue()
    status.saw("Reading files\n[tool] Bash: pytest -q\n")
    console.assistant("more text\n")  # the status line is erased before the agent's text
    assert err.getvalue().endswith("\r\x1b[K") and out.getvalue() == "more text\n"
    status.tick(status.last_output + 5)
    assert "last: [tool] Bash: pytest -q" in err.getvalue()
    assert out.getvalue() == "more text\n"  # never on stdout


def test_without_a_terminal_a_plain_heartbeat_after_long_silence() -> None:
    err = io.StringIO()
    status = LiveStatus(Console(1, out=io.StringIO(), err=err), "claude")
    assert not status.terminal
    start = status.started
    status.tick(start + HEARTBEAT_S / 2)
    assert err.getvalue() == ""
    status.tick(start + HEARTBEAT_S + 1)
    status.tick(start + HEARTBEAT_S + 2)  # at most one line per interval
    lines = err.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("[jlgcli] claude · ")
    assert lines[0].endswith("(still working)") and "\r" not in lines[0]


def test_quiet_runs_show_no_status() -> None:
    err = Tty()
    status = LiveStatus(Console(0, out=io.StringIO(), err=err), "claude")
    status.tick(status.started + 100)
    with status:
        pass
    assert err.getvalue() == ""


def test_json_mode_keeps_status_off_stdout() -> None:
    err, out = Tty(), io.StringIO()
    status = LiveStatus(Console(1, json_mode=True, out=out, err=err), "claude")
    status.tick(status.started + 10)
    assert out.getvalue() == "" and "[jlgcli] claude" in err.getvalue()


def test_a_loops_line_says_the_calls_time_and_the_runs_total() -> None:
    """Issue 49: ``iteration 2/20 · claude · 3.7s`` showed the run's time, read as the
    iteration's; the line names both, on a terminal and in the heartbeat."""
    err = Tty()
    status = LiveStatus(Console(1, out=io.StringIO(), err=err), "iteration 2/20 · claude",
                        total_before_ms=58_500)  # fmt: skip
    status.tick(status.started + 3.7)
    assert "[jlgcli] iteration 2/20 · claude · 3.7s (total 1m02s) · waiting" in err.getvalue()
    plain = io.StringIO()
    beat = LiveStatus(Console(1, out=io.StringIO(), err=plain), "iteration 2/20 · claude",
                      total_before_ms=58_500)  # fmt: skip
    beat.tick(beat.started + HEARTBEAT_S + 1)
    assert plain.getvalue().startswith("[jlgcli] iteration 2/20 · claude · 31s (total 1m29s) · ")
