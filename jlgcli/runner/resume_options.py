"""``loop --resume``: what a recorded run gives back, and what it may not (issues 31, 44).

What the user asked at a run's start (gates, backend — a custom one too —,
fallbacks, permissions, budgets, resolved) is kept in the user's own config
folder (``config.asked``): a resume applies exactly that again, under the
flags given now (``--gate`` replaces the gates, ``--no-gates`` drops them),
and says so at its start. The hint a stopped run prints therefore goes on as
before.

A state file sits in the repository, where anyone may have written it, so it
is input and never authority (DESIGN "state is input"; STYLE habit 14). It
gives the task, the counters (iterations, elapsed time, cost, metrics), the
backend session and the last report. Only for a run with no record of the
user's (one started before the record existed, or elsewhere) it gives more:

- the session mode (unless ``--session`` is given); the backend when it is one
  of the agent CLIs jlgcli knows (unless ``--backend`` is given); the limits
  (iterations, timeouts, no-progress, cost) only where they are stricter than
  the flags and config give now — a file can tighten a budget, never widen one;
- never: gates, permissions, the working folder, fallbacks, custom command
  backends, the completion mode, the model and backend arguments. Those come
  from the current flags and trusted config; the resume notes name each
  recorded one that differs from what applies now, with the flag that sets it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jlgcli.config.backend_ids import BUILTIN_BACKENDS
from jlgcli.errors import ExitCode, JlgError
from jlgcli.records import field, record

if TYPE_CHECKING:
    from pathlib import Path

    from jlgcli.runner.options import RunOptions
    from jlgcli.runner.resume import ResumeState

# config key → (0 means "no limit"); a recorded limit applies only where it is stricter
LIMITS = {
    "maxIterations": False,
    "timeoutMs": False,
    "iterationTimeoutMs": True,
    "idleTimeoutMs": True,
    "noProgressLimit": False,
    "maxCostUsd": True,
}
# recorded option → (why it is not read back, the flag that sets it now)
_NOT_READ = {
    "gates": ("commands come from flags and trusted config only", "--gate"),
    "permissions": ("rights come from flags and config only", "--permissions"),
    "cwd": ("the working folder is where you run jlgcli, or --cwd", "--cwd"),
    "fallback": ("the backends to run come from flags and config only", "--fallback"),
    "completionMode": ("the completion mode comes from flags and config only", "--completion"),
    "model": ("the model comes from flags only", "--model"),
}


@record(slots=True)
class Resumed:
    """A resumed run: its state, the recorded limits and the notes shown at its start."""

    state: ResumeState
    path: Path
    limits: dict[str, Any]
    notes: tuple[str, ...]
    saved: dict[str, Any] = field(default_factory=dict)  # the state's options (no user record)


def resumed_options(options: RunOptions, runs_root: Path) -> tuple[RunOptions, Resumed]:
    """The options of ``loop --resume``: the recorded task and session under the flags given,
    and what the user asked at the run's start (``config.asked``) under the flags given."""
    from jlgcli import records
    from jlgcli.runner.options import RunOptions
    from jlgcli.runner.resume import find_state, read_state
    from jlgcli.runner.state_schema import validate_options

    path = find_state(runs_root, str(options.resume))
    state = read_state(path)
    if options.answer is not None:  # issue 51
        _check_answerable(state, options)
    pending: tuple[str, ...] = ()
    if options.answer is None and state.answer is not None:  # given, never carried by a call
        options = records.replace(options, answer=state.answer)
        pending = ("your answer to its question has not reached the agent yet: "
                   "it goes in the next prompt",)  # fmt: skip
    if state.stop_cause == "done":
        raise JlgError(
            ExitCode.USAGE,
            f"run {state.run_id} ended done: there is nothing to resume",
            hint="to do the task again, start a new loop with its prompt file",
        )
    saved = validate_options(path, state.options)
    given = records.replace(options, resume=None)
    if given.prompt is not None and given.prompt_text is None:
        given = records.replace(given, prompt=None)  # the task is the recorded one
    task = RunOptions(prompt=state.prompt_source or "(resumed task)", prompt_text=state.task)
    # keyed by the run's folder (the id asked for, or the user's record of starts), and only
    # when the state agrees: a planted state cannot borrow another run's settings
    asked = user_asked(path.parent.name, given) if path.parent.name == state.run_id else None
    if asked is not None:  # the user's own record: applied again as it was, flags given win
        from jlgcli.runner.options_record import describe

        applied = asked.under(given)
        note = f"resuming {state.run_id} as you started it: {describe(applied)}"
        result = Resumed(state=state, path=path, limits={}, notes=(note, *pending))
        return task.under(applied), result
    limits = _recorded_limits(path, saved)
    notes: list[str] = list(pending)
    backend = None
    if options.backend is None:
        if state.backend in BUILTIN_BACKENDS:
            backend = state.backend
        else:
            notes.append(f"backend {_shown(state.backend)} not read back: only claude, codex, "
                         "copilot and gemini are; pass --backend to choose it")  # fmt: skip
    session = saved.get("session") if options.session is None else None
    recorded = records.replace(task, backend=backend, session=session)
    result = Resumed(state=state, path=path, limits=limits, notes=tuple(notes), saved=saved)
    return recorded.under(given), result


