"""A CLI that reports a session's running total is counted once (issue 48).

claude 2.1.277+: ``total_cost_usd`` of a resumed session continues from the total its
transcript saved (2.1.332's result schema: "read the latest result rather than summing").
"""

from __future__ import annotations

from jlgcli.backends.base import BackendResult
from jlgcli.runner.policy import Counters


def reported(usd: float | None, *, session: str | None = "s1", total: bool = True) -> BackendResult:
    return BackendResult(
        text="", ok=True, exit_code=0, session_id=session, cost_usd=usd,
        cost_is_session_total=total,
    )  # fmt: skip


def test_a_running_total_counts_what_it_grew_by() -> None:
    counters = Counters()
    owns = [counters.own_cost(reported(usd)) for usd in (0.01, 0.03, 0.03)]
    assert [round(o or 0, 6) for o in owns] == [0.01, 0.02, 0.0]
    assert counters.session_totals == {"s1": 0.03}


def test_each_session_has_its_own_total() -> None:
    counters = Counters()
    counters.own_cost(reported(0.05, session="a"))
    assert counters.own_cost(reported(0.02, session="b")) == 0.02


def test_a_total_that_shrank_is_a_new_session_counted_whole() -> None:
    counters = Counters(session_totals={"s1": 0.5})
    assert counters.own_cost(reported(0.1)) == 0.1


def test_a_per_call_cost_is_taken_as_it_is() -> None:
    counters = Counters(session_totals={"s1": 0.5})
    assert counters.own_cost(reported(0.01, total=False)) == 0.01
    assert counters.own_cost(reported(None)) is None
    assert counters.own_cost(reported(0.2, session=None)) == 0.2
    assert counters.session_totals == {"s1": 0.5}
