"""The loop (F-004) and the one-shot run (F-003): iterate, decide, guard, summarise.

Guardrails, each with its stop cause and exit code (DESIGN "Decisions"):
done 0 · model error / backend failure 1 · backend missing 2 · unauthenticated 6 ·
max iterations 4 (RG-011) · no progress 5 (RG-013) · invalid-json 65 ·
artifacts 73 (RG-016) · total timeout 75 (RG-012) · Ctrl-C 130. A rate limit
with a stated reset time waits (visible countdown) instead of burning
iterations, within the total timeout; without one it backs off exponentially.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime, timezone

from jlgcli.backends.base import Backend, BackendRequest
from jlgcli.errors import ExitCode, JlgError
from jlgcli.process.model import Limits, StopReason
from jlgcli.runner.console import Console
from jlgcli.runner.iteration import CallResult, call_backend
from jlgcli.runner.run_state import RunState
from jlgcli.runner.select import select_backend
from jlgcli.runner.spec import RunSpec
from jlgcli.runner.summary import RunSummary

RATE_LIMIT_BACKOFF_S = (30.0, 60.0, 120.0, 240.0, 480.0)
_SETUP_CAUSES = {
    ExitCode.BACKEND_UNAVAILABLE: "backend-missing",
    ExitCode.UNAUTHENTICATED: "backend-unauthenticated",
    ExitCode.CANT_CREATE: "artifacts-error",
    ExitCode.RUN_ERROR: "backend-error",
}


def execute(
    spec: RunSpec, console: Console, *, cancel: threading.Event | None = None
) -> RunSummary:
    """Run ``spec`` to its end and return the summary (never raises for run outcomes)."""
    state = RunState(spec, console, started_at=datetime.now(timezone.utc))
    try:
        selected = select_backend(spec, console)
        state.backend_id = selected.backend.id
        state.backend_version = selected.availability.version
        state.open_artifacts()
        state.prepare()
        _iterate(state, selected.backend, cancel)
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM/SIGHUP/SIGQUIT (issue 14)
        _interrupted(state, getattr(exc, "signum", None))
    except JlgError as exc:
        cause = _SETUP_CAUSES.get(ExitCode(exc.code)) if exc.code in _SETUP_CAUSES else None
        if cause is None:
            raise  # usage/config errors are not run outcomes
        state.stop(cause, exc.message, error=exc)
    return state.finish()


def _iterate(state: RunState, backend: Backend, cancel: threading.Event | None) -> None:
    spec = state.spec
    limit = spec.max_iterations if spec.command == "loop" else 1
    backoff_index = 0
    iteration = 1
    while iteration <= limit:
        remaining = state.remaining_s()
        if remaining <= 0:
            state.stop("timeout", f"total timeout of {spec.timeout_ms} ms reached")
            return
        prompt = state.prompt_for(iteration)
        if spec.command == "loop":
            console_line = f"iteration {iteration}/{limit} · elapsed {state.elapsed_text()}"
            state.console.progress(console_line)
        state.record_prompt(iteration, prompt)
        call = call_backend(
            backend,
            BackendRequest(
                prompt=prompt,
                cwd=str(spec.cwd),
                model=spec.model,
                permissions=spec.permissions,
                extra_args=spec.extra_args,
                resume_session=state.resume_session(),
            ),
            limits=Limits(
                total_timeout=_call_timeout(state, remaining),
                idle_timeout=spec.idle_timeout_ms / 1000 or None,
            ),
            console=state.console,
            extra_sinks=state.sinks(),
            cancel=cancel,
        )
        state.record_call(iteration, call)
        if _stopped_by_process(state, call):
            return
        if call.result.rate_limited:
            wait = _rate_limit_wait(call, backoff_index)
            backoff_index += 1
            if backoff_index > len(RATE_LIMIT_BACKOFF_S) and call.result.rate_limit_reset is None:
                state.stop(
                    "rate-limited",
                    f"still rate-limited after backing off {len(RATE_LIMIT_BACKOFF_S)} times",
                )
                return
            if wait >= state.remaining_s():
                state.stop(
                    "timeout",
                    f"rate-limited; the reset ({round(wait)}s away) is after the total timeout",
                )
                return
            state.forget_last_metrics()
            state.console.countdown(wait, "backend rate-limited")
            continue  # the same iteration again: a rate limit does not burn iterations
        if not call.result.ok:
            kind = call.result.error_kind
            cause = "backend-unauthenticated" if kind == "auth" else "backend-error"
            state.stop(
                cause,
                f"backend {state.backend_id} failed: "
                f"{call.result.error or 'exit code ' + str(call.result.exit_code)}",
                tail=call.result.output_tail,
            )
            return
        if spec.command == "run":
            state.stop("done", None)
            return
        if state.decide(iteration, call):
            return
        iteration += 1
    state.stop("max-iterations", f"{limit} iterations without completion (RG-011)")


def _call_timeout(state: RunState, remaining: float) -> float:
    per_call = state.spec.iteration_timeout_ms / 1000
    return min(remaining, per_call) if per_call else remaining


def _stopped_by_process(state: RunState, call: CallResult) -> bool:
    reason = call.outcome.stop_reason
    if reason is StopReason.CANCELLED:
        _interrupted(state, call.outcome.interrupted_by)
    elif reason is StopReason.TIMEOUT:
        if state.remaining_s() <= 0.05:
            state.stop("timeout", f"total timeout of {state.spec.timeout_ms} ms reached (RG-012)")
        else:
            state.stop(
                "iteration-timeout",
                f"one backend call exceeded {state.spec.iteration_timeout_ms} ms",
            )
    elif reason is StopReason.IDLE:
        state.stop(
            "idle-timeout",
            f"the backend printed nothing for {state.spec.idle_timeout_ms} ms",
            tail=call.result.output_tail,
        )
    else:
        return False
    return True


def _interrupted(state: RunState, signum: int | None) -> None:
    """Stop with cause ``interrupted``, the signal's name, and exit 128 + its number."""
    from jlgcli.process.signals import signal_name

    name = "Ctrl-C" if signum in (None, 2) else signal_name(signum or 2)
    if signum is not None:
        state.exit_code = 128 + signum
    state.stop("interrupted", f"interrupted by {name}: the backend's process tree was stopped")


def _rate_limit_wait(call: CallResult, backoff_index: int) -> float:
    reset = call.result.rate_limit_reset
    if reset is not None:
        return max(1.0, reset - time.time())
    return RATE_LIMIT_BACKOFF_S[min(backoff_index, len(RATE_LIMIT_BACKOFF_S) - 1)]
