"""What the model is told after a step (REQ_AUTO_030: stdout, stderr and return code fed back)."""

from __future__ import annotations

import pytest

from jlgcli.process.model import ProcessOutcome, StopReason
from jlgcli.process.outcome import OutputTail
from jlgcli.rebound.execute import ExecutionResult
from jlgcli.rebound.instructions import REMINDER, continuation, execution_block


def _result(
    *,
    exit_code: int | None = 0,
    stop_reason: str = "exited",
    error: str | None = None,
    stdout: str = "out\n",
    stdout_bytes: int = 4,
) -> ExecutionResult:
    outcome = ProcessOutcome(
        exit_code, None, StopReason(stop_reason), 0.5,
        stdout_bytes=stdout_bytes, output=OutputTail.holding(stdout=stdout), error=error,
    )  # fmt: skip
    return ExecutionResult(("py", "s.py"), "/p", outcome, timeout=60.0)


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({}, "outcome: exited with return code 0"),
        ({"exit_code": 3}, "outcome: exited with return code 3"),
        ({"stop_reason": "timeout", "exit_code": None}, "killed after the 60 s timeout"),
        ({"stop_reason": "cancelled", "exit_code": None}, "interrupted by the user"),
        ({"stop_reason": "failed-to-start", "error": "OSError: no python"}, "no python"),
    ],
)
def test_execution_block_describes_the_outcome(overrides: dict[str, object], expected: str) -> None:
    block = execution_block(4, "workbench/scripts/s.py", _result(**overrides))  # type: ignore[arg-type]
    assert block.startswith("=== jlgcli rebound: result of step 4 ===")
    assert expected in block
    assert "--- stdout (4 bytes) ---\nout\n--- stderr (0 bytes) ---\n(empty)" in block


def test_truncation_is_noted() -> None:
    output = OutputTail(4, 4)
    output.add("stdout", b"0123456789")
    outcome = ProcessOutcome(0, None, StopReason.EXITED, 0.5, stdout_bytes=10**6, output=output)
    block = execution_block(1, "t.py", ExecutionResult(("py", "t.py"), "/p", outcome))
    assert "0123\n[... 2 bytes omitted by jlgcli ...]\n6789" in block
    assert (
        "--- stdout (1,000,000 bytes) (truncated: only the beginning and the end are shown)"
        in block
    )


def test_continuation_joins_prompt_blocks_and_reminder() -> None:
    assert continuation("  Look.  ", "B1", "") == f"Look.\n\nB1\n\n{REMINDER}"
    assert continuation(None, "B1") == f"B1\n\n{REMINDER}"
    assert continuation("   ") == REMINDER
