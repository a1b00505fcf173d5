"""A Node too old for an npm-installed CLI is named by `backends` and `doctor` (issue 48).

claude 2.1.332's package.json: ``"engines": {"node": ">=22.0.0"}``; 2.1.197's ``>=18.0.0``
(backends.md §10).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from jlgcli.backends import node_engine
from jlgcli.backends.base import Availability
from jlgcli.backends.cli_facts import CLAUDE
from jlgcli.backends.node_engine import node_needed, with_node_check


@pytest.mark.parametrize(
    ("engines", "needed"),
    [
        ({"node": ">=22.0.0"}, (22, 0, 0)),
        ({"node": ">= 18"}, (18, 0, 0)),
        ({"node": "^20.10 || >=22.1"}, (22, 1, 0)),
        ({"node": "*"}, None),
        ({}, None),
        ("node 22", None),
    ],
)
def test_node_needed(engines: object, needed: tuple[int, int, int] | None) -> None:
    assert node_needed({"engines": engines}) == needed


def installed(tmp_path: Path, engines: str) -> str:
    package = tmp_path / "lib" / "node_modules" / "@anthropic-ai" / "claude-code"
    package.mkdir(parents=True)
    manifest = {"name": "@anthropic-ai/claude-code", "version": "2.1.332",
                "engines": {"node": engines}}  # fmt: skip
    (package / "package.json").write_text(json.dumps(manifest), encoding="utf-8")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "claude").write_text("", encoding="utf-8")
    return str(tmp_path / "bin" / "claude")


def test_an_old_node_is_named_with_a_hint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(node_engine, "node_version", lambda timeout=2.0: (20, 20, 2))
    found = Availability("claude", "available", "2.1.332", installed(tmp_path, ">=22.0.0"))
    checked = with_node_check(CLAUDE, found)
    assert "claude 2.1.332 needs Node ≥ 22.0.0" in checked.detail and "20.20.2" in checked.detail
    assert checked.status == "available" and checked.hint and "Node.js to 22" in checked.hint


@pytest.mark.parametrize("have", [(22, 0, 0), (24, 1, 0), None])
def test_a_node_new_enough_or_unknown_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, have: tuple[int, int, int] | None
) -> None:
    monkeypatch.setattr(node_engine, "node_version", lambda timeout=2.0: have)
    found = Availability("claude", "available", "2.1.332", installed(tmp_path, ">=22.0.0"))
    assert with_node_check(CLAUDE, found) == found


def test_no_package_json_or_no_path_changes_nothing(tmp_path: Path) -> None:
    found = Availability("claude", "available", "2.1.332", str(tmp_path / "claude"))
    assert with_node_check(CLAUDE, found) == found
    missing = Availability("claude", "missing")
    assert with_node_check(CLAUDE, missing) == missing


@pytest.mark.skipif(os.name == "nt", reason="a sh script stands in for node")
def test_node_version_asks_the_node_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    node = tmp_path / "node"
    node.write_text("#!/bin/sh\necho v20.20.2\n", encoding="utf-8")
    node.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert node_engine.node_version() == (20, 20, 2)
    node.write_text("#!/bin/sh\nexit 3\n", encoding="utf-8")
    assert node_engine.node_version() is None
    monkeypatch.setenv("PATH", str(tmp_path / "none"))
    assert node_engine.node_version() is None
