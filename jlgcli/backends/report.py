"""``jlgcli backends --json``: the stable report (RG-005) and its JSON Schema.

Regenerate ``docs/schemas/backends.schema.json`` with
``python -m jlgcli.backends.report``; a test fails when the committed file
differs from the model.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from jlgcli.backends.base import Availability
from jlgcli.backends.ids import AUTO
from jlgcli.backends.registry import auto_select
from jlgcli.errors import ExitCode

SCHEMA_PATH = Path(__file__).parents[2] / "docs" / "schemas" / "backends.schema.json"
NO_BACKEND_HINT = (
    "install and log in to one of them (see the hints above), or declare a command backend "
    'under "backends" in the config'
)


class BackendEntry(BaseModel):
    """One backend's probe (F-002)."""

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


def build_report(availabilities: Iterable[Availability], configured: str | None) -> BackendsReport:
    """The report of these probes; ``error`` is set when none is available (exit 2)."""
    items = list(availabilities)
    available = [a.id for a in items if a.status == "available"]
    if configured in (None, AUTO):
        default = auto_select(items)
    else:
        default = configured if configured in available else None
    error = None
    if not available:
        error = ReportError(
            code=int(ExitCode.BACKEND_UNAVAILABLE),
            message="no backend available",
            hint=NO_BACKEND_HINT,
        )
    entries = [
        BackendEntry(
            id=a.id, status=a.status, version=a.version, path=a.path, detail=a.detail, hint=a.hint
        )
        for a in items
    ]
    return BackendsReport(
        backends=entries, available=available, default=default, configured=configured, error=error
    )


def generated_schema() -> dict[str, Any]:
    """The JSON Schema of ``jlgcli backends --json``."""
    schema = BackendsReport.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://jlgcli.dev/schemas/backends.schema.json"
    return schema


if __name__ == "__main__":
    SCHEMA_PATH.write_text(json.dumps(generated_schema(), indent=2) + "\n", encoding="utf-8")
