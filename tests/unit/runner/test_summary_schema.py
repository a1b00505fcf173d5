"""RunSummary: one causes table, a JSON Schema kept current, a runtime record and its
pydantic twin field for field the same (issue 13 item 2, issue 18; F-005, RG-008)."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import pytest

from jlgcli import records
from jlgcli.errors import EXIT_CODE_MEANINGS
from jlgcli.runner import causes, summary, summary_schema
from jlgcli.runner.summary_schema import SCHEMA_PATH, generated_schema
from tests.support.literals import literal_values, type_only_names


def test_committed_schema_is_current() -> None:
    committed = json.loads(Path(SCHEMA_PATH).read_text(encoding="utf-8"))
    assert committed == generated_schema(), "run: python -m jlgcli.runner.summary_schema"


def test_the_stop_cause_literal_is_the_causes_table() -> None:
    assert literal_values("jlgcli.runner.causes", "StopCause") == tuple(causes.CAUSES)
    enum = (
        generated_schema()["$defs"].get("StopCause", {}).get("enum")
        or generated_schema()["properties"]["stopCause"]["enum"]
    )
    assert enum == list(causes.CAUSES)


def test_the_status_literal_is_the_statuses_table() -> None:
    assert literal_values("jlgcli.runner.causes", "Status") == causes.STATUSES


def test_every_cause_has_an_exit_code_status_text_and_hint() -> None:
    for row in causes.CAUSES.values():
        assert row.exit_code in EXIT_CODE_MEANINGS
        assert row.status in causes.STATUSES
        assert row.text and (row.hint or row.name == "done")
    assert causes.exit_code_of("timeout") == 75 and causes.exit_code_of("no-progress") == 5
    assert causes.exit_code_of("max-cost") == 4
    assert causes.exit_code_of("interrupted") == 130
    assert causes.exit_code_of("interrupted", signal_number=15) == 143


def test_unknown_causes_fail_at_once() -> None:
    with pytest.raises(KeyError):
        causes.cause("no-such-cause")


@pytest.mark.parametrize(
    ("runtime", "twin"),
    [
        (summary.RunSummary, summary_schema.RunSummary),
        (summary.IterationMetrics, summary_schema.IterationMetrics),
        (summary.GateResult, summary_schema.GateResult),
        (summary.ErrorInfo, summary_schema.ErrorInfo),
    ],
)
def test_runtime_record_and_pydantic_twin_agree(runtime: type, twin: type) -> None:
    fields = [f.name for f in records.fields(runtime)]
    assert fields == list(twin.model_fields)  # type: ignore[attr-defined]
    # the run path's Literal types exist for type checkers only (issue 49)
    hints = typing.get_type_hints(runtime, localns=type_only_names(runtime.__module__))
    twin_hints = typing.get_type_hints(twin)
    for name in fields:
        assert str(hints[name]).replace("jlgcli.runner.summary.", "") == str(
            twin_hints[name]
        ).replace("jlgcli.runner.summary_schema.", ""), name


def test_summary_round_trips_through_json() -> None:
    gate = summary.GateResult("pytest", 0, 5, True)
    metrics = summary.IterationMetrics(1, 10, 0, "exited", "done", 4, "claude", gates=[gate])
    original = summary.RunSummary(
        command="loop", status="done", stopCause="done", exitCode=0, backend="claude",
        completionMode="marker", iterations=1, maxIterations=3, durationMs=10,
        startedAt="a", endedAt="b", runId="r", iterationMetrics=[metrics],
        error=summary.ErrorInfo(1, "m", "h"),
    )  # fmt: skip
    data = json.loads(json.dumps(original.to_json()))
    assert summary.RunSummary.from_json(data) == original


def test_the_run_path_does_not_import_pydantic() -> None:
    import subprocess
    import sys

    code = (
        "import sys, jlgcli.runner.engine, jlgcli.api, jlgcli.runner.report;"
        "print('pydantic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
