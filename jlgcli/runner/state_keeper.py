"""A loop's resume state, written after every iteration and at its end (issue 31).

What it holds is listed in ``runner.resume``; read back it is input, never
authority (``runner.resume_options``).
"""

from __future__ import annotations

from jlgcli.moments import timezone

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.runner.clock import Clock
    from jlgcli.runner.record import RunRecord
    from jlgcli.runner.recorder import Recorder
    from jlgcli.runner.spec import RunSpec
    from jlgcli.runner.summary import IterationMetrics


class StateKeeper:
    """Writes ``state.json`` for a resumable loop (a one-shot run keeps none)."""

    def __init__(self, spec: RunSpec, record: RunRecord, recorder: Recorder) -> None:
        self.spec, self.record, self.recorder = spec, record, recorder
        self._resumed_metrics = len(record.metrics)  # the calls before this run's first
        self._saved_metrics: list[tuple[IterationMetrics, dict[str, object]]] = []
        started = record.started_at.astimezone(timezone.utc)
        self._started_at = started.isoformat(timespec="microseconds")

    def save(
        self,
        *,
        stopped: bool,
        backend: str,
        session_backend: str,
        cost_usd: float | None,
        last_report: str,
        clock: Clock,
    ) -> None:
        """The state now; ``stopped``: the run has ended (its stop cause is recorded)."""
        if not (self.spec.is_loop and self.spec.resumable):
            return
        from jlgcli.runner.resume import ResumeState

        record, spec = self.record, self.spec
        # an answer no call of this run has carried yet is kept for --resume, with its question
        pending = spec.answer is not None and len(record.metrics) == self._resumed_metrics
        asked = spec.resume.question if pending and spec.resume is not None else None
        state = ResumeState(
            run_id=record.run_id,
            task=spec.prompt.text,
            prompt_source=spec.prompt.source,
            backend=backend,
            completion_mode=spec.completion_mode,
            options=dict(spec.options),
            iterations=len(record.metrics),
            elapsed_ms=record.elapsed_ms(clock),
            cost_usd=cost_usd,
            session_id=record.session_id,
            session_backend=session_backend if record.session_id else None,
            last_report=last_report,
            stop_cause=record.cause if stopped else None,
            metrics=self._metrics_json(),
            started_at=self._started_at,
            question=record.question if stopped and record.question is not None else asked,
            answer=spec.answer if pending else None,
        )
        # between iterations, written while the next call runs; the last one, at once
        self.recorder.save_state(state, final=False, beside_next_call=not stopped)

    def _metrics_json(self) -> list[dict[str, object]]:
        """The metrics as JSON, converting only the current iteration's: the earlier ones
        are final once saved, and the state is written after every iteration."""
        done = self._saved_metrics
        metrics = self.record.metrics
        keep = 0
        while keep < len(done) and keep < len(metrics) - 1 and done[keep][0] is metrics[keep]:
            keep += 1
        del done[keep:]
        done += [(m, m.to_json()) for m in metrics[keep:]]
        return [json for _, json in done]
