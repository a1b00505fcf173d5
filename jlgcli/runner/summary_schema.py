"""The pydantic twin of RunSummary, used only to generate its JSON Schema.

``docs/schemas/run-summary.schema.json`` is generated from these models
(``python -m jlgcli.runner.summary_schema``); a test keeps the file current
and checks that every model here has exactly the fields, in the same order,
of its runtime record in ``summary.py``. Nothing on the run path imports
this module (pydantic costs ~100 ms at start-up).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from jlgcli.runner.causes import CAUSES, STATUSES

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.runner.causes import Status, StopCause
else:  # the run path's Literal types are for type checkers only (issue 49): pydantic's here
    StopCause = Literal[tuple(CAUSES)]
    Status = Literal[STATUSES]


SCHEMA_PATH = Path(__file__).parents[2] / "docs" / "schemas" / "run-summary.schema.json"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorInfo(_Model):
    """What went wrong, with an actionable hint."""

    code: int
    message: str
    hint: str | None = None


class BackendUse(_Model):
    """A backend that ran iterations of the run, with its CLI's version."""

    id: str
    version: str | None = None


class GateResult(_Model):
    """One gate command run after the model said done."""

    command: str
    exitCode: int | None = Field(description="None when the gate was killed (timeout)")
    durationMs: int
    ok: bool
    outputTail: str = Field("", description="the redacted, bounded tail of its output")


class IterationMetrics(_Model):
    """One iteration (one backend call) of a run."""

    index: int = Field(description="1-based iteration number")
    durationMs: int
    exitCode: int | None = Field(description="the backend process's exit code")
    stopReason: str = Field(description="exited | timeout | idle | cancelled")
    completion: str = Field(description="done | continue | error | invalid-json | backend-error …")
    outputChars: int = Field(description="characters of the final assistant message")
    backend: str | None = Field(None, description="the backend that ran this iteration")
    protocolViolation: bool = False
    rateLimited: bool = False
    costUsd: float | None = Field(None, description="what this call cost")
    sessionCostUsd: float | None = Field(
        None, description="the backend session's running total, when the CLI reports one"
    )
    inputTokens: int | None = None
    outputTokens: int | None = None
    summary: str | None = None
    next: str | None = None
    switchReason: str | None = Field(
        None, description="why this iteration ran on another backend than the previous one"
    )
    diffStat: dict[str, int] | None = Field(
        None, description="work tree change during the iteration: files, insertions, deletions"
    )
    permissionDenials: list[dict[str, str]] = Field(
        default_factory=list,
        description="tool uses the backend denied: tool, target, and the permission that allows it",
    )
    gates: list[GateResult] = Field(default_factory=list)


class RunSummary(_Model):
    """The result of ``jlgcli run`` / ``jlgcli loop``."""

    command: Literal["run", "loop"]
    status: Status
    stopCause: StopCause
    exitCode: int
    backend: str = Field(description="the backend that ran the last iteration")
    completionMode: str
    iterations: int
    maxIterations: int
    durationMs: int
    startedAt: str = Field(description="ISO 8601, UTC")
    endedAt: str
    runId: str
    schemaVersion: Literal[1] = 1
    backendVersion: str | None = Field(None, description="the version of that backend's CLI")
    backends: list[BackendUse] = Field(
        default_factory=list,
        description="the backends that ran iterations, in the order they were first used "
        "(after a failover: several)",
    )
    model: str | None = None
    permissions: str | None = Field(
        None, description="what the agent was allowed to do: read-only, edit or full"
    )
    runDir: str | None = Field(None, description="artifacts directory, when --artifacts")
    sessionId: str | None = None
    signal: str | None = Field(None, description="the signal that interrupted the run, if any")
    resumedFrom: str | None = Field(None, description="the run id this run continued")
    costUsd: float | None = Field(None, description="total cost when the backend reports it")
    inputTokens: int | None = None
    outputTokens: int | None = None
    text: str = Field("", description="the final assistant message of the last iteration")
    summary: str | None = Field(None, description="the model's summary (json mode)")
    next: str | None = None
    question: str | None = Field(
        None,
        description="status parked (stop cause question): what the agent asks the user; "
        "`jlgcli answer RUN TEXT` resumes the run with the answer",
    )
    diagnosis: list[str] = Field(default_factory=list)
    redactions: int = 0
    iterationMetrics: list[IterationMetrics] = Field(default_factory=list)
    error: ErrorInfo | None = None


def generated_schema() -> dict[str, Any]:
    """The JSON Schema of ``jlgcli run/loop --json`` and ``result.json``."""
    schema = RunSummary.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://jlgcli.dev/schemas/run-summary.schema.json"
    return schema


if __name__ == "__main__":
    SCHEMA_PATH.write_text(json.dumps(generated_schema(), indent=2) + "\n", encoding="utf-8")
