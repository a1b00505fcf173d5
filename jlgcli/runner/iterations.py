"""The iterations of one run: call, judge, decide, record (the engine's inner loop).

``IterationLoop`` asks the guardrail policy (``runner.policy``) about every
call, the completion protocol about every reply, runs the gates, keeps the
resume state and the evidence receipt (diff stat, gates, cost) per iteration.
"""

from __future__ import annotations

import functools
import threading

from jlgcli.runner import calls, replies, shared_limits
from jlgcli.runner.clock import Clock
from jlgcli.runner.console import Console
from jlgcli.runner.evidence import TreeEvidence
from jlgcli.runner.failover import BackendChain
from jlgcli.runner.iteration import Caller, CallResult
from jlgcli.runner.policy import Counters, Guardrails, Proceed, Retry, Stop, Switch, judge_call
from jlgcli.runner.prompting import Prompter
from jlgcli.runner.record import RunRecord, interruption_message
from jlgcli.runner.recorder import Recorder
from jlgcli.runner.spec import RunSpec
from jlgcli.runner.state_keeper import StateKeeper
from jlgcli.runner.waiting import countdown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jlgcli.completion.protocol import Completion
    from jlgcli.runner.progress import NoProgressDetector
    from jlgcli.runner.stuck_gates import StuckGates


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
        if spec.answer is not None:  # ``jlgcli answer``: the first prompt carries it (issue 51)
            asked = spec.resume.question if spec.resume is not None else None
            self.prompter.answered(asked or "", spec.answer)
        self.first_iteration = len(record.metrics) + 1
        self.switch_reason: str | None = None
        self.tree: str | None = None
        self.evidence = TreeEvidence(spec)  # the work tree, without jlgcli's own files
        self.state = StateKeeper(spec, record, recorder)
        self.gate_notes: list[str] = []  # the diagnosis lines of the last gates that failed

    @functools.cached_property
    def no_progress(self) -> NoProgressDetector:
        """Near-identical replies with no file changed (made at a loop's first reply that
        goes on: a one-shot ``run`` never imports it, issue 49)."""
        from jlgcli.runner.progress import NoProgressDetector

        return NoProgressDetector(self.spec.no_progress_limit)

    @functools.cached_property
    def stuck_gates(self) -> StuckGates:
        """The same gates failing with no file changed (issue 44); made when first needed."""
        from jlgcli.runner.stuck_gates import StuckGates

        return StuckGates(self.spec.no_progress_limit)

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

    # -- one call and its reply (``runner.calls``, ``runner.replies``) ---------------------
    def _call(self, iteration: int) -> tuple[CallResult, str]:
        return calls.call(self, iteration)

    def _decide(self, iteration: int, call: CallResult, prompt: str) -> bool:
        return replies.decide(self, iteration, call, prompt)

    def continues_session(self, iteration: int) -> bool:
        """Whether this iteration continues the run's backend session: always in session mode
        ``continue``; for an answer to a question, its first call, whatever the mode (the
        agent that asked hears the answer, issue 51)."""
        answering = self.spec.answer is not None and iteration == self.first_iteration
        return self.spec.session_mode == "continue" or answering

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

    def budget_left(self, session: str | None = None) -> float | None:
        """What is left of --max-cost, as the CLI counts it: a CLI that reports a resumed
        session's running total caps that total, so the session's total so far is added."""
        if self.rails.max_cost_usd is None:
            return None
        left = max(self.rails.max_cost_usd - self.counters.cost_usd, 0.0)
        return left + self.counters.session_totals.get(session or "", 0.0)

    def _human_timeout(self) -> str:
        return calls.human_ms(self.spec.timeout_ms)
