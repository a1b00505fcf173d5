"""Denied tool uses: hints, the tracker and the judgement (issue 34 item 3)."""

from __future__ import annotations

from jlgcli.runner.denials import (
    DenialTracker,
    describe,
    hint,
    judge_denials,
    needed_permission,
)
from jlgcli.runner.summary import IterationMetrics

WRITE = {"tool": "Write", "target": "a.py"}
BASH = {"tool": "Bash", "target": "pytest -q"}


def test_the_hint_names_the_permission_that_allows_them() -> None:
    assert needed_permission([WRITE], "read-only") == "edit"
    assert needed_permission([WRITE], None) == "edit"
    assert needed_permission([WRITE], "edit") == "full"  # an edit refused under edit: outside
    assert needed_permission([WRITE, BASH], "read-only") == "full"
    assert hint([BASH], "edit") == "--permissions full would allow them (shell and network too)"


def test_describe_is_short() -> None:
    many = [{"tool": "Edit", "target": f"f{i}.py"} for i in range(5)]
    assert describe(many) == "Edit f0.py, Edit f1.py, Edit f2.py and 2 more"


def test_the_tracker_counts_only_denied_iterations_that_changed_nothing() -> None:
    tracker = DenialTracker(limit=2)
    assert not tracker.observe([WRITE], changed=False)
    assert not tracker.observe([WRITE], changed=True)  # something changed: the count restarts
    assert not tracker.observe([WRITE], changed=False)
    assert not tracker.observe([], changed=False)  # no denial: restarts too
    assert not tracker.observe([WRITE], changed=False)
    assert tracker.observe([WRITE], changed=False)


def metrics(denials: list[dict[str, str]], files: int | None) -> IterationMetrics:
    stat = None if files is None else {"files": files, "insertions": 0, "deletions": 0}
    return IterationMetrics(index=1, durationMs=1, exitCode=0, stopReason="exited",
                            completion="done", outputChars=1, diffStat=stat,
                            permissionDenials=denials)  # fmt: skip


def test_judge_denials() -> None:
    tracker = DenialTracker()
    stop, feedback = judge_denials(tracker, metrics([WRITE], None), "read-only")
    assert stop is None and feedback is not None and "Write a.py" in feedback
    stop, feedback = judge_denials(tracker, metrics([WRITE], 0), "read-only")
    assert stop is not None and "2 iterations in a row" in stop and "--permissions edit" in stop
    assert judge_denials(DenialTracker(), metrics([WRITE], 1), "edit") == (None, None)
    assert judge_denials(DenialTracker(), metrics([], 0), "edit") == (None, None)
