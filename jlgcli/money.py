"""Costs as jlgcli shows them: US dollars to the hundredth of a cent.

Costs add up as floats (0.1 + 0.2 + … gives 1.2000000000000002); every place a
cost leaves jlgcli (``--json``, ``result.json``, events, ``runs``, the dev loop's
and a batch's totals, the Action's outputs) rounds it here, once, to 1e-4 dollars.
Budgets are judged on the unrounded sums.
"""

from __future__ import annotations

COST_DIGITS = 4  # a hundredth of a cent


def money(value: float | None) -> float | None:
    """``value`` rounded to ``COST_DIGITS`` decimals; None (unknown) stays None."""
    return None if value is None else round(float(value), COST_DIGITS)
