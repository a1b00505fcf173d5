"""The plan parser (seed 003 FR-2.3, FR-4.1, NFR-1): tolerant formats, precise errors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.dev_unit import FIELDS, task

from jlgcli.dev.plan import parse_plan
from jlgcli.errors import DevExitCode, JlgError


def errors_of(text: str) -> str:
    with pytest.raises(JlgError) as info:
        parse_plan(text, "plan.md")
    assert info.value.code == DevExitCode.CONFIGURATION
    return info.value.message


def test_bold_bullets_give_every_field() -> None:
    plan = parse_plan(
        "# Plan\n\n## Milestone M1\n\n" + task("TASK-001") + task("TASK-002", deps="TASK-001")
    )
    assert [t.id for t in plan.tasks] == ["TASK-001", "TASK-002"]
    first, second = plan.tasks
    assert first.title == "Title of TASK-001"
    assert first.status == "pending"
    assert first.line == 5
    assert first.status_line == 9
    assert first.dependencies == ()
    assert second.dependencies == ("TASK-001",)
    assert first.references == ("docs/architecture.md",)
    assert first.fields["validation_criteria"] == "- tests pass"
    assert first.fields["what_to_build"] == "something"


def test_block_runs_to_the_next_task_or_higher_heading() -> None:
    text = "## M1\n\n" + task("TASK-001") + "#### Notes\nextra\n" + "## M2\n\n" + task("TASK-002")
    plan = parse_plan(text)
    assert plan.tasks[0].block.startswith("### TASK-001")
    assert plan.tasks[0].block.endswith("#### Notes\nextra\n")
    assert "## M2" not in plan.tasks[0].block
    assert plan.tasks[1].block.endswith("`docs/architecture.md`\n")


PLAIN = """### Task T-7 — plain style
id: T-7
MILESTONE: M2
status: In Progress
complexity: L
depends on: -
What To Build: a thing
files in scope: x.py
constraints: n/a
validation criteria: works
context references: docs/a.md, docs/b.md
"""


def test_plain_lowercase_and_aliases() -> None:
    (only,) = parse_plan(PLAIN).tasks
    assert only.id == "T-7"
    assert only.title == "plain style"
    assert only.status == "in-progress"
    assert only.dependencies == ()
    assert only.references == ("docs/a.md", "docs/b.md")


VERTICAL = """## AUTH-3b: vertical table

