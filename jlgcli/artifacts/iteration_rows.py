"""Each iteration of a recorded run in one row: ``runs show``'s table (issue 51).

The facts are the iteration records a run keeps (``IterationMetrics``): in
``result.json``'s ``iterationMetrics`` when the run wrote one, else in a
loop's ``state.json`` ``metrics`` (checked by ``runner.state_schema`` before
this reads them). Everything here is input read back: a field of the wrong
type is shown as unknown, never an error.
"""

from __future__ import annotations

import math
from typing import Any

from jlgcli.records import record


@record
class IterationRow:
    """One iteration: how long, on what, for how much, what it changed, its gates."""

    index: int
    duration_ms: int | None
    backend: str | None
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    files: int | None  # files changed in the work tree (None: not known)
    insertions: int | None
    deletions: int | None
    gates_passed: int
    gates_failed: int
    completion: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "iteration": self.index,
            "durationMs": self.duration_ms,
            "backend": self.backend,
            "inputTokens": self.input_tokens,
            "outputTokens": self.output_tokens,
            "costUsd": self.cost_usd,
            "filesChanged": self.files,
            "insertions": self.insertions,
            "deletions": self.deletions,
            "gatesPassed": self.gates_passed,
            "gatesFailed": self.gates_failed,
            "completion": self.completion,
        }


def iteration_rows(
    result: dict[str, Any] | None, state: dict[str, Any] | None
) -> list[IterationRow]:
    """The rows of a run's iterations, from ``result.json`` else ``state.json``."""
    records = (result or {}).get("iterationMetrics")
    if not isinstance(records, list) or not records:
        records = (state or {}).get("metrics")
    if not isinstance(records, list):
        return []
    rows = [_row(item, n) for n, item in enumerate(records, start=1) if isinstance(item, dict)]
    return rows


def _row(item: dict[str, Any], n: int) -> IterationRow:
    stat = item.get("diffStat") if isinstance(item.get("diffStat"), dict) else {}
    assert isinstance(stat, dict)
    gates = [g for g in item.get("gates") or [] if isinstance(g, dict)]
    index = _whole(item.get("index"))
    return IterationRow(
        index=n if index is None else index,
        duration_ms=_whole(item.get("durationMs")),
        backend=item["backend"] if isinstance(item.get("backend"), str) else None,
        input_tokens=_whole(item.get("inputTokens")),
        output_tokens=_whole(item.get("outputTokens")),
        cost_usd=_money(item.get("costUsd")),
        files=_whole(stat.get("files")),
        insertions=_whole(stat.get("insertions")),
        deletions=_whole(stat.get("deletions")),
        gates_passed=sum(1 for g in gates if g.get("ok") is True),
        gates_failed=sum(1 for g in gates if g.get("ok") is False),
        completion=item["completion"] if isinstance(item.get("completion"), str) else None,
    )


def _whole(value: Any) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if ok else None


def _money(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None
