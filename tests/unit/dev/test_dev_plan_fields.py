"""Line-level recognition of plan fields (seed 003 FR-2.3): names, tables, ids, references."""

from __future__ import annotations

import pytest

from jlgcli.dev import plan_fields as pf


@pytest.mark.parametrize(
    ("line", "key", "value"),
    [
        ("- **Status:** pending", "status", "pending"),
        ("- **Status**: pending", "status", "pending"),
        ("* __What to build__: x", "what_to_build", "x"),
        ("1. Files In Scope: a.py", "files_in_scope", "a.py"),
        ("**Depends on:** T-1", "dependencies", "T-1"),
        ("status:pending", "status", "pending"),
        ("Task ID: T-1", "id", "T-1"),
    ],
)
def test_field_lines(line: str, key: str, value: str) -> None:
    match = pf.match_field_line(line)
    assert match is not None
    assert (match.key, match.value) == (key, value)
    assert line[match.start :].startswith(value)


@pytest.mark.parametrize("line", ["- Notes: x", "plain prose", "- **Owner:** me", ""])
def test_not_field_lines(line: str) -> None:
    assert pf.match_field_line(line) is None


def test_table_cells_with_offsets_and_escaped_pipes() -> None:
    line = "| a | b \\| c | d |"
    cells = pf.table_cells(line)
    assert cells is not None
    assert [text.strip() for text, _ in cells] == ["a", "b \\| c", "d"]
    for text, start in cells:
        assert line[start : start + len(text)] == text
    assert pf.table_cells("no table") is None
    assert pf.table_cells("| open row without end") == [(" open row without end", 1)]
    assert pf.is_separator_row(pf.table_cells("|---|:--:|") or [])


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("TASK-001: Greeting", ("TASK-001", "Greeting")),
        ("Task TASK-001 — Greeting", ("TASK-001", "Greeting")),
        ("Task: `T-7` Greeting", ("T-7", "Greeting")),
        ("[AUTH-3b] Login", ("AUTH-3b", "Login")),
        ("M1-T02 - nested", ("M1-T02", "nested")),
        ("Milestone 1: Core", (None, "Milestone 1: Core")),
        ("Follow-up work", (None, "Follow-up work")),
    ],
)
def test_heading_task_id(title: str, expected: tuple[str | None, str]) -> None:
    assert pf.heading_task_id(title) == expected


def test_status_words() -> None:
    assert pf.find_status("`In Progress`") == ("in-progress", 1, 12)
    assert pf.find_status("in_progress") == ("in-progress", 0, 11)
    assert pf.find_status("wip") is None
    assert pf.find_status("pending-review") is None


def test_values() -> None:
    assert pf.id_field_value("**`TASK-001`.**") == "TASK-001"
    assert pf.id_field_value("  ") is None
    assert pf.is_none_value(" None. ")
    assert pf.dependency_tokens("N/A") == []
    assert pf.dependency_tokens("TASK-001 and `TASK-002`") == ["TASK-001", "and", "TASK-002"]


@pytest.mark.parametrize(
    ("value", "paths"),
    [
        ("`docs/a.md`, `docs/b.md#section`", ["docs/a.md", "docs/b.md"]),
        (
            "[arch](docs/architecture.md) and [again](docs/architecture.md)",
            ["docs/architecture.md"],
        ),
        ("docs/a.md, README.md; not a path\n- src/x.py", ["docs/a.md", "README.md", "src/x.py"]),
        ("none", []),
    ],
)
def test_reference_paths(value: str, paths: list[str]) -> None:
    assert pf.reference_paths(value) == paths