| Field | Value |
|---|---|
| **ID** | AUTH-3b |
| Milestone | M1 |
| Status | `done` |
| Complexity | S |
| What to build | login |
| Files in scope | a.py |
| Constraints | none |
| Validation criteria | ok |
| Context references | [arch](docs/architecture.md) |
"""

HORIZONTAL = (
    "## Horizontal\n\n"
    "| ID | Milestone | Status | Complexity | Dependencies | What to build "
    "| Files in scope | Constraints | Validation criteria | Context references |\n"
    "|----|----|----|----|----|----|----|----|----|----|\n"
    "| H-1 | M1 | pending | S | AUTH-3b | x | y | z | w | none |\n"
)


def test_tables_vertical_and_horizontal() -> None:
    plan = parse_plan(VERTICAL + "\n" + HORIZONTAL)
    vertical, horizontal = plan.tasks
    assert (vertical.id, vertical.status, vertical.title) == ("AUTH-3b", "done", "vertical table")
    assert vertical.references == ("docs/architecture.md",)
    assert horizontal.id == "H-1"
    assert horizontal.title == "Horizontal"
    assert horizontal.dependencies == ("AUTH-3b",)
    text = VERTICAL + "\n" + HORIZONTAL
    start, end = horizontal.status_span
    assert text[start:end] == "pending"
    start, end = vertical.status_span
    assert text[start:end] == "done"


def test_status_span_points_at_the_word() -> None:
    text = task("TASK-001", status="**Pending** (started later)")
    (only,) = parse_plan(text).tasks
    start, end = only.status_span
    assert text[start:end] == "Pending"


def test_fenced_code_is_not_read() -> None:
    text = task("TASK-001").replace(
        "- **What to build:** something",
        "- **What to build:**\n  ```\n# not a heading\nStatus: done\n  ```",
    )
    (only,) = parse_plan(text).tasks
    assert only.status == "pending"
    assert "# not a heading" in only.fields["what_to_build"]


def test_nested_field_like_lines_are_continuations() -> None:
    text = task("TASK-001").replace("  - tests pass", "  - Status: returns 200")
    (only,) = parse_plan(text).tasks
    assert only.status == "pending"
    assert "Status: returns 200" in only.fields["validation_criteria"]


def test_headings_without_fields_are_not_tasks() -> None:
    plan = parse_plan("# Plan\n## TASK-9 notes\njust prose\n" + task("TASK-001"))
    assert [t.id for t in plan.tasks] == ["TASK-001"]


def test_id_field_alone_makes_a_task() -> None:
    text = "### Greeting\n" + FIELDS.format(id="G-1", status="pending", deps="none")
    (only,) = parse_plan(text).tasks
    assert (only.id, only.title) == ("G-1", "Greeting")


def test_missing_fields_are_named_with_the_line() -> None:
    text = "# Plan\n\n" + task("TASK-001").replace("- **Complexity:** S\n", "").replace(
        "- **Constraints:** none\n", ""
    )
    message = errors_of(text)
    assert "plan.md:3: task TASK-001 is missing: Complexity, Constraints" in message


def test_bad_status_names_its_line() -> None:
    message = errors_of(task("TASK-001", status="wip"))
    assert "plan.md:5: task TASK-001: status 'wip' is not one of pending, in-progress" in message


def test_every_problem_is_listed() -> None:
    text = (
        task("TASK-001", deps="TASK-404")
        + task("TASK-001")
        + task("TASK-003", deps="TASK-003")
        + "### TASK-004: mismatch\n- **ID:** TASK-005\n"
    )
    message = errors_of(text)
    assert "depends on unknown task TASK-404" in message
    assert "task TASK-001 defined twice (first at line 1)" in message
    assert "task TASK-003 depends on itself" in message
    assert "heading says TASK-004 but the ID field says TASK-005" in message


def test_repeated_field_and_empty_id() -> None:
    message = errors_of(
        task("TASK-001").replace("- **Complexity:** S\n", "- **Complexity:** S\n- Complexity: M\n")
    )
    assert "field Complexity repeated (first at line 6)" in message
    message = errors_of("### Nameless\n- **ID:**\n- **Status:** pending\n")
    assert "task has an empty ID field" in message


def test_no_task_at_all() -> None:
    message = errors_of("# Plan\n\nNothing here yet.\n")
    assert "plan.md:1: no task found" in message


def test_many_problems_are_capped() -> None:
    text = "".join(f"### TASK-{i}: x\n- **ID:** TASK-{i}\n" for i in range(30))
    message = errors_of(text)
    assert "... and 10 more problems" in message


def test_find_is_case_insensitive() -> None:
    plan = parse_plan(task("TASK-001"))
    found = plan.find(" task-001 ")
    assert found is not None and found.id == "TASK-001"
    assert plan.find("TASK-002") is None


def test_crlf_plan() -> None:
    text = task("TASK-001").replace("\n", "\r\n")
    (only,) = parse_plan(text).tasks
    start, end = only.status_span
    assert text[start:end] == "pending"
    assert only.fields["id"] == "TASK-001"


@given(
    st.lists(
        st.sampled_from(["pending", "done", "in-progress", "Done", "IN PROGRESS"]),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from(["\n", "\r\n"]),
)
def test_spans_always_point_at_status_words(statuses: list[str], newline: str) -> None:
    text = "".join(task(f"T-{i}", status=s) for i, s in enumerate(statuses)).replace("\n", newline)
    plan = parse_plan(text)
    assert len(plan.tasks) == len(statuses)
    for parsed, written in zip(plan.tasks, statuses, strict=False):
        start, end = parsed.status_span
        assert text[start:end] == written


@given(st.text(max_size=400))
def test_parser_never_crashes(text: str) -> None:
    try:
        parse_plan(text)
    except JlgError as exc:
        assert exc.code == DevExitCode.CONFIGURATION


def test_line_numbers_count_newlines_only() -> None:
    text = "# Plan with a \u2028 separator and \x85 NEL\n\n" + task("T-1").replace(
        "- **Complexity:** S\n", ""
    )
    assert "plan.md:3: task T-1 is missing: Complexity" in errors_of(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "### TASK-002: Farewell\n\n- **ID:** TASK-002\n- **Dependencies:** TASK-001\n",
            "TASK-002",
        ),
        ("## Task T-7 title\n- Status: pending\n", "T-7"),
        ("# Notes\n\n- **ID:** `AUTH-3b`\n", "AUTH-3b"),
        ("### TASK-9: heading only, no fields\n", None),
        ("```\n### TASK-1: in a fence\n- ID: TASK-1\n```\n", None),
        ("just text\n", None),
    ],
)
def test_block_task_id_reads_only_the_id(text: str, expected: str | None) -> None:
    # issue 36: a task block is never validated as a plan (its dependencies are elsewhere)
    from jlgcli.dev.plan import block_task_id

    assert block_task_id(text) == expected
