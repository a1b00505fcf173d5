"""runs show's table of iterations (issue 51): rows from result.json or state.json, fitted
to the terminal's width."""

from __future__ import annotations

from typing import Any

import pytest

from jlgcli.artifacts.iteration_rows import iteration_rows
from jlgcli.commands.runs_table import iteration_table


def _metric(index: int, **fields: Any) -> dict[str, Any]:
    return {"index": index, "durationMs": 1500, "stopReason": "exited", "completion": "continue",
            "outputChars": 10, **fields}  # fmt: skip


GATE_OK = {"command": "pytest", "exitCode": 0, "durationMs": 5, "ok": True}
GATE_FAIL = {"command": "ruff", "exitCode": 1, "durationMs": 5, "ok": False}


def test_rows_come_from_the_result_else_from_the_state() -> None:
    state = {"metrics": [_metric(1, backend="codex")]}
    result = {"iterationMetrics": [_metric(1, backend="claude"), _metric(2, backend="claude")]}
    assert [row.backend for row in iteration_rows(result, state)] == ["claude", "claude"]
    assert [row.backend for row in iteration_rows({"iterationMetrics": []}, state)] == ["codex"]
    assert iteration_rows(None, None) == [] and iteration_rows(None, {"metrics": "x"}) == []


def test_a_row_holds_what_the_iteration_recorded() -> None:
    (row,) = iteration_rows(None, {"metrics": [_metric(
        3, backend="claude", inputTokens=12_345, outputTokens=67, costUsd=0.25,
        diffStat={"files": 2, "insertions": 10, "deletions": 4}, gates=[GATE_OK, GATE_FAIL],
    )]})  # fmt: skip
    assert row.to_json() == {
        "iteration": 3, "durationMs": 1500, "backend": "claude", "inputTokens": 12_345,
        "outputTokens": 67, "costUsd": 0.25, "filesChanged": 2, "insertions": 10,
        "deletions": 4, "gatesPassed": 1, "gatesFailed": 1, "completion": "continue",
    }  # fmt: skip
    lines = iteration_table([row], 200)
    assert lines[0].split() == ["#", "DURATION", "BACKEND", "TOKENS", "COST", "FILES", "(+/−)",
                                "GATES"]  # fmt: skip
    assert lines[1].split() == ["3", "1.5s", "claude", "12.3k/67", "$0.2500", "2", "+10", "−4",
                                "✓✗"]  # fmt: skip


def test_what_a_record_got_wrong_is_shown_as_unknown() -> None:
    damaged = {"index": "x", "durationMs": -1, "backend": 7, "inputTokens": True,
               "costUsd": float("nan"), "diffStat": "lots", "gates": ["x", GATE_OK]}  # fmt: skip
    (row,) = iteration_rows({"iterationMetrics": [damaged, "not a record"]}, None)
    assert (row.index, row.duration_ms, row.backend, row.input_tokens) == (1, None, None, None)
    assert (row.cost_usd, row.files, row.gates_passed) == (None, None, 1)
    assert iteration_table([row], 80)[1].split() == ["1", "-", "-", "-", "-", "-", "✓"]


def test_many_gates_and_big_numbers_stay_short() -> None:
    gates = [GATE_OK] * 7 + [GATE_FAIL]
    (row,) = iteration_rows(None, {"metrics": [_metric(1, gates=gates, inputTokens=3_400_000,
                                                       outputTokens=None)]})  # fmt: skip
    assert iteration_table([row], 200)[1].split()[3] == "3.4M/?"
    assert iteration_table([row], 200)[1].split()[-2:] == ["7✓", "1✗"]


@pytest.mark.parametrize("width", [40, 50, 60, 200])
def test_the_table_fits_the_terminal(width: int) -> None:
    rows = iteration_rows(None, {"metrics": [
        _metric(n, backend="a-very-long-custom-backend\x1b[2J", inputTokens=123_456,
                outputTokens=7_890, costUsd=12.5, diffStat={"files": 120, "insertions": 99_999,
                "deletions": 88_888}, gates=[GATE_OK] * 3)
        for n in range(1, 120)
    ]})  # fmt: skip
    lines = iteration_table(rows, width)
    assert len(lines) == 120 and all(len(line) <= width for line in lines)
    assert "\x1b" not in "".join(lines)
    assert ("TOKENS" in lines[0]) is (width >= 200)
    assert iteration_table([], width) == []
