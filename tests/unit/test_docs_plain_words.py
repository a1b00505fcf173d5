"""User docs speak of features, not of our issues or the specs' ids (issue 49).

docs/devloop.md said "Requirements: seed 003 (FR-1..FR-8, NFR-1..4, AC-1..AC-6)", an
Action input and docs/loop.md "(issue 37)". Commit messages, code comments and tests
cite those; what a user reads (README, docs/, the Action's and the hooks' texts, the
JSON schemas' descriptions) does not.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
INTERNAL = re.compile(
    r"\b(?:RG-\d|F-\d{3}|FR-\d|NFR-\d|REQ_AUTO|US-\d|AC-\d)|\bseed[ -]?0\d\d|\bissues? \d+"
    r"|\bissue-\d+|\(#\d+\)",
    re.IGNORECASE,
)
USER_DOCS = sorted(
    [
        ROOT / "README.md",
        ROOT / "action.yml",
        ROOT / ".pre-commit-hooks.yaml",
        *(ROOT / "docs").glob("*.md"),
        *(ROOT / "docs" / "schemas").glob("*.json"),
    ]
)


@pytest.mark.parametrize("path", USER_DOCS, ids=lambda p: p.name)
def test_user_docs_name_no_issue_and_no_spec_id(path: Path) -> None:
    if not path.is_file():
        pytest.skip(f"{path.name} is not in this tree")
    found = [
        f"{number}: {line.strip()[:100]}"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if INTERNAL.search(line)
    ]
    assert found == []


def test_the_pattern_finds_what_the_issue_quoted() -> None:
    for text in ("Requirements: seed 003 (FR-1..FR-8", "(issue 37)", "REQ_AUTO_010", "RG-004"):
        assert INTERNAL.search(text), text
    for text in ("reissue 3 tokens", "FR-requirements", "the 37 issues"):
        assert not INTERNAL.search(text), text
