"""Commands run through jlgcli.process with bounded output (seed 003 FR-8.2)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from jlgcli.dev import proc
from jlgcli.dev.proc import CommandResult, run_command
from jlgcli.process.signals import Interrupted


def test_output_head_and_tail(tmp_path: Path) -> None:
    seen: list[str] = []
    code = "import sys; print('out'); print('err', file=sys.stderr); sys.exit(2)"
    result = run_command([sys.executable, "-c", code], tmp_path, on_output=seen.append)
    assert (result.ok, result.exit_code, result.stop) == (False, 2, "exited")
    assert result.stdout == "out\n"
    assert "out" in result.output and "err" in result.output
    assert result.describe() == "exit 2"
    assert "".join(seen) == result.output


def test_stdin_is_passed(tmp_path: Path) -> None:
    code = "import sys; sys.stdout.write(sys.stdin.read().upper())"
    assert run_command([sys.executable, "-c", code], tmp_path, stdin="abc").stdout == "ABC"


def test_head_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(proc, "HEAD_LIMIT", 10)
    result = run_command([sys.executable, "-c", "print('x' * 100)"], tmp_path)
    assert result.stdout == "x" * 10
    assert result.truncated


def test_missing_program(tmp_path: Path) -> None:
    result = run_command(["no-such-program-xyz"], tmp_path)
    assert (result.ok, result.stop, result.describe()) == (False, "not-found", "command not found")
    assert "no-such-program-xyz: command not found" in result.excerpt()


def test_interleaved_tail_is_bounded_and_starts_on_a_character(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(proc, "TAIL_LIMIT", 9)
    code = "import sys; sys.stdout.write('a' * 50 + 'é' * 20); sys.stdout.flush()"
    result = run_command([sys.executable, "-c", code], tmp_path)
    assert result.output in ("é" * 4, "é" * 5)  # 9 bytes: never half a character
    assert result.stdout == "a" * 50 + "é" * 20  # the head keeps the whole of stdout


def test_timeout(tmp_path: Path) -> None:
    code = "import time; print('ready', flush=True); time.sleep(30)"
    result = run_command([sys.executable, "-c", code], tmp_path, timeout=0.5)
    assert result.describe() == "timed out"
    assert not result.ok


def test_killed_by_signal_and_excerpt() -> None:
    from jlgcli.process.model import ProcessOutcome, StopReason
    from jlgcli.process.outcome import OutputTail

    lines = OutputTail.holding(stdout="\n".join(f"l{i}" for i in range(40)))
    result = CommandResult(("x",), ProcessOutcome(None, 9, StopReason.EXITED, 0.0, output=lines))
    assert result.describe() == "killed by a signal"
    assert result.excerpt(3) == "l37\nl38\nl39"


def test_cancelled_run_is_interrupted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from jlgcli.process.model import ProcessOutcome, StopReason

    def cancelled(*_: object, **__: object) -> ProcessOutcome:
        return ProcessOutcome(None, 2, StopReason.CANCELLED, 0.1)

    monkeypatch.setattr("jlgcli.process.run_captured", cancelled)
    with pytest.raises(Interrupted):
        run_command(["anything"], tmp_path)
