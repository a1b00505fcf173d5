"""``jlgcli backends --json`` report and its committed schema (RG-005)."""

from __future__ import annotations

import json
import subprocess
import sys
import typing

import pytest

from jlgcli import records
from jlgcli.backends import report, report_schema
from jlgcli.backends.base import Availability
from jlgcli.backends.report import build_report
from jlgcli.backends.report_schema import SCHEMA_PATH, generated_schema
from tests.support.literals import type_only_names


def test_committed_schema_is_the_generated_one() -> None:
    committed = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert committed == generated_schema(), "regenerate: python -m jlgcli.backends.report_schema"


@pytest.mark.parametrize("name", ["BackendEntry", "ReportError", "BackendsReport"])
def test_runtime_records_and_pydantic_twin_agree_field_for_field(name: str) -> None:
    runtime = getattr(report, name)
    twin = getattr(report_schema, name)
    hints = typing.get_type_hints(runtime, localns=type_only_names(runtime.__module__))
    fields = records.fields(runtime)
    assert [f.name for f in fields] == list(twin.model_fields)
    for field in fields:
        twin_field = twin.model_fields[field.name]
        assert (field.default is records.MISSING) == twin_field.is_required(), field.name
        runtime_type = str(hints[field.name]).replace("jlgcli.backends.report.", "")
        twin_type = str(twin_field.annotation).replace("jlgcli.backends.report_schema.", "")
        assert runtime_type == twin_type, field.name


def test_backends_path_does_not_import_pydantic() -> None:
    code = (
        "import sys; import jlgcli.backends.report, jlgcli.commands.backends; "
        "print('pydantic' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "False"


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
        document = build_report(items, "auto").to_json()
        jsonschema.validate(document, generated_schema())
        assert report_schema.BackendsReport.model_validate(document).model_dump() == document
