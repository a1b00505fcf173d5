"""``jlgcli backends --json`` report and its committed schema (RG-005)."""

from __future__ import annotations

import json

import pytest

from jlgcli.backends.base import Availability
from jlgcli.backends.report import SCHEMA_PATH, build_report, generated_schema


def test_committed_schema_is_the_generated_one() -> None:
    committed = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert committed == generated_schema(), "regenerate: python -m jlgcli.backends.report"


AVAILABILITIES = [
    Availability("claude", "unauthenticated", "2.1.197", "/b/claude", "not logged in", "log in"),
    Availability("codex", "available", "0.169.0", "/b/codex", "logged in"),
    Availability("copilot", "missing", detail="not on PATH", hint="install it"),
    Availability("mine", "available", path="/b/mine", detail="command"),
]


@pytest.mark.parametrize(
    ("configured", "default"),
    [(None, "codex"), ("auto", "codex"), ("mine", "mine"), ("claude", None), ("copilot", None)],
)
def test_default_is_what_a_run_would_use(configured: str | None, default: str | None) -> None:
    report = build_report(AVAILABILITIES, configured)
    assert report.default == default and report.configured == configured
    assert report.available == ["codex", "mine"] and report.error is None


def test_none_available_sets_the_error() -> None:
    report = build_report([Availability("claude", "missing")], "auto")
    assert report.default is None and report.available == []
    assert report.error is not None and report.error.code == 2


def test_report_validates_against_the_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    for items in (AVAILABILITIES, [Availability("gemini", "unknown")]):
        document = build_report(items, "auto").model_dump(mode="json")
        jsonschema.validate(document, generated_schema())
