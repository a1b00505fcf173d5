"""RunSummary: the one result of ``run``/``loop`` (F-005, RG-008, RG-014).

It is the ``--json`` output, ``result.json``, the Action's outputs and what the
Invoke tasks return. Its JSON Schema is generated into
``docs/schemas/run-summary.schema.json`` (a test keeps the file current).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from jlgcli.errors import ExitCode

StopCause = Literal[
    "done",
    "error",
    "backend-error",
    "backend-missing",
    "backend-unauthenticated",
    "max-iterations",
    "no-progress",
    "invalid-json",
    "timeout",
    "iteration-timeout",
    "idle-timeout",
    "rate-limited",
    "artifacts-error",
    "sandbox-violation",
    "interrupted",
]
Status = Literal["done", "error", "incomplete", "interrupted"]

EXIT_CODES: dict[str, int] = {
    "done": ExitCode.OK,
    "error": ExitCode.RUN_ERROR,
    "backend-error": ExitCode.RUN_ERROR,
    "backend-missing": ExitCode.BACKEND_UNAVAILABLE,
    "backend-unauthenticated": ExitCode.UNAUTHENTICATED,
    "max-iterations": ExitCode.MAX_ITERATIONS,
    "no-progress": ExitCode.NO_PROGRESS,
    "invalid-json": ExitCode.INVALID_JSON,
    "timeout": ExitCode.TIMEOUT,
    "iteration-timeout": ExitCode.TIMEOUT,
    "idle-timeout": ExitCode.TIMEOUT,
    "rate-limited": ExitCode.RUN_ERROR,
    "artifacts-error": ExitCode.CANT_CREATE,
    "sandbox-violation": ExitCode.RUN_ERROR,
    "interrupted": ExitCode.INTERRUPTED,
}
_INCOMPLETE = {
    "max-iterations",
    "no-progress",
    "timeout",
    "iteration-timeout",
    "idle-timeout",
    "rate-limited",
}


def status_of(cause: str) -> Status:
    """The coarse status of a stop cause."""
    if cause == "done":
        return "done"
    if cause == "interrupted":
        return "interrupted"
    return "incomplete" if cause in _INCOMPLETE else "error"


class _Model(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="forbid")


class ErrorInfo(_Model):
    """What went wrong, with an actionable hint."""

    code: int
    message: str
    hint: str | None = None


class IterationMetrics(_Model):
    """One iteration (one backend call) of a run."""

    index: int = Field(description="1-based iteration number")
    durationMs: int
    exitCode: int | None = Field(description="the backend process's exit code")
    stopReason: str = Field(description="exited | timeout | idle | cancelled")
    completion: str = Field(description="done | continue | error | invalid-json | backend-error …")
    outputChars: int = Field(description="characters of the final assistant message")
    protocolViolation: bool = False
    rateLimited: bool = False
    costUsd: float | None = None
    inputTokens: int | None = None
    outputTokens: int | None = None
    summary: str | None = None
    next: str | None = None


class RunSummary(_Model):
    """The result of ``jlgcli run`` / ``jlgcli loop``."""

    schemaVersion: Literal[1] = 1
    command: Literal["run", "loop"]
    status: Status
    stopCause: StopCause
    exitCode: int
    backend: str
    backendVersion: str | None = None
    model: str | None = None
    completionMode: str
    iterations: int
    maxIterations: int
    durationMs: int
    startedAt: str = Field(description="ISO 8601, UTC")
    endedAt: str
    runId: str
    runDir: str | None = Field(None, description="artifacts directory, when --artifacts")
    sessionId: str | None = None
    costUsd: float | None = Field(None, description="total cost when the backend reports it")
    inputTokens: int | None = None
    outputTokens: int | None = None
    text: str = Field("", description="the final assistant message of the last iteration")
    summary: str | None = Field(None, description="the model's summary (json mode)")
    next: str | None = None
    diagnosis: list[str] = Field(default_factory=list)
    redactions: int = 0
    iterationMetrics: list[IterationMetrics] = Field(default_factory=list)
    error: ErrorInfo | None = None
