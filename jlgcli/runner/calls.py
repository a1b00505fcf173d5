"""One iteration's backend call: the prompt, the live status, the call, its metrics.

Part of the engine's inner loop (``runner.iterations``): ``call`` sends the
iteration's prompt (in the session the run continues, where there is one),
redacts what comes back where it enters the run core, and records the
iteration's metrics; ``invoke`` is the call itself, also used by the json
repair (``runner.repair``).
"""

from __future__ import annotations

from collections.abc import Callable

from jlgcli import records
from jlgcli.backends.base import BackendRequest
from jlgcli.process.model import Limits
from jlgcli.runner.iteration import CallResult
from jlgcli.runner.repair import status_schema
from jlgcli.runner.status import LiveStatus
from jlgcli.runner.summary import IterationMetrics

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.artifacts.redact import Redacted
    from jlgcli.backends.base import Backend
    from jlgcli.runner.iterations import IterationLoop


def call(loop: IterationLoop, iteration: int) -> tuple[CallResult, str]:
    """Run iteration ``iteration``'s call; returns it (redacted) and the prompt sent."""
    spec, record, backend = loop.spec, loop.record, loop.chain.current
    resumable = loop.continues_session(iteration) and loop.chain.resumes_sessions
    session = record.session_id if resumable else None  # else the task is restated
    # the task file and the last report enter here: the model is sent redacted text
    prompt = loop.recorder.redactor.redact(loop.prompter.prompt_for(iteration, session))
    total_ms = record.elapsed_ms(loop.clock)
    if spec.is_loop:
        limit = loop.rails.max_iterations
        # the run's time so far, named so: it is not this iteration's (issue 49)
        since = f" · total {human_ms(total_ms)}" if iteration > 1 else ""
        loop.console.progress(f"iteration {iteration}/{limit} · {backend.id}{since}")
    loop.recorder.prompt(iteration, backend.id, prompt)
    if spec.gates or spec.is_loop:
        loop.tree = loop.evidence.snapshot() if loop.tree is None else loop.tree
    remaining = record.remaining_s(loop.clock)
    per_call = loop.rails.iteration_timeout_s
    label = f"iteration {iteration}/{loop.rails.max_iterations} · {backend.id}"
    status = (
        LiveStatus(loop.console, label, total_before_ms=total_ms)
        if spec.is_loop
        else LiveStatus(loop.console, backend.id)
    )

    def on_text(text: Redacted) -> None:
        status.saw(text)
        loop.recorder.activity(iteration, text)

    chosen = None  # a new session under an id jlgcli chooses, where the CLI lets it
    if resumable and session is None and getattr(backend, "chooses_session_ids", False):
        import uuid

        chosen = str(uuid.uuid4())
    with status:
        result_call = invoke(loop, backend, prompt, session, remaining, per_call, on_text,
                             new_session=chosen)  # fmt: skip
    result_call, text = _redacted(loop, result_call)
    result = result_call.result
    record.last_text = text
    # resume never depends on reading the id back when jlgcli chose it (claude --session-id)
    started = chosen if result.ok else None
    record.session_id = result.session_id or started or record.session_id
    metrics = IterationMetrics(
        index=iteration,
        durationMs=result_call.duration_ms,
        exitCode=result_call.outcome.exit_code,
        stopReason=result_call.outcome.stop_reason.value,
        completion="pending" if result.ok else "backend-error",
        outputChars=len(result.text),
        backend=backend.id,
        rateLimited=result.rate_limited,
        costUsd=result.cost_usd,
        sessionCostUsd=loop.counters.session_totals.get(result.session_id or "")
        if result.cost_is_session_total
        else None,
        inputTokens=result.input_tokens,
        outputTokens=result.output_tokens,
        switchReason=loop.switch_reason,
    )
    loop.switch_reason = None
    if record.backend_versions.get(backend.id) is None:
        record.backend_versions[backend.id] = loop.chain.availability.version
    if result.denials:
        from jlgcli.runner.denials import describe, hint

        metrics.permissionDenials = list(result.denials)
        denials = metrics.permissionDenials
        loop.console.warn(f"iteration {iteration}: {backend.id} denied {describe(denials)}; "
                          f"{hint(denials, spec.permissions)}")  # fmt: skip
    record.metrics.append(metrics)
    loop.recorder.call_ended(metrics, result.text)
    return result_call, prompt


def _redacted(loop: IterationLoop, done: CallResult) -> tuple[CallResult, Redacted]:
    """Redacted here, where the reply enters the run core, before any tail or report is
    cut from it (issue 32): a cut never starts inside a key."""
    redact = loop.recorder.redactor.redact
    got = done.result
    text = redact(got.text)
    result = records.replace(
        got,
        text=text,
        error=None if got.error is None else redact(got.error),
        remedy=None if got.remedy is None else redact(got.remedy),
        question=None if got.question is None else redact(got.question),
        output_tail=redact(got.output_tail),
    )
    return records.replace(done, result=result), text


def invoke(
    loop: IterationLoop,
    backend: Backend,
    prompt: str,
    session: str | None,
    remaining: float,
    per_call: float | None,
    on_text: Callable[[Redacted], None],
    *,
    new_session: str | None = None,
) -> CallResult:
    """One backend call under the run's limits; its cost made the call's own."""
    spec = loop.spec
    done = loop.caller(
        backend,
        BackendRequest(
            prompt=prompt, cwd=str(spec.cwd), model=spec.model,
            permissions=spec.permissions, extra_args=spec.extra_args,
            resume_session=session, max_budget_usd=loop.budget_left(session),
            cli_version=loop.chain.availability.version, new_session_id=new_session,
            output_schema=status_schema(spec.completion_mode) if spec.is_loop else None,
        ),
        limits=Limits(
            total_timeout=min(remaining, per_call) if per_call else remaining,
            idle_timeout=spec.idle_timeout_ms / 1000 or None,
        ),
        console=loop.console,
        extra_sinks=loop.recorder.sinks(),
        cancel=loop.cancel,
        on_text=on_text,
        redactor=loop.recorder.redactor,
        show_live=spec.completion_mode != "rebound" or loop.console.verbosity >= 2,
    )  # fmt: skip
    # from here on a result's cost is the call's own (a session's running total, read)
    own = loop.counters.own_cost(done.result)
    if own == done.result.cost_usd:
        return done
    return records.replace(done, result=records.replace(done.result, cost_usd=own))


def human_ms(ms: float) -> str:
    from jlgcli.durations import format_duration_ms

    return format_duration_ms(ms)
