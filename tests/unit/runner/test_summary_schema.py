"""RunSummary's JSON Schema is committed in docs/ and kept current (F-005, RG-005/RG-008)."""

from __future__ import annotations

import json
from pathlib import Path

from jlgcli.runner.summary import EXIT_CODES, RunSummary, status_of
from jlgcli.runner.summary_schema import SCHEMA_PATH, generated_schema


def test_committed_schema_is_current() -> None:
    committed = json.loads(Path(SCHEMA_PATH).read_text(encoding="utf-8"))
    assert committed == generated_schema(), "run: python -m jlgcli.runner.summary_schema"


def test_every_stop_cause_has_an_exit_code_and_status() -> None:
    causes = RunSummary.model_json_schema()["properties"]["stopCause"]["enum"]
    assert set(causes) == set(EXIT_CODES)
    assert status_of("done") == "done"
    assert status_of("interrupted") == "interrupted"
    assert status_of("max-iterations") == "incomplete"
    assert status_of("invalid-json") == "error"
    assert EXIT_CODES["timeout"] == 75 and EXIT_CODES["no-progress"] == 5
