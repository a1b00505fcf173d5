"""The pydantic twin of ``jlgcli.backends.report``: the JSON Schema of ``backends --json``.

Used only to generate ``docs/schemas/backends.schema.json`` and by tests (which
check that the twin and the run-time records agree field for field), so
pydantic stays off the ``jlgcli backends`` path. Regenerate the schema with
``python -m jlgcli.backends.report_schema``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_PATH = Path(__file__).parents[2] / "docs" / "schemas" / "backends.schema.json"


class BackendEntry(BaseModel):
    """One backend's probe."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="backend id, as given to --backend")
    status: Literal["available", "missing", "unauthenticated", "unsupported", "unknown"]
    version: str | None = Field(description="the CLI's version, when known")
    path: str | None = Field(description="the executable found on PATH")
    detail: str = Field(description="what the probe found, in words")
    hint: str | None = Field(description="what to do about it (install / log in / update)")


class ReportError(BaseModel):
    """Why the command failed (only when no backend is available)."""

    model_config = ConfigDict(extra="forbid")

    code: int
    message: str
    hint: str | None = None


class BackendsReport(BaseModel):
    """The ``jlgcli backends --json`` object."""

    model_config = ConfigDict(extra="forbid", title="jlgcli backends --json")

    backends: list[BackendEntry] = Field(description="every built-in then custom backend")
    available: list[str] = Field(description="ids of the available backends, in that order")
    default: str | None = Field(
        description="the backend `jlgcli run` would use now: the configured one (null when "
        "it is not available), or with `auto` the first available built-in"
    )
    configured: str | None = Field(description='the `backend` setting ("auto" by default)')
    error: ReportError | None = Field(default=None, description="set when no backend is available")


def generated_schema() -> dict[str, Any]:
    """The JSON Schema of ``jlgcli backends --json``."""
    schema = BackendsReport.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://jlgcli.dev/schemas/backends.schema.json"
    return schema


if __name__ == "__main__":
    SCHEMA_PATH.write_text(json.dumps(generated_schema(), indent=2) + "\n", encoding="utf-8")
