"""Choosing the backend of a run and checking it can run (F-002, RG-006)."""

from __future__ import annotations

from jlgcli.backends.base import Availability
from jlgcli.backends.cli_facts import BUILTIN_CLIS
from jlgcli.config.backend_ids import AUTO, BUILTIN_BACKENDS
from jlgcli.errors import ExitCode, JlgError
from jlgcli.records import record
from jlgcli.runner.console import Console
from jlgcli.runner.early_probe import EarlyProbe, installed
from jlgcli.runner.spec import RunSpec

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.backends.base import Backend


@record
class SelectedBackend:
    """The backend a run uses and what its probe said."""

    backend: Backend
    availability: Availability


def unusable(availability: Availability) -> JlgError | None:
    """Why a probed backend cannot run (the error a run stops with), or None."""
    status = availability.status
    if status == "available":
        return None
    if status == "unauthenticated":
        return JlgError(
            ExitCode.UNAUTHENTICATED,
            f"backend {availability.id} is not logged in"
            + (f": {availability.detail}" if availability.detail else ""),
            availability.hint,
        )
    if availability.id == "replay" and status == "missing":
        return JlgError(ExitCode.BACKEND_UNAVAILABLE, f"nothing to replay: {availability.detail}",
                        availability.hint)  # fmt: skip
    if status in ("missing", "unsupported"):
        word = "not installed" if status == "missing" else "not supported"
        return JlgError(
            ExitCode.BACKEND_UNAVAILABLE,
            f"backend {availability.id} is {word}"
            + (f": {availability.detail}" if availability.detail else ""),
            availability.hint,
        )
    return None  # "unknown": the probe could not tell; let the run say more


def _none_available(availabilities: list[Availability], custom: tuple[str, ...]) -> JlgError:
    """Why ``auto`` found nothing: all logged out is exit 6 with their login hints."""
    installed = [a for a in availabilities if a.status not in ("missing", "unsupported")]
    if installed and all(a.status == "unauthenticated" for a in installed):
        names = ", ".join(a.id for a in installed)
        hints = "; ".join(f"{a.id}: {a.hint}" for a in installed if a.hint)
        return JlgError(
            ExitCode.UNAUTHENTICATED,
            f"every installed backend is logged out ({names})",
            hint=hints or "log in to one of them, then run again",
        )
    states = ", ".join(f"{a.id}: {a.status}" for a in availabilities)
    hint = "install and log in to one (see 'jlgcli backends'), or try the offline demo: jlgcli demo"
    if custom:
        names = ", ".join(custom)
        hint = (
            f"auto picks only built-in CLIs; to use your command backend ({names}) pass "
            f"--backend {custom[0]} or run: jlgcli config set backend {custom[0]}"
        )
    return JlgError(ExitCode.BACKEND_UNAVAILABLE, f"no backend available ({states})", hint=hint)


# The CLIs whose output states what a call cost (cli_facts: claude's total_cost_usd);
# the others report tokens at most, so --max-cost could never fire with them.
COST_REPORTING = frozenset(info.id for info in BUILTIN_CLIS.values() if info.reports_cost)


def check_cost_budget(spec: RunSpec, backend_id: str) -> None:
    """``--max-cost`` with a backend that reports no cost is an error up front (exit 64)."""
    if spec.max_cost_usd is None:
        return
    silent = [name for name in (backend_id, *spec.fallbacks) if name not in COST_REPORTING]
    if silent:
        raise JlgError(
            ExitCode.USAGE,
            f"--max-cost needs a backend that reports its cost; {', '.join(silent)} reports none",
            hint="use --backend claude (it reports the cost of each call), or drop --max-cost "
            "and bound the run with --max-iterations / --timeout",
        )


def open_backend(name: str, spec: RunSpec) -> tuple[Backend, Availability] | str:
    """A fallback backend ready to run, or why it cannot (failover skips it)."""
    from jlgcli.backends.registry import get_backend

    try:
        backend = get_backend(name, custom=spec.custom_backends)
    except JlgError as exc:
        return exc.message
    availability = backend.probe()
    problem = unusable(availability)
    return problem.message if problem is not None else (backend, availability)


def select_backend(
    spec: RunSpec, console: Console, *, early: EarlyProbe | None = None
) -> SelectedBackend:
    """The backend named by the spec (or the first available one); JlgError 2/6/64 otherwise.

    ``early``: the probe of the spec's backend, started when the options were resolved
    (``runner.early_probe``); its answer stands for the probe made here."""
    if spec.backend == "replay":
        from jlgcli.backends.replay import ReplayBackend

        if spec.replay_dir is None:
            raise JlgError(
                ExitCode.USAGE,
                "--backend replay needs --replay <run dir>",
                hint="example: --backend replay --replay examples/quickstart/recording",
            )
        replay = ReplayBackend(spec.replay_dir)
        availability = replay.probe()
        if (problem := unusable(availability)) is not None:
            raise problem
        console.progress(
            f"replaying the recorded run in {spec.replay_dir} (no agent CLI is called)"
        )
        return SelectedBackend(replay, availability)

    from jlgcli.backends.registry import auto_select, get_backend, probe_all

    if spec.known_versions:  # a batch's task: what the batch's probe found (issue 44)
        from jlgcli.backends.probing import share_versions

        share_versions(spec.known_versions)
    if spec.backend == AUTO:
        candidates = [get_backend(name) for name in BUILTIN_BACKENDS]
        availabilities = probe_all(candidates)
        chosen = auto_select(availabilities)
        if chosen is None:
            raise _none_available(availabilities, tuple(spec.custom_backends))
        by_id = {a.id: a for a in availabilities}
        console.progress(f"backend: {chosen} (auto-selected: first available)")
        return SelectedBackend(get_backend(chosen), by_id[chosen])

    backend = get_backend(spec.backend, custom=spec.custom_backends)
    # claude/codex check their login with a command (~0.45 s for `claude auth status`): a run
    # starts its first call without it and reads an auth failure from the call (issue 34).
    found = early.take(backend.id) if early is not None else None
    availability = found if found is not None else installed(backend)
    if (problem := unusable(availability)) is not None:
        raise problem
    if availability.status == "unknown":
        console.warn(f"could not check backend {backend.id}: {availability.detail}")
    return SelectedBackend(backend, availability)
