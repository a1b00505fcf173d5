"""RunSummary: the one result of ``run``/``loop`` (F-005, RG-008, RG-014).

It is the ``--json`` output, ``result.json``, the Action's outputs and what
``jlgcli.api`` and the Invoke tasks return. These are records
(``jlgcli.records``): no pydantic on the run path (start-up). Their pydantic twins in
``summary_schema`` generate ``docs/schemas/run-summary.schema.json``, and a
test keeps the two field for field the same.
"""

from __future__ import annotations

from jlgcli import records
from jlgcli.money import money
from jlgcli.records import field, record
from jlgcli.runner.causes import CAUSES

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any, Literal

    from jlgcli.runner.causes import Status, StopCause

__all__ = [
    "BackendUse",
    "ErrorInfo",
    "GateResult",
    "IterationMetrics",
    "RunSummary",
    "StopCause",
    "exit_code_for",
    "status_of",
]


def status_of(cause: str) -> Status:
    """The coarse status of a stop cause."""
    return CAUSES[cause].status


def exit_code_for(cause: str) -> int:
    """The exit code of a stop cause (an interruption by signal: see ``causes.exit_code_of``)."""
    return CAUSES[cause].exit_code


@record(frozen=False, slots=True)
class ErrorInfo:
    """What went wrong, with an actionable hint."""

    code: int
    message: str
    hint: str | None = None


@record(frozen=False, slots=True)
class BackendUse:
    """A backend that ran iterations of the run, with its CLI's version (failover: several)."""

    id: str
    version: str | None = None


@record(frozen=False, slots=True)
class GateResult:
    """One gate command run after the model said done (accepted only when every gate exits 0)."""

    command: str
    exitCode: int | None
    durationMs: int
    ok: bool
    outputTail: str = ""


@record(frozen=False, slots=True)
class IterationMetrics:
    """One iteration (one backend call) of a run: the evidence receipt."""

    index: int
    durationMs: int
    exitCode: int | None
    stopReason: str
    completion: str
    outputChars: int
    backend: str | None = None
    protocolViolation: bool = False
    rateLimited: bool = False
    costUsd: float | None = None
    sessionCostUsd: float | None = None  # the session's running total the CLI reported
    inputTokens: int | None = None
    outputTokens: int | None = None
    summary: str | None = None
    next: str | None = None
    switchReason: str | None = None
    diffStat: dict[str, int] | None = None
    permissionDenials: list[dict[str, str]] = field(default_factory=list)
    gates: list[GateResult] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = records.asdict(self)
        data["costUsd"] = money(self.costUsd)  # a sum of floats: shown to 1e-4 dollars
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> IterationMetrics:
        """Read back a ``to_json()`` dict; unknown keys are ignored."""
        names = {f.name for f in records.fields(cls)}
        values = {key: value for key, value in data.items() if key in names}
        gate_names = {f.name for f in records.fields(GateResult)}
        values["gates"] = [
            GateResult(**{key: value for key, value in gate.items() if key in gate_names})
            for gate in data.get("gates") or []
        ]
        return cls(**values)


@record(frozen=False, slots=True)
class RunSummary:
    """The result of ``jlgcli run`` / ``jlgcli loop``."""

    command: Literal["run", "loop"]
    status: Status
    stopCause: StopCause
    exitCode: int
    backend: str
    completionMode: str
    iterations: int
    maxIterations: int
    durationMs: int
    startedAt: str
    endedAt: str
    runId: str
    schemaVersion: Literal[1] = 1
    backendVersion: str | None = None
    backends: list[BackendUse] = field(default_factory=list)
    model: str | None = None
    permissions: str | None = None
    runDir: str | None = None
    sessionId: str | None = None
    signal: str | None = None
    resumedFrom: str | None = None
    costUsd: float | None = None
    inputTokens: int | None = None
    outputTokens: int | None = None
    text: str = ""
    summary: str | None = None
    next: str | None = None
    question: str | None = None  # stop cause "question": what the agent asks (issue 51)
    diagnosis: list[str] = field(default_factory=list)
    redactions: int = 0
    iterationMetrics: list[IterationMetrics] = field(default_factory=list)
    error: ErrorInfo | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON-ready dict of ``--json`` and ``result.json``."""
        data = records.asdict(self)
        data["costUsd"] = money(self.costUsd)  # 1.2, not 1.2000000000000002
        data["iterationMetrics"] = [item.to_json() for item in self.iterationMetrics]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunSummary:
        """Read back a ``to_json()`` dict (``result.json``); unknown keys are ignored."""
        names = {f.name for f in records.fields(cls)}
        values = {key: value for key, value in data.items() if key in names}
        values["iterationMetrics"] = [
            IterationMetrics.from_json(item) for item in data.get("iterationMetrics") or []
        ]
        values["backends"] = [BackendUse(**item) for item in data.get("backends") or []]
        if data.get("error"):
            values["error"] = ErrorInfo(**data["error"])
        return cls(**values)
