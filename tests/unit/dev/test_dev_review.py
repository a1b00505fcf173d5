"""The review parser (seed 003 FR-4.2 step 5, AC-2 "parses review.md for BLOCKING issues")."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from jlgcli.dev.review import BLOCKING, NITPICK, NON_BLOCKING, parse_review, severity_of

SECTIONS = """# Review of TASK-001

Overall fine.

## BLOCKING
- `core.py`: crashes on empty input
  - details under the finding are not findings
- tests missing for `greet("")`

## Non-blocking issues
1. add a docstring

## Nitpicks
- None
"""


def test_sections() -> None:
    review = parse_review(SECTIONS)
    assert review.recognised
    assert [f.text for f in review.blocking] == [
        "`core.py`: crashes on empty input",
        'tests missing for `greet("")`',
    ]
    assert review.blocking[0].line == 6
    assert [f.text for f in review.of(NON_BLOCKING)] == ["add a docstring"]
    assert review.of(NITPICK) == []
    assert review.summary() == "2 BLOCKING, 1 NON-BLOCKING, 0 NITPICK"


def test_clean_review_with_none_items() -> None:
    text = (
        "## BLOCKING\n- None\n- No blocking issues found.\n"
        "## NON-BLOCKING\n- n/a\n## NITPICK\nNone\n"
    )
    review = parse_review(text)
    assert review.recognised
    assert review.findings == ()


def test_tags_override_sections() -> None:
    text = (
        "## Findings\n"
        "- [BLOCKING] null check missing\n"
        "- **NITPICK**: spacing\n"
        "- (non-blocking) rename x\n"
        "BLOCKING: plain line tag\n"
        "- Blocking calls in the loop are fine here\n"
        "- NIT - trailing space\n"
    )
    review = parse_review(text)
    assert [(f.severity, f.text) for f in review.findings] == [
        (BLOCKING, "null check missing"),
        (NITPICK, "spacing"),
        (NON_BLOCKING, "rename x"),
        (BLOCKING, "plain line tag"),
        (NITPICK, "trailing space"),
    ]


def test_sub_headings_under_a_section_are_findings() -> None:
    text = "## BLOCKING\n### 1. Crash on empty input\nprose\n## Summary\n- not a finding\n"
    review = parse_review(text)
    assert [(f.severity, f.text) for f in review.findings] == [
        (BLOCKING, "1. Crash on empty input")
    ]


def test_tables() -> None:
    text = "| Severity | Finding |\n|---|---|\n| **BLOCKING** | bug in x |\n| NITPICK | none |\n"
    review = parse_review(text)
    assert [(f.severity, f.text) for f in review.findings] == [(BLOCKING, "bug in x")]
    assert review.recognised


def test_unrecognised_review() -> None:
    review = parse_review("LGTM, ship it.\n- looks good\n")
    assert not review.recognised
    assert review.findings == ()


def test_severity_words() -> None:
    assert severity_of("Non Blocking") == NON_BLOCKING
    assert severity_of("blocking") == BLOCKING
    assert severity_of("nits") == NITPICK


@given(st.text(max_size=300))
def test_never_raises(text: str) -> None:
    review = parse_review(text)
    assert all(f.severity in (BLOCKING, NON_BLOCKING, NITPICK) for f in review.findings)
