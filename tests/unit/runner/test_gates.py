"""Gates (issue 17) on the one process outcome: the bounded, cleaned, redacted tail (issue 13)."""

from __future__ import annotations

import shlex
import sys
import threading
from pathlib import Path

import pytest

from jlgcli.runner.gates import TAIL_CHARS, failed_gates_block, run_gates


def _python(code: str) -> str:
    return shlex.join([sys.executable, "-c", code])


def test_a_flood_of_output_keeps_only_the_cleaned_tail(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "for i in range(20000): print('line', i)\n"
        # stdout is block-buffered into a pipe: without the flush its last block
        # would follow the stderr line, and two pipes are merged in arrival order
        "sys.stdout.flush()\n"
        "print('\\x1b[31mlast words\\x1b[0m', file=sys.stderr)\n"
        "sys.exit(4)"
    )
    [gate] = run_gates((_python(code),), tmp_path, redact=lambda text: text)
    assert (gate.ok, gate.exitCode) == (False, 4)
    assert len(gate.outputTail) <= TAIL_CHARS
    assert gate.outputTail.endswith("last words")  # escape codes removed, stderr included
    assert "line 19999" in gate.outputTail and "line 0\n" not in gate.outputTail


def test_the_tail_is_redacted_and_a_passing_gate_is_ok(tmp_path: Path) -> None:
    code = "print('token=abc123')"
    [gate] = run_gates(
        (_python(code),), tmp_path, redact=lambda text: text.replace("abc123", "[REDACTED]")
    )
    assert gate.ok and gate.exitCode == 0
    assert gate.outputTail == "token=[REDACTED]"


def test_missing_and_empty_commands_are_failed_gates(tmp_path: Path) -> None:
    missing, empty = run_gates(("no-such-gate-xyz --check", ""), tmp_path, redact=str)
    assert (missing.ok, missing.exitCode) == (False, None)
    assert missing.outputTail == "no-such-gate-xyz: command not found"
    assert empty.outputTail == "empty gate command"
    assert "(was stopped)" in failed_gates_block([missing])


@pytest.mark.skipif(sys.platform == "win32", reason="a #! script is a POSIX program")
def test_a_gate_that_cannot_start_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from jlgcli.process import descendants

    monkeypatch.setattr(descendants, "_launcher", [None])  # the spawn itself fails
    script = tmp_path / "check"
    script.write_text("#!/nonexistent/interpreter\n", encoding="utf-8")
    script.chmod(0o755)
    [gate] = run_gates((str(script),), tmp_path, redact=str)
    assert (gate.ok, gate.exitCode) == (False, None)
    assert gate.outputTail.startswith(f"{script} cannot start: ")


def test_a_gate_over_its_time_limit_says_so(tmp_path: Path) -> None:
    code = "import time; print('working', flush=True); time.sleep(60)"
    [gate] = run_gates((_python(code),), tmp_path, redact=str, timeout_s=0.5)
    assert not gate.ok
    assert gate.outputTail.startswith("working") and "(stopped after" in gate.outputTail


def test_a_cancelled_gate_interrupts_the_loop(tmp_path: Path) -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(KeyboardInterrupt):
        run_gates((_python("import time; time.sleep(60)"),), tmp_path, redact=str, cancel=cancel)


# -- checked before the first call (issue 31) ---------------------------------------------------
@pytest.mark.parametrize(
    ("command", "posix", "windows"),
    [
        ("pytest -q && echo ok", "&&", "&&"),
        ("pytest -q; echo ok", ";", ";"),
        ("pytest -q 2>&1", ">&", ">&"),
        ("sleep 5 &", "&", "&"),
        ('python -c "print(1 > 0)"', None, None),
        ("python -c 'a|b'", None, "|"),  # a single quote is no quote on Windows
        ("find . -exec rm {} \\;", None, ";"),  # an escaped ; is an argument on POSIX
        ('echo "a\\"|b"', None, None),  # \" inside double quotes
        ('echo a\\"|b', "|", "|"),  # an escaped quote opens nothing
        ('echo a\\\\"|b"', None, None),  # Windows: 2 backslashes, then a real quote
    ],
)
def test_shell_operators_outside_quotes_are_found(
    command: str, posix: str | None, windows: str | None
) -> None:
    from jlgcli.runner.gates import shell_operator

    assert shell_operator(command, is_windows=False) == posix
    assert shell_operator(command, is_windows=True) == windows


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("", "empty gate command"),
        ("pytest -q | tail", "'|' is shell syntax"),
        ("'abc", "no closing quotation"),
        ("no-such-program-31 -q", "no-such-program-31: command not found"),
    ],
)
def test_a_gate_that_cannot_run_is_a_usage_error(command: str, message: str) -> None:
    from jlgcli.errors import ExitCode, JlgError
    from jlgcli.runner.gates import check_gates

    with pytest.raises(JlgError) as caught:
        check_gates((_python("pass"), command), is_windows=False)
    assert caught.value.code == ExitCode.USAGE and message in caught.value.message
    assert "--gate" in (caught.value.hint or "")


def test_a_failing_gate_is_shown_with_its_exit_and_last_lines() -> None:
    from jlgcli.runner.gates import failure_lines
    from jlgcli.runner.summary import GateResult

    tail = "\n".join(f"line {i}" for i in range(30))
    shown = failure_lines(GateResult("pytest -q", 1, 5, False, tail), limit=3)
    assert shown == ["gate failed (exit 1): pytest -q", "  | line 27", "  | line 28", "  | line 29"]
    stopped = failure_lines(GateResult("pytest -q", None, 5, False, ""))
    assert stopped == ["gate failed (was stopped): pytest -q"]
