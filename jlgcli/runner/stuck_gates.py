"""Gate failures count toward no progress (issue 44, RG-013).

A model that says done while the same gate keeps failing and no file changes
is as stuck as one that repeats its reply: the loop stops it (exit 5) after
``noProgressLimit`` such failures in a row, naming the gate, instead of
running every iteration left. A changed file, another gate failing, or an
iteration that did not end in failed gates starts the count again.
"""

from __future__ import annotations


class StuckGates:
    """Counts the same gates failing, with no file changed, iteration after iteration."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.streak = 0
        self._failed: tuple[str, ...] = ()

    def observe(self, failed: tuple[str, ...], *, worktree_changed: bool) -> bool:
        """One iteration whose gates ``failed`` (empty: none failed, or none ran); True when
        the loop should stop for no progress."""
        if not failed or worktree_changed:
            self.streak, self._failed = 0, failed
            return False
        self.streak = self.streak + 1 if failed == self._failed else 1
        self._failed = failed
        return self.streak >= self.limit

    def message(self) -> str:
        gates = " and ".join(repr(gate) for gate in self._failed)
        noun = "gates" if len(self._failed) > 1 else "gate"
        times = "once" if self.streak == 1 else f"{self.streak} times in a row"
        return (f"the {noun} {gates} failed {times} with no file changed "
                "(the model keeps saying done without fixing it)")  # fmt: skip