def _check_answerable(state: ResumeState, options: RunOptions) -> None:
    """An answer resumes a run parked on a question, here: not a batch task's earlier run
    (its batch resumes the task, in its worktree, from its newest run: ``batch.lookup``).
    The recorded folder is read only to refuse, never to choose where the agent runs."""
    from pathlib import PurePath

    if state.stop_cause != "question" and state.answer is None:  # (a pending answer: replaced)
        raise not_parked(state.run_id, state.stop_cause)
    recorded = state.options.get("cwd")
    in_worktree = isinstance(recorded, str) and "/.jlgcli/worktrees/" in (
        PurePath(recorded).as_posix() + "/"
    )
    if in_worktree and options.batch_task is None:
        raise JlgError(
            ExitCode.USAGE,
            f"run {state.run_id} ran in a batch's worktree and is no longer its task's run",
            hint="answer the batch's parked task: jlgcli answer latest (or by the run id "
            "jlgcli runs shows for it)",
        )


def not_parked(run_id: str, cause: str | None, *, batch: str | None = None) -> JlgError:
    """The 64 of an answer to a run that asked nothing (``jlgcli answer``, issue 51)."""
    ended = f"it ended {cause}" if cause else "it has not ended"
    where = f" (a task of {batch})" if batch else ""
    return JlgError(
        ExitCode.USAGE,
        f"run {run_id}{where} is not parked on a question: {ended}",
        hint="jlgcli runs lists runs; a run stopped otherwise continues with: "
        f"jlgcli loop --resume {batch or run_id}",
    )


def user_asked(run_id: str, given: RunOptions) -> RunOptions | None:
    """What the user asked when starting ``run_id`` (None: nothing kept, e.g. a run started
    before this record existed), made to agree with the gates given now: ``--gate`` replaces
    the recorded gates, ``--no-gates`` drops them."""
    from jlgcli import records
    from jlgcli.config import asked
    from jlgcli.runner.options_record import from_json

    try:
        data = asked.load(run_id)
        recorded = from_json(data) if data is not None else None
    except ValueError:
        return None  # a damaged record: as if none (the state's own rules apply)
    if recorded is None:
        return None
    if given.gates:
        recorded = records.replace(recorded, no_gates=None)
    if given.no_gates:
        recorded = records.replace(recorded, gates=())
    return recorded


def _recorded_limits(path: Path, saved: dict[str, Any]) -> dict[str, Any]:
    from jlgcli.config.keys import lookup_key
    from jlgcli.config.spec import ValueProblemError
    from jlgcli.runner.state_schema import damaged, shown

    limits: dict[str, Any] = {}
    for key in LIMITS:
        if key not in saved:
            continue
        spec = lookup_key(key)
        assert spec is not None
        try:
            limits[key] = spec.parse(saved[key])
        except ValueProblemError as exc:
            raise damaged(path, f"field 'options.{key}': {exc} (got {shown(saved[key])})") from None
    return limits


def stricter(key: str, current: Any, recorded: Any) -> Any:
    """The stricter of the limit ``key`` now and as recorded (0 may mean "no limit")."""
    if LIMITS[key]:
        if not recorded:
            return current
        if not current:
            return recorded
    return min(current, recorded)


def differing_notes(resumed: Resumed, now: dict[str, Any]) -> tuple[str, ...]:
    """The resume's notes, and one for each recorded option not read back whose value differs
    from what applies now (``now``: key → value; a recorded value equal to it is no news)."""
    from pathlib import Path

    from jlgcli.runner.state_schema import shown

    notes = list(resumed.notes)
    for key, (why, flag) in _NOT_READ.items():
        value = resumed.saved.get(key)
        if value in (None, [], ""):
            continue
        current = now.get(key)
        if key == "cwd":
            if current is not None and Path(value) == Path(current):
                continue
        elif value == current or (isinstance(value, list) and value == list(current or [])):
            continue
        notes.append(f"recorded {key} {shown(value)} not read back: {why} (pass {flag})")
    return tuple(notes)


def _shown(value: Any) -> str:
    from jlgcli.runner.state_schema import shown

    return shown(value)


def resume_hint(cause: str, run_id: str, spec: Any) -> str | None:
    """The exact command that continues a run stopped by ``cause`` (None: not resumable so).

    A spent budget comes back with the flag that raises it: the recorded limit
    would otherwise stop the resumed run at once.
    """
    command = f"jlgcli loop --resume {run_id}"
    if cause == "question":  # parked: the answer resumes it (issue 51)
        return f'answer it: jlgcli answer {run_id} "your answer" (or --answer-file FILE)'
    if cause == "interrupted":
        return f"continue it with: {command}"
    if cause == "max-iterations":
        more = min(spec.max_iterations * 2, 1000)
        return f"continue it with more iterations: {command} --max-iterations {more}"
    if cause == "max-cost" and spec.max_cost_usd:
        return f"continue it with a larger budget: {command} --max-cost {spec.max_cost_usd * 2:g}"
    if cause == "timeout":
        from jlgcli.durations import format_duration_ms

        longer = format_duration_ms(min(spec.timeout_ms * 2, 7 * 86_400_000)).replace(" ", "")
        return f"continue it with more time: {command} --timeout {longer}"
    return None
