"""One pin everywhere (issue 35): the README, docs/doors.md and the release notes template
name the version jlgcli has (jlgcli/_version.py) and the major tag the release moves.

The README pinned ``rev: v0.1.0``, docs/doors.md ``rev: v1.0.0``, and both told workflows to
use ``@v1``, a tag no release made.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

from jlgcli._version import __version__

ROOT = Path(__file__).resolve().parents[3]
DOCS = ("README.md", "docs/doors.md")
REV = re.compile(r"^\s*rev: (\S+)", re.MULTILINE)  # pre-commit
USES_TAG = re.compile(r"uses: OWNER/REPO@(v[^\s`]+)")  # a workflow step, by tag
USES_SHA = re.compile(r"uses: OWNER/REPO@<sha> # (\S+)")  # by commit, the tag in a comment


def pins(text: str) -> dict[str, set[str]]:
    """Every pin of jlgcli in ``text``, by kind."""
    return {"rev": set(REV.findall(text)), "uses": set(USES_TAG.findall(text)),
            "sha comment": set(USES_SHA.findall(text))}  # fmt: skip


def test_pins_are_found() -> None:
    text = "  - repo: x\n    rev: v2.0.1\n- uses: OWNER/REPO@v2\nuses: OWNER/REPO@<sha> # v2.0.1"
    assert pins(text) == {"rev": {"v2.0.1"}, "uses": {"v2"}, "sha comment": {"v2.0.1"}}


@pytest.mark.parametrize("doc", DOCS)
def test_the_docs_pin_this_version(doc: str, release: ModuleType) -> None:
    tag = f"v{__version__}"
    found = pins((ROOT / doc).read_text(encoding="utf-8"))
    assert found["rev"] == {tag}, doc
    assert found["uses"] <= {release.major_tag(tag)}, doc
    assert found["sha comment"] <= {tag}, doc
    assert found["uses"] | found["sha comment"], f"{doc} shows no Action pin"


def test_the_release_notes_pin_what_the_docs_pin(release: ModuleType) -> None:
    tag = f"v{__version__}"
    notes = pins(release.release_notes("OWNER/REPO", tag))
    assert notes == {"rev": {tag}, "uses": {release.major_tag(tag)}, "sha comment": set()}
    readme = pins((ROOT / "README.md").read_text(encoding="utf-8"))
    assert readme["rev"] == notes["rev"] and readme["uses"] == notes["uses"]
