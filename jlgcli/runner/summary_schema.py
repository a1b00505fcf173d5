"""Generate ``docs/schemas/run-summary.schema.json`` from the RunSummary model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jlgcli.runner.summary import RunSummary

SCHEMA_PATH = Path(__file__).parents[2] / "docs" / "schemas" / "run-summary.schema.json"


def generated_schema() -> dict[str, Any]:
    """The JSON Schema of ``jlgcli run/loop --json`` and ``result.json``."""
    schema = RunSummary.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://jlgcli.dev/schemas/run-summary.schema.json"
    return schema


if __name__ == "__main__":
    SCHEMA_PATH.write_text(json.dumps(generated_schema(), indent=2) + "\n", encoding="utf-8")
