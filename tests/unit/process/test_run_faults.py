"""Fault tests of run_invocation on every transport (F-004, RG-012, STYLE #4).

Each test drives the real spawn path with ``fake-agent`` and synchronises on
its READY line or on marker files, never on sleeps.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import tracemalloc
from pathlib import Path

import pytest

from jlgcli.process import ExecutableNotFound, run_invocation
from jlgcli.process.channel import CHUNK
from jlgcli.process.model import Invocation, Limits, OutputEvent, StopReason
from jlgcli.process.tree import pid_alive

from .conftest import Runner

FAST = Limits(total_timeout=60, kill_grace=0.2)


def test_missing_executable_raises(transport: str) -> None:
    with pytest.raises(ExecutableNotFound) as info:
        run_invocation(Invocation(("no-such-agent",), transport=transport), limits=FAST)  # type: ignore[arg-type]
    assert info.value.name == "no-such-agent"


@pytest.mark.skipif(sys.platform == "win32", reason="a #! script is a POSIX program")
def test_a_script_whose_interpreter_is_missing_did_not_start(
    transport: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Popen (or ptyprocess) raises: an outcome saying why, not a crash (was an internal error)."""
    from jlgcli.process import descendants

    monkeypatch.setattr(descendants, "_launcher", [None])  # no setpriv: the spawn itself fails
    script = tmp_path / "agent"
    script.write_text("#!/nonexistent/interpreter\necho hi\n", encoding="utf-8")
    script.chmod(0o755)
    outcome = run_invocation(Invocation((str(script),), transport=transport), limits=FAST)  # type: ignore[arg-type]
    assert outcome.stop_reason is StopReason.FAILED_TO_START
    assert not outcome.ok and outcome.pid is None
    assert outcome.error is not None
    assert outcome.error.startswith(f"{script} cannot start: ")
    assert "No such file or directory" in outcome.error


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="setpriv is Linux's")
def test_under_setpriv_a_script_that_cannot_start_exits_127_saying_why(
    run: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jlgcli.process import descendants

    if descendants.pdeathsig_launcher() is None:
        pytest.skip("no setpriv with --pdeathsig on this system")
    monkeypatch.setattr(descendants, "supervisor_wanted", lambda: False)  # setpriv's own path
    script = tmp_path / "agent"
    script.write_text("#!/nonexistent/interpreter\n", encoding="utf-8")
    script.chmod(0o755)
    rec = run(str(script), transport="pipe")
    assert (rec.outcome.stop_reason, rec.outcome.exit_code) == (StopReason.EXITED, 127)
    assert f"failed to execute {script}" in rec.stream("stderr")


def test_exits_at_once_with_its_status(run: Runner, transport: str) -> None:
    rec = run("fake-agent", "--exit", "3", transport=transport)
    assert rec.outcome.stop_reason is StopReason.EXITED
    assert (rec.outcome.exit_code, rec.outcome.signal) == (3, None)
    assert rec.outcome.pid is not None
    assert not rec.outcome.ok


def test_success_is_ok_and_output_is_streamed(run: Runner, transport: str) -> None:
    rec = run("sh", "-c", "echo out; echo err >&2", transport=transport)
    assert rec.outcome.ok
    if transport == "pipe":
        assert (rec.stream("stdout"), rec.stream("stderr")) == ("out\n", "err\n")
        assert (rec.outcome.stdout_bytes, rec.outcome.stderr_bytes) == (4, 4)
    else:  # one terminal: both streams arrive as stdout with CRLF
        assert sorted(rec.text.split()) == ["err", "out"]


@pytest.mark.slow
def test_flood_of_100_mib_reaches_the_sinks_without_being_held(run: Runner) -> None:
    sizes: list[int] = []
    tracemalloc.start()
    try:
        rec_outcome = run_invocation(
            Invocation(("fake-agent", "--print-mb", "100")),
            limits=FAST,
            sinks=(lambda e: sizes.append(len(e.text)),),
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert sum(sizes) == 100 * 1024 * 1024 == rec_outcome.stdout_bytes
    assert max(sizes) <= CHUNK  # one event per read, not the whole output
    assert peak < 8 * 1024 * 1024  # a few chunks in flight, not 100 MiB


def test_flood_through_every_transport(run: Runner, transport: str) -> None:
    rec = run("fake-agent", "--print-mb", "8", transport=transport)
    assert rec.outcome.ok
    expected = 8 * 1024 * 1024
    if transport == "pty":  # the terminal turns each "\n" into "\r\n"
        expected += expected // 64
    assert len(rec.text) == expected
    assert max(len(e.text) for e in rec.events) <= CHUNK


def test_silence_past_the_idle_limit_stops_with_idle(run: Runner, transport: str) -> None:
    rec = run(
        "fake-agent",
        "--silent-after-ready",
        transport=transport,
        limits=Limits(total_timeout=60, idle_timeout=0.3, kill_grace=0.2),
    )
    assert rec.outcome.stop_reason is StopReason.IDLE
    assert "READY" in rec.text
    assert any("idle" in line for line in rec.logs)


def test_total_timeout_stops_with_timeout(run: Runner, transport: str) -> None:
    rec = run(
        "fake-agent", "--hang", transport=transport, limits=Limits(total_timeout=0.3, kill_grace=1)
    )
    assert rec.outcome.stop_reason is StopReason.TIMEOUT
    assert rec.outcome.signal == 2 or rec.outcome.exit_code == 130  # SIGINT was enough


def test_ignored_polite_signals_escalate_to_sigkill(
    run: Runner, transport: str, tmp_path: Path
) -> None:
    # Stop only once READY is out: by then the fake ignores signals and its grandchild's pid
    # is written (a short total timeout could expire first on a loaded machine). The cancel
    # goes through the same kill ladder as a timeout.
    pidfile = tmp_path / "gc.pid"
    cancel = threading.Event()

    def on_ready(event: OutputEvent) -> None:
        if "READY" in event.text:
            cancel.set()

    rec = run(
        "fake-agent",
        "--ignore-signals",
        "--spawn-grandchild",
        str(pidfile),
        "--hang",
        transport=transport,
        cancel=cancel,
        extra_sinks=(on_ready,),
        limits=Limits(total_timeout=60, kill_grace=0.2),
    )
    assert rec.outcome.stop_reason is StopReason.CANCELLED
    assert rec.outcome.signal == 9
    ladder = [line.split()[2] for line in rec.logs if line.startswith("kill ladder:")]
    assert ladder == ["SIGINT", "SIGTERM", "SIGKILL"]
    assert not pid_alive(int(pidfile.read_text()))


def test_grandchild_holding_the_pipe_does_not_hang_the_run(
    run: Runner, transport: str, tmp_path: Path
) -> None:
    pidfile = tmp_path / "gc.pid"
    rec = run("fake-agent", "--spawn-grandchild", str(pidfile), transport=transport)
    assert rec.outcome.stop_reason is StopReason.EXITED
    assert rec.outcome.exit_code == 0
    assert "READY" in rec.text
    assert not pid_alive(int(pidfile.read_text()))


def test_surviving_grandchild_that_ignores_signals_is_dead_afterwards(
    run: Runner, transport: str, tmp_path: Path
) -> None:
    pidfile = tmp_path / "gc.pid"
    rec = run(
        "fake-agent",
        "--ignore-signals",
        "--spawn-grandchild",
        str(pidfile),
        transport=transport,
        limits=Limits(total_timeout=60, kill_grace=0.2),
    )
    assert rec.outcome.exit_code == 0
    assert not pid_alive(int(pidfile.read_text()))
    assert any("SIGKILL" in line for line in rec.logs)


def test_a_detached_grandchild_keeping_the_pipe_cannot_hang_the_run(
    run: Runner, transport: str, tmp_path: Path
) -> None:
    # It left our session, so the ladder cannot reach it: reading stops, then the
    # leftover sweep ends it (issue 14; Linux re-parents it to us, see test_descendants).
    pidfile = tmp_path / "daemon.pid"
    try:
        rec = run("fake-agent", "--spawn-grandchild", str(pidfile), "--detach", transport=transport)
        assert rec.outcome.stop_reason is StopReason.EXITED
        assert "READY" in rec.text
        if transport == "pipe":  # drained, or (once this process adopts orphans) ended
            assert any(
                "stopped reading" in line or "outside the group" in line for line in rec.logs
            )
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)


def test_a_character_cut_by_the_exit_is_replaced_not_lost(run: Runner) -> None:
    rec = run("sh", "-c", r"printf 'abc\303'")
    assert rec.text == "abc\ufffd"


def test_invalid_utf8_is_replaced_and_split_characters_survive(run: Runner, transport: str) -> None:
    rec = run("fake-agent", "--invalid-utf8", "--split-multibyte", transport=transport)
    assert "\ufffd" in rec.text
    assert "é€😀" in rec.text
    assert rec.outcome.ok


def test_cancel_event_stops_with_cancelled(run: Runner, transport: str) -> None:
    cancel = threading.Event()

    def on_ready(event: OutputEvent) -> None:
        if "READY" in event.text:
            cancel.set()

    rec = run("fake-agent", "--hang", transport=transport, cancel=cancel, extra_sinks=(on_ready,))
    assert rec.outcome.stop_reason is StopReason.CANCELLED
    assert "cancelled" in rec.logs


def test_keyboard_interrupt_in_a_sink_cancels_and_delivers_the_rest(
    run: Runner, transport: str
) -> None:
    raised: list[bool] = []

    def interrupt_after_ready(event: OutputEvent) -> None:
        if "READY" in event.text and not raised:
            raised.append(True)
            raise KeyboardInterrupt

    rec = run(
        "fake-agent",
        "--slow-lines",
        "100000",
        "--interval",
        "0.001",
        transport=transport,
        extra_sinks=(interrupt_after_ready,),
    )
    assert rec.outcome.stop_reason is StopReason.CANCELLED
    lines = [line for line in rec.text.splitlines() if line.startswith("line ")]
    assert lines == [f"line {i:06d}" for i in range(len(lines))]  # nothing lost or repeated


def test_repeated_interrupts_climb_the_ladder_without_waiting(run: Runner) -> None:
    count = [0]

    def interrupt_thrice(event: OutputEvent) -> None:
        if "READY" in event.text or count[0]:
            count[0] += 1
            if count[0] in (1, 2, 3):
                raise KeyboardInterrupt

    rec = run(
        "fake-agent",
        "--ignore-signals",
        "--slow-lines",
        "100000",
        "--interval",
        "0.001",
        limits=Limits(kill_grace=600),  # only the interrupts can make this end
        extra_sinks=(interrupt_thrice,),
    )
    assert rec.outcome.stop_reason is StopReason.CANCELLED
    assert rec.outcome.signal == 9
    assert sum("interrupted again" in line for line in rec.logs) == 2


def test_a_failing_sink_stops_the_tree_and_the_error_propagates(
    run: Runner, transport: str
) -> None:
    logs: list[str] = []

    def disk_full(event: OutputEvent) -> None:
        if "READY" in event.text:
            raise OSError("No space left on device")

    with pytest.raises(OSError, match="No space"):
        run_invocation(
            Invocation(("fake-agent", "--hang"), transport=transport),  # type: ignore[arg-type]
            limits=FAST,
            sinks=(disk_full,),
            log=logs.append,
        )
    pid = int(logs[0].split("pid ")[1].split(",")[0])
    assert not pid_alive(pid)


def test_stdin_text_is_written_then_closed(run: Runner, transport: str) -> None:
    if transport == "pty":
        pytest.skip("a pty has no separate stdin: see test_run_pty")
    rec = run("fake-agent", "--echo-stdin", stdin="héllo\n" * 50_000, transport=transport)
    assert rec.text == "héllo\n" * 50_000


def test_stdin_is_the_null_device_by_default(run: Runner, transport: str) -> None:
    if transport == "pty":
        pytest.skip("a pty has no null device: nothing is typed")
    rec = run("fake-agent", "--echo-stdin", limits=Limits(total_timeout=30), transport=transport)
    assert rec.outcome.stop_reason is StopReason.EXITED
    assert rec.text == ""


def test_environment_overrides_removals_and_cwd(
    run: Runner, transport: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JLG_SECRET_TOKEN", "s3cret")
    rec = run(
        "sh",
        "-c",
        'echo "[$JLG_ADDED][${JLG_SECRET_TOKEN:-none}]"; pwd',
        transport=transport,
        cwd=str(tmp_path),
        env={"JLG_ADDED": "yes"},
        env_remove=("JLG_SECRET_TOKEN",),
    )
    assert rec.text.split() == ["[yes][none]", str(tmp_path)]


def test_missing_working_directory_is_a_usage_error(run: Runner, tmp_path: Path) -> None:
    from jlgcli.errors import JlgError

    with pytest.raises(JlgError) as info:
        run("true", cwd=str(tmp_path / "absent"))
    assert info.value.code == 64


def test_child_closing_its_output_early_is_still_waited_for(run: Runner) -> None:
    rec = run("sh", "-c", "exec >&- 2>&-; exit 4")
    assert (rec.outcome.stop_reason, rec.outcome.exit_code) == (StopReason.EXITED, 4)
