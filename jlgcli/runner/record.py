"""What one run accumulates (typed), and the summary builder that turns it into a RunSummary."""

from __future__ import annotations

from jlgcli.artifacts.redact import Redacted
from jlgcli.moments import datetime, timezone
from jlgcli.records import field, record
from jlgcli.runner.causes import cause as cause_row
from jlgcli.runner.causes import exit_code_of
from jlgcli.runner.clock import Clock
from jlgcli.runner.spec import RunSpec
from jlgcli.runner.summary import BackendUse, ErrorInfo, IterationMetrics, RunSummary


@record(frozen=False, slots=True)
class RunRecord:
    """The facts of one run so far; the engine fills it, ``build_summary`` reads it."""

    spec: RunSpec
    run_id: str
    started_at: datetime
    started: float  # the clock's monotonic time at start
    backend_id: str
    backend_version: str | None = None
    # each backend called, in the order of its first call, with its CLI's version
    backend_versions: dict[str, str | None] = field(default_factory=dict)
    metrics: list[IterationMetrics] = field(default_factory=list)
    diagnosis: list[str] = field(default_factory=list)
    cause: str = "error"
    error: ErrorInfo | None = None
    signal_number: int | None = None
    last_text: Redacted = Redacted("")  # shown by `run -q` (Console.final): redacted
    last_summary: str | None = None
    last_next: str | None = None
    session_id: str | None = None
    violations: int = 0
    last_violation: str = ""
    prior_elapsed_ms: int = 0  # a resumed run carries the old run's elapsed time
    resumed_from: str | None = None
    run_dir: str | None = None
    redactions: int = 0
    question: Redacted | None = None  # the agent's question the run parked on (issue 51)

    @property
    def exit_code(self) -> int:
        return exit_code_of(self.cause, signal_number=self.signal_number)

    def elapsed_ms(self, clock: Clock) -> int:
        return self.prior_elapsed_ms + round((clock.monotonic() - self.started) * 1000)

    def remaining_s(self, clock: Clock) -> float:
        return (self.spec.timeout_ms - self.elapsed_ms(clock)) / 1000

    def stop(
        self,
        cause: str,
        message: str | None,
        *,
        hint: str | None = None,
        code: int | None = None,
        tail: str = "",
    ) -> None:
        """End the run with ``cause`` (a row of ``causes``); ``message`` explains it."""
        row = cause_row(cause)  # an unknown cause fails here, not later
        self.cause = cause
        if cause == "interrupted" and self.signal_number is None:
            # e.g. a rebound script or the backend stopped by a signal: 128 + its number
            from jlgcli.process.signals import first_interruption

            self.signal_number = first_interruption()
        if message and cause != "done":
            self.error = ErrorInfo(
                code=code if code is not None else self.exit_code,
                message=message,
                hint=hint if hint is not None else row.hint,
            )
        if tail.strip():
            self.diagnosis.append("output tail: " + " ⏎ ".join(tail.strip()[-500:].splitlines()))


def _iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _total(values: list[float | None] | list[int | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def build_summary(record: RunRecord, clock: Clock) -> RunSummary:
    """The RunSummary of ``record`` as it stands now."""
    spec = record.spec
    if record.violations and record.cause != "done":
        replies = "reply" if record.violations == 1 else "replies"
        record.diagnosis.append(
            f"{record.violations} {replies} did not follow the {spec.completion_mode} protocol "
            f"(last: {record.last_violation})"
        )
    metrics = record.metrics
    tokens_in = _total([m.inputTokens for m in metrics])
    tokens_out = _total([m.outputTokens for m in metrics])
    signal_name = None
    if record.signal_number is not None:
        from jlgcli.process.signals import signal_name as name_of

        signal_name = name_of(record.signal_number)
    row = cause_row(record.cause)
    used = list(record.backend_versions)  # every backend called, failed calls too, in order
    last = metrics[-1].backend if metrics else None
    backend = last or record.backend_id  # who ran the last iteration
    versions = {record.backend_id: record.backend_version}
    versions.update((name, v) for name, v in record.backend_versions.items() if v is not None)
    return RunSummary(
        command=spec.command,
        status=row.status,
        stopCause=row.name,
        exitCode=record.exit_code,
        backend=backend,
        backendVersion=versions.get(backend),
        backends=[BackendUse(id=name, version=versions.get(name)) for name in used],
        model=spec.model,
        permissions=spec.permissions,
        completionMode=spec.completion_mode if spec.is_loop else "none",
        iterations=len(metrics),
        maxIterations=spec.max_iterations if spec.is_loop else 1,
        durationMs=record.elapsed_ms(clock),
        startedAt=_iso(record.started_at),
        endedAt=_iso(clock.now()),
        runId=record.run_id,
        runDir=record.run_dir,
        sessionId=record.session_id,
        signal=signal_name,
        resumedFrom=record.resumed_from,
        costUsd=_total([m.costUsd for m in metrics]),
        inputTokens=int(tokens_in) if tokens_in is not None else None,
        outputTokens=int(tokens_out) if tokens_out is not None else None,
        text=record.last_text,
        summary=record.last_summary,
        next=record.last_next,
        question=record.question,
        diagnosis=list(record.diagnosis),
        redactions=record.redactions,
        iterationMetrics=list(metrics),
        error=record.error,
    )


def interruption_message(signal_number: int | None) -> str:
    """``interrupted by SIGTERM: …`` (Ctrl-C for SIGINT, or when no signal was recorded)."""
    from jlgcli.process.signals import first_interruption, signal_name

    number = signal_number or first_interruption()
    name = "Ctrl-C" if number in (None, 2) else signal_name(number or 2)
    return f"interrupted by {name}: the backend's process tree was stopped"
