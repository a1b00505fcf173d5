"""The state of one run: timing, prompts, decisions, guardrails, artifacts and the summary."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

from jlgcli.errors import JlgError
from jlgcli.process.model import Sink
from jlgcli.runner import prompting
from jlgcli.runner.console import Console
from jlgcli.runner.iteration import CallResult
from jlgcli.runner.spec import RunSpec
from jlgcli.runner.summary import EXIT_CODES, ErrorInfo, IterationMetrics, RunSummary, status_of

_HINTS = {
    "max-iterations": "raise --max-iterations, or make the task smaller",
    "no-progress": "the model repeats itself: refine the task, or raise --no-progress-limit",
    "invalid-json": "the model must end its reply with a JSON object like "
    '{"status": "done", "summary": "..."}; or use --completion marker',
    "timeout": "raise --timeout (for example --timeout 1h)",
    "iteration-timeout": "raise --iteration-timeout",
    "idle-timeout": "raise --idle-timeout, or check the backend (network, login)",
    "rate-limited": "wait for the backend's limit to reset, or use another backend",
    "error": "read the model's summary; fix the cause and run again",
}


class RunState:
    """Everything one run accumulates; ``finish()`` turns it into a RunSummary."""

    def __init__(self, spec: RunSpec, console: Console, *, started_at: datetime) -> None:
        from jlgcli.artifacts import new_run_id
        from jlgcli.runner.progress import NoProgressDetector

        self.spec = spec
        self.console = console
        self.started_at = started_at
        self.started = time.monotonic()
        self.run_id = new_run_id(started_at)
        self.backend_id = spec.backend
        self.backend_version: str | None = None
        self.metrics: list[IterationMetrics] = []
        self.diagnosis: list[str] = []
        self.cause = "error"
        self.exit_code: int | None = None  # overrides EXIT_CODES[cause] (128 + a signal)
        self.error: ErrorInfo | None = None
        self.last_text = ""
        self.last_summary: str | None = None
        self.last_next: str | None = None
        self.session_id: str | None = None
        self.run_dir: Any = None
        self.violations = 0
        self._last_violation = ""
        self._no_progress = NoProgressDetector(spec.no_progress_limit)
        self._rebound: Any = None
        self._instructions = ""
        self._next_prompt: str | None = None
        self._last_prompt = ""

    # timing ---------------------------------------------------------------
    def remaining_s(self) -> float:
        return self.spec.timeout_ms / 1000 - (time.monotonic() - self.started)

    def elapsed_text(self) -> str:
        from jlgcli.durations import format_duration_ms

        return format_duration_ms((time.monotonic() - self.started) * 1000)

    # prompts --------------------------------------------------------------
    def prepare(self) -> None:
        """Set up the completion protocol (rebound opens its ledger here: exit 73 if it cannot)."""
        self._instructions = self._protocol_instructions()

    def _protocol_instructions(self) -> str:
        if self.spec.command == "run":
            return ""
        if self.spec.completion_mode == "rebound":
            from jlgcli.rebound.session import ReboundSession

            self._rebound = ReboundSession(
                self.spec.cwd,
                ledger_root=self.spec.ledger_dir,
                session_id=self.run_id,
                script_timeout=self.spec.script_timeout_s,
            )
            return str(self._rebound.instructions())
        from jlgcli.completion import protocol_instructions

        return protocol_instructions(self.spec.completion_mode)  # type: ignore[arg-type]

    def prompt_for(self, iteration: int) -> str:
        task = self.spec.prompt.text
        if iteration == 1:
            return prompting.first_prompt(task, self._instructions)
        if self._next_prompt is not None:  # rebound: the continuation built from the script run
            return self._next_prompt
        report = prompting.previous_report(self.last_text, self.last_summary, self.last_next)
        return prompting.next_prompt(
            task,
            self._instructions,
            iteration=iteration,
            max_iterations=self.spec.max_iterations,
            report=report,
            continue_session=self.resume_session() is not None,
        )

    def resume_session(self) -> str | None:
        return self.session_id if self.spec.session_mode == "continue" else None

    # artifacts ------------------------------------------------------------
    def open_artifacts(self) -> None:
        if not self.spec.artifacts:
            return
        from jlgcli.artifacts import RunDirectory

        root = self.spec.artifacts_dir
        if not root.is_absolute():
            root = self.spec.cwd / root
        self.run_dir = RunDirectory.create(root, self.run_id, start=self.started)
        self.run_dir.write_meta(
            {
                "runId": self.run_id,
                "command": self.spec.command,
                "backend": self.backend_id,
                "backendVersion": self.backend_version,
                "startedAt": self._iso(self.started_at),
                "prompt": self.spec.prompt.source,
                "cwd": str(self.spec.cwd),
                "options": self.spec.options,
                "jlgcli": _version(),
            }
        )
        self.console.detail(f"artifacts: {self.run_dir.path}")

    def sinks(self) -> tuple[Sink, ...]:
        return (self.run_dir.transcript,) if self.run_dir is not None else ()

    def record_prompt(self, iteration: int, prompt: str) -> None:
        self._last_prompt = prompt
        if self.run_dir is not None:
            self.run_dir.transcript.write_record("iteration-start", iteration=iteration)
            self.run_dir.write_prompt(iteration, prompt)

    def record_call(self, iteration: int, call: CallResult) -> None:
        result = call.result
        self.last_text = result.text
        self.session_id = result.session_id or self.session_id
        if self.run_dir is not None and self.run_dir.transcript.error is not None:
            raise self.run_dir.transcript.error  # RG-016: a failed transcript write fails the run
        self.metrics.append(
            IterationMetrics(
                index=iteration,
                durationMs=call.duration_ms,
                exitCode=call.outcome.exit_code,
                stopReason=call.outcome.stop_reason.value,
                completion="pending" if result.ok else "backend-error",
                outputChars=len(result.text),
                rateLimited=result.rate_limited,
                costUsd=result.cost_usd,
                inputTokens=result.input_tokens,
                outputTokens=result.output_tokens,
            )
        )
        if self.run_dir is not None:
            self.run_dir.write_final_message(iteration, result.text)
            self.run_dir.transcript.write_record(
                "iteration-end",
                iteration=iteration,
                exitCode=call.outcome.exit_code,
                stopReason=call.outcome.stop_reason.value,
                ok=result.ok,
            )

    def forget_last_metrics(self) -> None:
        """A rate-limited call is retried as the same iteration; keep it out of the count."""
        if self.metrics:
            dropped = self.metrics.pop()
            self.diagnosis.append(f"iteration {dropped.index} was rate-limited and retried")

    # decisions ------------------------------------------------------------
    def decide(self, iteration: int, call: CallResult) -> bool:
        """Apply the completion protocol and the no-progress guard; True when the run stops."""
        metrics = self.metrics[-1]
        if self._rebound is not None:
            return self._decide_rebound(iteration, call, metrics)
        from jlgcli.completion import decide

        decision = decide(self.spec.completion_mode, call.result.text)  # type: ignore[arg-type]
        self.last_summary, self.last_next = decision.summary, decision.next
        metrics.completion, metrics.summary, metrics.next = (
            decision.status,
            decision.summary,
            decision.next,
        )
        metrics.protocolViolation = decision.protocol_violation
        if decision.protocol_violation:
            self.violations += 1
            self._last_violation = f"iteration {iteration}: {decision.reason}"
        if decision.status == "done":
            self.stop("done", None)
        elif decision.status == "error":
            self.stop("error", decision.summary or "the model reported status error")
        elif decision.status == "invalid-json":
            self.stop("invalid-json", decision.reason, tail=call.result.text[-1000:])
        elif self._no_progress.observe(call.result.text):
            self.stop(
                "no-progress",
                f"{self.spec.no_progress_limit} consecutive iterations "
                "with identical or near-identical output (RG-013)",
            )
        else:
            return False
        return True

    def _decide_rebound(self, iteration: int, call: CallResult, metrics: IterationMetrics) -> bool:
        outcome = self._rebound.process_reply(self._last_prompt, call.result.text)
        metrics.completion = outcome.status
        metrics.summary = outcome.summary
        self.last_summary = outcome.summary
        # REQ_AUTO_020: the next call gets the continuation + the script's result; a plain
        # "continue" without next_action falls back to the loop's own continuation prompt.
        self._next_prompt = outcome.next_prompt
        if outcome.status == "continue":
            if self._no_progress.observe(call.result.text):
                self.stop("no-progress", "the model repeats the same rebound step (RG-013)")
                return True
            return False
        self.last_text = outcome.final_text or call.result.text
        message = (
            None
            if outcome.status == "done"
            else (outcome.error or outcome.summary or f"rebound stopped: {outcome.status}")
        )
        self.stop(outcome.status, message)
        return True

    # the end --------------------------------------------------------------
    def stop(
        self, cause: str, message: str | None, *, error: JlgError | None = None, tail: str = ""
    ) -> None:
        self.cause = cause
        if cause == "interrupted" and self.exit_code is None:  # e.g. a rebound script's stop
            from jlgcli.process.signals import first_interruption, signal_name

            if (signum := first_interruption()) is not None:
                self.exit_code = 128 + signum  # issue 14: 143 for SIGTERM, 129 for SIGHUP…
                message = f"{message or 'interrupted'} ({signal_name(signum)})"
        code = self.exit_code or EXIT_CODES[cause]
        if self._rebound is not None:  # the ledger index records why the chain ended
            self._rebound.close(cause, exit_code=code)
        if message and cause != "done":
            hint = error.hint if error is not None else _HINTS.get(cause)
            self.error = ErrorInfo(code=code, message=message, hint=hint)
        if tail.strip():
            self.diagnosis.append("output tail: " + tail.strip()[-500:])

    @staticmethod
    def _iso(moment: datetime) -> str:
        return (
            moment.astimezone(timezone.utc)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z")
        )

    def finish(self) -> RunSummary:
        if self.violations and self.cause != "done":
            mode = self.spec.completion_mode
            self.diagnosis.append(
                f"{self.violations} replies did not follow the {mode} protocol "
                f"(last: {self._last_violation})"
            )
        costs = [m.costUsd for m in self.metrics if m.costUsd is not None]
        tokens_in = [m.inputTokens for m in self.metrics if m.inputTokens is not None]
        tokens_out = [m.outputTokens for m in self.metrics if m.outputTokens is not None]
        summary = RunSummary(
            command=self.spec.command,
            status=status_of(self.cause),
            stopCause=self.cause,  # type: ignore[arg-type]
            exitCode=self.exit_code or EXIT_CODES[self.cause],
            backend=self.backend_id,
            backendVersion=self.backend_version,
            model=self.spec.model,
            completionMode=self.spec.completion_mode if self.spec.command == "loop" else "none",
            iterations=len(self.metrics),
            maxIterations=self.spec.max_iterations if self.spec.command == "loop" else 1,
            durationMs=round((time.monotonic() - self.started) * 1000),
            startedAt=self._iso(self.started_at),
            endedAt=self._iso(datetime.now(timezone.utc)),
            runId=self.run_id,
            runDir=str(self.run_dir.path) if self.run_dir is not None else None,
            sessionId=self.session_id,
            costUsd=sum(costs) if costs else None,
            inputTokens=sum(tokens_in) if tokens_in else None,
            outputTokens=sum(tokens_out) if tokens_out else None,
            text=self.last_text,
            summary=self.last_summary,
            next=self.last_next,
            diagnosis=self.diagnosis,
            iterationMetrics=self.metrics,
            error=self.error,
        )
        if self.run_dir is not None:
            summary.redactions = int(getattr(self.run_dir, "redactions", 0))
            try:
                self.run_dir.close()
                self.run_dir.write_result(summary.model_dump(mode="json"))
                summary.redactions = int(getattr(self.run_dir, "redactions", 0))
            except JlgError as exc:  # RG-016: a failed artifact write fails the run
                summary.stopCause, summary.status = "artifacts-error", "error"
                summary.exitCode = EXIT_CODES["artifacts-error"]
                summary.error = ErrorInfo(code=exc.code, message=exc.message, hint=exc.hint)
        return summary


def _version() -> str:
    from jlgcli._version import __version__

    return __version__
