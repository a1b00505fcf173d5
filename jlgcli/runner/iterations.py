"""The iterations of one run: call, judge, decide, record (the engine's inner loop).

``IterationLoop`` asks the guardrail policy (``runner.policy``) about every
call, the completion protocol about every reply, runs the gates, keeps the
resume state and the evidence receipt (diff stat, gates, cost) per iteration.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from jlgcli import records
from jlgcli.backends.base import Backend, BackendRequest
from jlgcli.completion import Decision
from jlgcli.completion.protocol import Completion, Reply
from jlgcli.process.model import Limits
from jlgcli.runner import shared_limits
from jlgcli.runner.clock import Clock
from jlgcli.runner.console import Console
from jlgcli.runner.evidence import TreeEvidence
from jlgcli.runner.failover import BackendChain
from jlgcli.runner.iteration import Caller, CallResult
from jlgcli.runner.policy import Counters, Guardrails, Proceed, Retry, Stop, Switch, judge_call
from jlgcli.runner.prompting import Prompter
from jlgcli.runner.record import RunRecord, interruption_message
from jlgcli.runner.recorder import Recorder
from jlgcli.runner.repair import status_schema
from jlgcli.runner.spec import RunSpec
from jlgcli.runner.state_keeper import StateKeeper
from jlgcli.runner.status import LiveStatus
from jlgcli.runner.summary import IterationMetrics
from jlgcli.runner.waiting import countdown

if TYPE_CHECKING:
    from jlgcli.artifacts.redact import Redacted
GATE_TAIL_LINES = 10  # lines of a gate's output shown with -v


class IterationLoop:
    """The iterations of one run."""

    def __init__(
        self,
        spec: RunSpec,
        record: RunRecord,
        recorder: Recorder,
        console: Console,
        chain: BackendChain,
        completion: Completion,
        clock: Clock,
        caller: Caller,
        cancel: threading.Event | None,
    ) -> None:
        from jlgcli.runner.progress import NoProgressDetector

        self.spec, self.record, self.recorder, self.console = spec, record, recorder, console
        self.chain, self.completion, self.clock = chain, completion, clock
        self.caller, self.cancel = caller, cancel
        self.rails = Guardrails(
            max_iterations=spec.max_iterations if spec.is_loop else 1,
            timeout_s=spec.timeout_ms / 1000,
            iteration_timeout_s=spec.iteration_timeout_ms / 1000 or None,
            max_cost_usd=spec.max_cost_usd,
        )
        self.counters = Counters()
        for metrics in record.metrics:  # a resumed run: the cost so far counts
            self.counters.add_cost(metrics.costUsd)
            if record.session_id and metrics.sessionCostUsd is not None:  # and its session's total
                self.counters.session_totals[record.session_id] = metrics.sessionCostUsd
        self.no_progress = NoProgressDetector(spec.no_progress_limit)
        from jlgcli.runner.stuck_gates import StuckGates

        self.stuck_gates = StuckGates(spec.no_progress_limit)  # issue 44
        from jlgcli.runner.denials import DenialTracker

        self.denied = DenialTracker()
        self.denial_feedback: str | None = None
        self.prompter = Prompter(
            spec.prompt.text,
            completion.instructions(),
            max_iterations=self.rails.max_iterations,
            fresh=spec.session_mode == "fresh",
        )
        if spec.resume is not None:
            self.prompter.report = spec.resume.last_report
        self.switch_reason: str | None = None
        self.tree: str | None = None
        self.evidence = TreeEvidence(spec)  # the work tree, without jlgcli's own files
        self.state = StateKeeper(spec, record, recorder)
        self._gate_notes: list[str] = []  # the diagnosis lines of the last gates that failed

    def _wait_for_shared_limit(self, iteration: int) -> None:
        """In a batch, another task's rate limit on this backend is ours too (issue 37)."""
        backend = self.chain.current.id
        wait = shared_limits.limited_until(backend, self.spec.shared_limits) - self.clock.time()
        if 0 < wait < self.record.remaining_s(self.clock):
            reason = f"another task met {backend}'s rate limit"
            self.recorder.limit_wait(iteration, wait, reason)
            countdown(self.console, self.clock, wait, reason)

    def run(self) -> None:
        try:
            self._run()
        finally:
            self.evidence.close()

    def _run(self) -> None:
        iteration = len(self.record.metrics) + 1
        while iteration <= self.rails.max_iterations:
            if self.record.remaining_s(self.clock) <= 0:
                self.record.stop("timeout", f"total timeout of {self._human_timeout()} reached")
                return
            if self.chain.back_to_primary(self.clock.time()):
                self._switched(f"back to {self.chain.current.id}: its limit has reset")
            self._wait_for_shared_limit(iteration)
            call, prompt = self._call(iteration)
            verdict = judge_call(
                call.outcome.stop_reason, call.result, self.counters, self.rails,
                backend=self.chain.current.id, remaining_s=self.record.remaining_s(self.clock),
                now=self.clock.time(), can_switch=self.chain.has_fallback,
            )  # fmt: skip
            if isinstance(verdict, Retry):
                self.recorder.events.end_iteration("rate-limited")
                self._forget(iteration, verdict.reason)
                self.recorder.limit_wait(iteration, verdict.wait_s, verdict.reason)
                shared_limits.note(self.chain.current.id, self.clock.time() + verdict.wait_s,
                                   self.spec.shared_limits)  # fmt: skip
                countdown(self.console, self.clock, verdict.wait_s, verdict.reason)
                continue  # the same iteration again: a rate limit does not burn iterations
            if isinstance(verdict, Switch):
                self.recorder.events.end_iteration("switched")
                self._forget(iteration, verdict.reason)
                to = self.chain.switch(verdict.back_at)
                if to is None:
                    self.record.diagnosis.extend(self.chain.notes)
                    self.chain.notes.clear()
                    wait = (verdict.back_at or 0) - self.clock.time()
                    if verdict.wait_if_alone and 0 < wait < self.record.remaining_s(self.clock):
                        # no usable fallback after all, and the reset comes in time: wait for it
                        self.recorder.limit_wait(iteration, wait, verdict.reason)
                        countdown(self.console, self.clock, wait, verdict.reason)
                        continue
                    self.record.stop(verdict.cause, verdict.message, hint=verdict.hint)
                    return
                self._switched(f"{verdict.reason}; switched to {to}")
                continue
            if isinstance(verdict, Stop):
                self.recorder.events.end_iteration(verdict.cause)
                if verdict.cause == "backend-unauthenticated":  # refused before any work
                    self._forget(iteration, "the backend is not logged in")
                message = verdict.message
                if verdict.cause == "interrupted":
                    self.record.signal_number = call.outcome.interrupted_by
                    message = interruption_message(self.record.signal_number)
                self.record.stop(verdict.cause, message, tail=verdict.tail, hint=verdict.hint)
                return
            assert isinstance(verdict, Proceed)
            if self._decide(iteration, call, prompt):
                return
            iteration += 1
            if iteration <= self.rails.max_iterations:  # the last one: ``save_final`` writes it
                self._save_state(stopped=False)
        limit = self.rails.max_iterations
        word = "iteration" if limit == 1 else "iterations"
        self.record.stop("max-iterations", f"{limit} {word} without completion")

    # -- one call ------------------------------------------------------------------------
    def _call(self, iteration: int) -> tuple[CallResult, str]:
        spec, record, backend = self.spec, self.record, self.chain.current
        resumable = spec.session_mode == "continue" and self.chain.resumes_sessions
        session = record.session_id if resumable else None  # else the task is restated
        # the task file and the last report enter here: the model is sent redacted text
        prompt = self.recorder.redactor.redact(self.prompter.prompt_for(iteration, session))
        total_ms = record.elapsed_ms(self.clock)
        if spec.is_loop:
            limit = self.rails.max_iterations
            # the run's time so far, named so: it is not this iteration's (issue 49)
            since = f" · total {_human_ms(total_ms)}" if iteration > 1 else ""
            self.console.progress(f"iteration {iteration}/{limit} · {backend.id}{since}")
        self.recorder.prompt(iteration, backend.id, prompt)
        if spec.gates or spec.is_loop:
            self.tree = self.evidence.snapshot() if self.tree is None else self.tree
        remaining = record.remaining_s(self.clock)
        per_call = self.rails.iteration_timeout_s
        label = f"iteration {iteration}/{self.rails.max_iterations} · {backend.id}"
        status = (
            LiveStatus(self.console, label, total_before_ms=total_ms)
            if spec.is_loop
            else LiveStatus(self.console, backend.id)
        )

        def on_text(text: Redacted) -> None:
            status.saw(text)
            self.recorder.activity(iteration, text)

        chosen = None  # a new session under an id jlgcli chooses, where the CLI lets it
        if resumable and session is None and getattr(backend, "chooses_session_ids", False):
            import uuid

            chosen = str(uuid.uuid4())
        with status:
            call = self._invoke(backend, prompt, session, remaining, per_call, on_text,
                                new_session=chosen)  # fmt: skip
        # Redacted here, where the reply enters the run core, before any tail or
        # report is cut from it (issue 32): a cut never starts inside a key.
        redact = self.recorder.redactor.redact
        text = redact(call.result.text)
        result = records.replace(
            call.result,
            text=text,
            error=None if call.result.error is None else redact(call.result.error),
            remedy=None if call.result.remedy is None else redact(call.result.remedy),
            output_tail=redact(call.result.output_tail),
        )
        call = records.replace(call, result=result)
        record.last_text = text
        # resume never depends on reading the id back when jlgcli chose it (claude --session-id)
        started = chosen if result.ok else None
        record.session_id = result.session_id or started or record.session_id
        metrics = IterationMetrics(
            index=iteration,
            durationMs=call.duration_ms,
            exitCode=call.outcome.exit_code,
            stopReason=call.outcome.stop_reason.value,
            completion="pending" if result.ok else "backend-error",
            outputChars=len(result.text),
            backend=backend.id,
            rateLimited=result.rate_limited,
            costUsd=result.cost_usd,
            sessionCostUsd=self.counters.session_totals.get(result.session_id or "")
            if call.result.cost_is_session_total
            else None,
            inputTokens=result.input_tokens,
            outputTokens=result.output_tokens,
            switchReason=self.switch_reason,
        )
        self.switch_reason = None
        if record.backend_versions.get(backend.id) is None:
            record.backend_versions[backend.id] = self.chain.availability.version
        if result.denials:
            from jlgcli.runner.denials import describe, hint

            metrics.permissionDenials = list(result.denials)
            denials = metrics.permissionDenials
            self.console.warn(f"iteration {iteration}: {backend.id} denied {describe(denials)}; "
                              f"{hint(denials, spec.permissions)}")  # fmt: skip
        record.metrics.append(metrics)
        self.recorder.call_ended(metrics, result.text)
        return call, prompt

    def _invoke(
        self,
        backend: Backend,
        prompt: str,
        session: str | None,
        remaining: float,
        per_call: float | None,
        on_text: Callable[[Redacted], None],
        *,
        new_session: str | None = None,
    ) -> CallResult:
        spec = self.spec
        call = self.caller(
            backend,
            BackendRequest(
                prompt=prompt, cwd=str(spec.cwd), model=spec.model,
                permissions=spec.permissions, extra_args=spec.extra_args,
                resume_session=session, max_budget_usd=self._budget_left(session),
                cli_version=self.chain.availability.version, new_session_id=new_session,
                output_schema=status_schema(spec.completion_mode) if spec.is_loop else None,
            ),
            limits=Limits(
                total_timeout=min(remaining, per_call) if per_call else remaining,
                idle_timeout=spec.idle_timeout_ms / 1000 or None,
            ),
            console=self.console,
            extra_sinks=self.recorder.sinks(),
            cancel=self.cancel,
            on_text=on_text,
            redactor=self.recorder.redactor,
            show_live=spec.completion_mode != "rebound" or self.console.verbosity >= 2,
        )  # fmt: skip
        # from here on a result's cost is the call's own (a session's running total, read)
        own = self.counters.own_cost(call.result)
        if own == call.result.cost_usd:
            return call
        return records.replace(call, result=records.replace(call.result, cost_usd=own))

    def _forget(self, iteration: int, reason: str) -> None:
        """A limited call is retried (or moved) as the same iteration: out of the count."""
        if self.record.metrics and self.record.metrics[-1].index == iteration:
            dropped = self.record.metrics.pop()
            self.switch_reason = self.switch_reason or dropped.switchReason
        self.record.diagnosis.append(f"iteration {iteration}: {reason}")
        self.console.detail(f"iteration {iteration} is not counted: {reason}")

    def _switched(self, reason: str) -> None:
        self.console.warn(reason)
        self.recorder.events.emit("backend-switch", to=self.chain.current.id, reason=reason)
        self.record.session_id = None  # a fresh session on the new backend, the task restated
        self.prompter.restart()
        self.switch_reason = reason

    # -- one reply -----------------------------------------------------------------------
    def _decide(self, iteration: int, call: CallResult, prompt: str) -> bool:
        """Apply the completion protocol, gates and budgets; True when the run stops."""
        record, metrics = self.record, self.record.metrics[-1]
        decision = self.completion.decide(
            Reply(iteration, call.result.text, prompt, self.recorder.payload_ref(iteration))
        )
        if decision.status == "invalid-json" and self.spec.completion_mode == "json":
            from jlgcli.runner.repair import ask_once_more

            decision = ask_once_more(self, iteration, call, decision)
        metrics.completion, metrics.summary, metrics.next = (
            decision.status, decision.summary, decision.next,
        )  # fmt: skip
        metrics.protocolViolation = decision.protocol_violation
        record.last_summary, record.last_next = decision.summary, decision.next
        if decision.protocol_violation:
            record.violations += 1
            record.last_violation = f"iteration {iteration}: {decision.reason}"
        before, self.tree = self.tree, self.evidence.snapshot() if self.tree is not None else None
        metrics.diffStat = self.evidence.diff_stat(before, self.tree)
        stopped = self._apply(decision, call, metrics)
        self.recorder.iteration_ended(metrics)
        return stopped

    def _apply(self, decision: Decision, call: CallResult, metrics: IterationMetrics) -> bool:
        record = self.record
        status = decision.status
        if self.spec.is_loop and status in ("done", "continue"):
            from jlgcli.runner.denials import judge_denials

            stop, self.denial_feedback = judge_denials(self.denied, metrics, self.spec.permissions)
            if stop is not None:
                record.stop("permission-denied", stop)
                return True
            if self.denial_feedback is not None and status == "done":
                status, metrics.completion = "continue", "denied"  # its writes never happened
        gated = status == "done" and self.spec.gates and self.spec.is_loop
        if gated and not self._gates_pass(metrics):
            status = "continue"
            metrics.completion = "gates-failed"
        if status == "done":
            if decision.final_text is not None:
                record.last_text = self.recorder.redactor.redact(decision.final_text)
            record.stop("done", None)
            return True
        if status == "continue":
            if metrics.completion != "gates-failed":
                self.prompter.remember(
                    call.result.text, decision.summary, decision.next, decision.next_prompt
                )
            if self.denial_feedback is not None:
                self.prompter.add_feedback(self.denial_feedback)
                self.denial_feedback = None
            changed = bool(metrics.diffStat and metrics.diffStat.get("files"))
            failed = tuple(gate.command for gate in metrics.gates or () if not gate.ok)
            if self.stuck_gates.observe(failed, worktree_changed=changed):
                record.stop("no-progress", self.stuck_gates.message())
                return True
            if self.no_progress.observe(call.result.text, worktree_changed=changed):
                limit = self.spec.no_progress_limit
                record.stop("no-progress", f"{limit} iterations in a row with near-identical "
                                           "replies and no file changed")  # fmt: skip
                return True
            from jlgcli.runner.policy import judge_budget

            budget = judge_budget(self.counters, self.rails)
            if budget is not None:
                record.stop(budget.cause, budget.message)
                return True
            return False
        if decision.final_text is not None:
            record.last_text = self.recorder.redactor.redact(decision.final_text)
        if status == "error":
            record.stop(
                "error", decision.error or decision.summary or "the model reported an error"
            )
        elif status == "invalid-json":
            record.stop("invalid-json", decision.error or decision.reason,
                        tail=call.result.text[-1000:])  # fmt: skip
        elif status == "interrupted":  # rebound: a signal while the script ran
            detail = decision.error or decision.reason
            record.stop(status, f"{interruption_message(record.signal_number)} ({detail})")
        else:  # sandbox-violation (rebound)
            record.stop(status, decision.error or decision.reason)
        return True

    def _gates_pass(self, metrics: IterationMetrics) -> bool:
        from jlgcli.runner.gates import failed_gates_block, failure_lines, run_gates

        self.console.progress(f"the model says done: running {len(self.spec.gates)} gate(s)")
        results = run_gates(self.spec.gates, self.spec.cwd, redact=self.recorder.redactor.redact,
                            cancel=self.cancel)  # fmt: skip
        metrics.gates = results
        for note in self._gate_notes:  # only the latest gate failures stay in the diagnosis
            self.record.diagnosis.remove(note)
        self._gate_notes = []
        for gate in results:
            self.recorder.events.emit("gate-result", iteration=metrics.index, command=gate.command,
                                      exitCode=gate.exitCode, ok=gate.ok)  # fmt: skip
            if gate.ok:
                self.console.progress(f"gate passed: {gate.command}")
                if gate.outputTail:  # -v (issue 38); a failing gate's tail is always shown
                    tail = "\n".join(gate.outputTail.splitlines()[-GATE_TAIL_LINES:])
                    self.console.detail(f"gate {gate.command} output (tail):\n{tail}")
                continue
            shown = failure_lines(gate)
            for line in shown:
                self.console.progress(line)
            note = f"iteration {metrics.index}: {shown[0]}"
            if len(shown) > 1:
                note += " — last lines: " + " ⏎ ".join(line[4:] for line in shown[-3:])
            self._gate_notes.append(note)
        self.record.diagnosis.extend(self._gate_notes)
        if all(gate.ok for gate in results):
            return True
        self.prompter.remember(self.record.last_text, None, None, None)
        self.prompter.add_feedback(failed_gates_block(results))
        self.no_progress.reset()
        return False

    # -- helpers -------------------------------------------------------------------------
    def save_final(self) -> None:
        """The state at the end of the run (every ending: done, budgets, errors, Ctrl-C);
        the recorder makes it durable when the run finishes (one directory fsync)."""
        self._save_state(stopped=True)

    def _save_state(self, stopped: bool) -> None:
        counters = self.counters
        self.state.save(
            stopped=stopped,
            backend=self.chain.primary.id,
            session_backend=self.chain.current.id,
            cost_usd=counters.cost_usd if counters.cost_reported else None,
            last_report=self.prompter.report,
            clock=self.clock,
        )

    def _budget_left(self, session: str | None = None) -> float | None:
        """What is left of --max-cost, as the CLI counts it: a CLI that reports a resumed
        session's running total caps that total, so the session's total so far is added."""
        if self.rails.max_cost_usd is None:
            return None
        left = max(self.rails.max_cost_usd - self.counters.cost_usd, 0.0)
        return left + self.counters.session_totals.get(session or "", 0.0)

    def _human_timeout(self) -> str:
        return _human_ms(self.spec.timeout_ms)


def _human_ms(ms: float) -> str:
    from jlgcli.durations import format_duration_ms

    return format_duration_ms(ms)
