"""The loop (F-004) and the one-shot run (F-003): call, decide, guard, record.

One flow for every mode: the completion protocol (marker, json, rebound, or
none for ``run``) reads each reply; the guardrail policy (``policy``) judges
each call and the budgets; the recorder writes the trail; ``build_summary``
makes the RunSummary. Exit codes come from the causes table (``causes``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from jlgcli.backends.base import Availability
from jlgcli.errors import ExitCode, JlgError
from jlgcli.moments import datetime
from jlgcli.runner.clock import SYSTEM_CLOCK, Clock
from jlgcli.runner.console import Console
from jlgcli.runner.failover import BackendChain
from jlgcli.runner.iteration import Caller, call_backend
from jlgcli.runner.iterations import IterationLoop
from jlgcli.runner.record import RunRecord, build_summary, interruption_message
from jlgcli.runner.recorder import Recorder
from jlgcli.runner.spec import RunSpec
from jlgcli.runner.summary import RunSummary

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.backends.base import Backend
    from jlgcli.completion.protocol import Completion
    from jlgcli.runner.select import SelectedBackend

Selector = Callable[[RunSpec, Console], "SelectedBackend"]

_SETUP_CAUSES = {
    ExitCode.BACKEND_UNAVAILABLE: "backend-missing",
    ExitCode.UNAUTHENTICATED: "backend-unauthenticated",
    ExitCode.CANT_CREATE: "artifacts-error",
    ExitCode.RUN_ERROR: "backend-error",
}


def new_record(spec: RunSpec, clock: Clock) -> RunRecord:
    """The record of a run starting now (carrying a resumed run's counters)."""
    from jlgcli.artifacts import new_run_id

    started_at: datetime = clock.now()
    record = RunRecord(
        spec=spec,
        run_id=new_run_id(started_at),
        started_at=started_at,
        started=clock.monotonic(),
        backend_id=spec.backend,
    )
    if spec.resume is not None:
        from jlgcli.runner.summary import IterationMetrics

        record.resumed_from = spec.resume.run_id
        record.prior_elapsed_ms = spec.resume.elapsed_ms
        record.session_id = spec.resume.session_id
        record.metrics = [IterationMetrics.from_json(item) for item in spec.resume.metrics]
        for metrics in record.metrics:  # the backends the old run used come first
            if metrics.backend:
                record.backend_versions.setdefault(metrics.backend, None)
    return record


def execute(
    spec: RunSpec,
    console: Console,
    *,
    cancel: threading.Event | None = None,
    clock: Clock = SYSTEM_CLOCK,
    caller: Caller = call_backend,
    select: Selector | None = None,
    open_fallback: Callable[[str, RunSpec], tuple[Backend, Availability] | str] | None = None,
) -> RunSummary:
    """Run ``spec`` to its end and return the summary (never raises for run outcomes).

    ``clock``, ``caller``, ``select`` and ``open_fallback`` are injected by tests
    (a fake clock, a fake backend call) so guardrails run in milliseconds.
    """
    from jlgcli.runner.select import check_cost_budget, open_backend, select_backend

    if spec.is_loop and spec.gates:  # before any paid call: a gate that cannot run is exit 64
        from jlgcli.runner.gates import check_gates

        check_gates(spec.gates)
    select = select or select_backend
    open_fallback = open_fallback or open_backend
    record = new_record(spec, clock)
    recorder = Recorder(record, console)
    completion: Completion | None = None
    loop: IterationLoop | None = None
    for note in spec.notes:  # a resume's recorded options that were not read back
        console.warn(note)
        record.diagnosis.append(note)
    try:
        selected = select(spec, console)
        check_cost_budget(spec, selected.backend.id)
        record.backend_id = selected.backend.id
        record.backend_version = selected.availability.version
        _check_session(record, spec, console)
        chain = BackendChain(
            selected.backend, selected.availability, spec.fallbacks,
            lambda name: open_fallback(name, spec),
        )  # fmt: skip
        recorder.open()
        completion = make_completion(spec, record, recorder, console, cancel)
        loop = IterationLoop(
            spec, record, recorder, console, chain, completion, clock, caller, cancel
        )
        loop.run()
    except KeyboardInterrupt as exc:
        _interrupted(record, exc)
    except JlgError as exc:
        cause = _SETUP_CAUSES.get(ExitCode(exc.code)) if exc.code in _SETUP_CAUSES else None
        if cause is None:
            recorder.close_on_error()
            raise  # usage/config errors are not run outcomes
        record.stop(cause, exc.message, hint=exc.hint, code=exc.code)
    if loop is not None:
        _save_final(loop, record)
    if completion is not None:
        completion.close(record.cause, record.exit_code)
    if not spec.is_loop and record.last_text:
        console.final(record.last_text)
    return recorder.finish(build_summary(record, clock))


def _check_session(record: RunRecord, spec: RunSpec, console: Console) -> None:
    """A resumed session id belongs to one backend: dropped (with a note) on another one."""
    state = spec.resume
    if state is None or record.session_id is None:
        return
    owner = state.session_backend or state.backend
    if owner != record.backend_id:
        from jlgcli.runner.state_schema import shown  # read from a file: shown, never obeyed

        note = (f"the recorded session belongs to {shown(owner)}, not {record.backend_id}: "
                "a new session starts, with the task restated")  # fmt: skip
        console.warn(note)
        record.diagnosis.append(note)
        record.session_id = None


def _save_final(loop: IterationLoop, record: RunRecord) -> None:
    """The last state.json, whatever ended the run; and the exact command that resumes it."""
    try:
        loop.save_final()
    except JlgError as exc:  # RG-016: a state that cannot be written fails the run (73)
        if record.cause == "interrupted":  # the signal's code stands; the state is a step behind
            loop.console.warn(f"{exc.message} ({exc.hint})")
            return
        record.stop("artifacts-error", exc.message, hint=exc.hint, code=exc.code)
        return
    if not loop.spec.resumable or record.error is None:
        return
    from jlgcli.runner.resume_options import resume_hint

    hint = resume_hint(record.cause, record.run_id, loop.spec)
    if hint is not None:
        record.error.hint = hint


def _interrupted(record: RunRecord, exc: KeyboardInterrupt) -> None:
    number = getattr(exc, "signum", None)
    record.signal_number = number if isinstance(number, int) else None
    record.stop("interrupted", interruption_message(record.signal_number))


def make_completion(
    spec: RunSpec,
    record: RunRecord,
    recorder: Recorder,
    console: Console,
    cancel: threading.Event | None,
) -> Completion:
    """The completion protocol of this run (rebound opens its ledger here: exit 73 if it cannot)."""
    from jlgcli.completion.protocol import NoCompletion, TextCompletion

    if not spec.is_loop:
        return NoCompletion()
    if spec.completion_mode == "rebound":
        from jlgcli.artifacts.project import project_root
        from jlgcli.rebound.completion import ReboundCompletion
        from jlgcli.rebound.session import ReboundSession

        root = project_root(spec.cwd)  # workbench, ledger and .jlgcli/ at one root (issue 46)
        session = ReboundSession(
            root,
            ledger_root=spec.ledger_dir or root / "ledger",
            session_id=record.run_id,
            script_timeout=spec.script_timeout_s,
            cancel=cancel,
            log=console.detail,
            redact=recorder.redactor.redact,
            task=spec.prompt.text,
            repeat_task=spec.session_mode == "fresh",
            show=console.progress,
            isolation=spec.rebound_isolation,
            network=spec.rebound_network,
        )
        return ReboundCompletion(session)
    return TextCompletion(spec.completion_mode)  # type: ignore[arg-type]
