"""The conventional commit message of step 8 (seed 003 FR-4.2 step 8, AC-2)."""

from __future__ import annotations

import pytest
from support.dev_unit import task

from jlgcli.dev.commit import commit_message, commit_type
from jlgcli.dev.plan import parse_plan


@pytest.mark.parametrize(
    ("title", "kind"),
    [
        ("Greeting function", "feat"),
        ("Fix the empty name", "fix"),
        ("Document the CLI", "docs"),
        ("Tests for parser", "test"),
        ("Refactoring of x", "refactor"),
        ("Bump deps", "chore"),
        ("Optimize lookups", "perf"),
        ("", "feat"),
    ],
)
def test_type(title: str, kind: str) -> None:
    assert commit_type(title) == kind


def test_message() -> None:
    (only,) = parse_plan(task("TASK-7")).tasks
    message = commit_message(only, "claude", 2, ["validation failed"])
    subject, blank, *body = message.splitlines()
    assert subject == "feat(TASK-7): title of TASK-7"
    assert blank == ""
    assert body[0] == "Task TASK-7 (milestone M1) of the plan."
    assert body[1] == "Implemented with jlgcli dev (claude); review iterations: 2."
    assert body[-1] == "- validation failed"


def test_long_subject_is_cut_and_acronyms_kept() -> None:
    text = task("T-1").replace("Title of T-1", "API " + "word " * 30)
    (only,) = parse_plan(text).tasks
    subject = commit_message(only, "x", 1, []).splitlines()[0]
    assert subject.startswith("feat(T-1): API word")
    assert len(subject) == 72 and subject.endswith("…")
