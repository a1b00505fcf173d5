"""Costs leave jlgcli rounded to the hundredth of a cent (issue 49)."""

from __future__ import annotations

from jlgcli.dev.taskstate import TaskRecord
from jlgcli.money import money


def test_money_rounds_to_1e_4_and_keeps_unknown_unknown() -> None:
    assert money(0.1 + 0.2 + 0.3 + 0.6) == 1.2
    assert money(0.01234) == 0.0123
    assert money(None) is None
    assert money(0) == 0.0  # a reported zero stays a zero, never made up


def test_the_dev_loops_totals_are_rounded() -> None:
    class Reply:
        run_id, ok, input_tokens, output_tokens = "r", True, 1, 2

        def __init__(self, cost: float) -> None:
            self.cost_usd = cost

    task = TaskRecord("TASK-001")
    for cost in (0.1, 0.2, 0.3, 0.6):
        task.add_call("implement", "claude", Reply(cost))
    assert task.totals()["costUsd"] == 1.2
