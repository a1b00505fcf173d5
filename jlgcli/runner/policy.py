"""The guardrail policy: (call result, counters, clock) → go on, wait and retry, switch, or stop.

Pure: no I/O, no sleeping, no clock of its own; the engine passes the time
and acts on the verdict, so every guardrail is tested in-process in
milliseconds (tests/unit/runner/test_policy.py).

Rate limits (issue 16): a stated reset is waited for when it comes before the
run's deadline; otherwise the run switches to a fallback backend or stops
``rate-limited`` (exit 75) naming the reset. Without a stated reset the wait
backs off exponentially. Never sooner than ``retry_floor_s`` after a limited
call, and never more than ``max_limited_calls`` limited calls in a row. With
a fallback left, a wait longer than ``switch_after_s`` switches to it (and
the run comes back to this backend once its reset has passed).
Quota/credit exhausted (no useful wait) switches or stops ``quota-exhausted``.

Overload after the CLI's own retries (issue 34: claude "Repeated 529", codex "at
capacity", gemini/copilot 503) backs off ``overload_backoff_s`` inside the time
left, at most ``max_overloaded_calls`` calls in a row; then it switches to a
fallback or stops ``overloaded`` (exit 75).
"""

from __future__ import annotations

from jlgcli.backends.base import BackendResult
from jlgcli.process.model import StopReason
from jlgcli.records import field, record

RATE_LIMIT_BACKOFF_S = (30.0, 60.0, 120.0, 240.0, 480.0)
OVERLOAD_BACKOFF_S = (15.0, 30.0, 60.0, 120.0)


@record(slots=True)
class Guardrails:
    """The limits of one run, in seconds and dollars (None: no limit)."""

    max_iterations: int
    timeout_s: float
    iteration_timeout_s: float | None = None
    max_cost_usd: float | None = None
    retry_floor_s: float = 5.0
    max_limited_calls: int = 6
    switch_after_s: float = 300.0  # with a fallback left, a longer wait switches instead
    backoff_s: tuple[float, ...] = RATE_LIMIT_BACKOFF_S
    overload_backoff_s: tuple[float, ...] = OVERLOAD_BACKOFF_S
    max_overloaded_calls: int = 4


@record(frozen=False, slots=True)
class Counters:
    """What the policy remembers between calls."""

    limited_in_a_row: int = 0
    overloaded_in_a_row: int = 0
    cost_usd: float = 0.0
    cost_reported: bool = False
    # session id → the running total its CLI last reported (claude 2.1.277+, issue 48)
    session_totals: dict[str, float] = field(default_factory=dict)

    def add_cost(self, usd: float | None) -> None:
        """Count a call's reported cost (None: the backend reported none)."""
        if usd is not None:
            self.cost_usd += usd
            self.cost_reported = True

    def own_cost(self, result: BackendResult) -> float | None:
        """What this call cost: its reported cost, or, where the CLI reports the session's
        running total, what that total grew by since the session's last report (a resumed
        session is never counted twice). A total that shrank is a new session: all of it."""
        usd = result.cost_usd
        if usd is None or not result.cost_is_session_total or not result.session_id:
            return usd
        before = self.session_totals.get(result.session_id, 0.0)
        self.session_totals[result.session_id] = usd
        return usd - before if usd >= before else usd


@record(slots=True)
class Proceed:
    """The call produced a reply: hand it to the completion protocol."""


@record(slots=True)
class Retry:
    """Call the same backend again, as the same iteration, after ``wait_s``."""

    wait_s: float
    reason: str


@record(slots=True)
class Switch:
    """Go on with the next fallback backend; the current one is back at ``back_at`` (epoch)."""

    reason: str
    back_at: float | None
    cause: str  # the stop cause if no fallback is left
    message: str
    wait_if_alone: bool = False  # no usable fallback after all: wait until back_at instead
    hint: str | None = None  # the stop's hint if no fallback is left (None: the cause's own)


@record(slots=True)
class Stop:
    """End the run with ``cause``."""

    cause: str
    message: str | None
    tail: str = ""
    hint: str | None = None  # None: the cause's own hint


Verdict = Proceed | Retry | Switch | Stop


def judge_call(
    stop_reason: StopReason,
    result: BackendResult,
    counters: Counters,
    rails: Guardrails,
    *,
    backend: str,
    remaining_s: float,
    now: float,
    can_switch: bool = False,
) -> Verdict:
    """What to do after one backend call (``can_switch``: a fallback backend is left)."""
    if stop_reason is StopReason.CANCELLED and result.error_kind != "auth":  # else: logged out
        return Stop("interrupted", "interrupted: the backend's process tree was stopped")
    if stop_reason is StopReason.TIMEOUT:
        if remaining_s <= 0.05:
            return Stop("timeout", f"total timeout of {_human(rails.timeout_s)} reached")
        limit = _human(rails.iteration_timeout_s or 0)
        return Stop("iteration-timeout", f"one backend call exceeded {limit}")
    if stop_reason is StopReason.IDLE:
        return Stop("idle-timeout", "the backend printed nothing for too long", result.output_tail)
    if result.rate_limited:
        return _rate_limited(result, counters, rails, backend, remaining_s, now, can_switch)
    counters.limited_in_a_row = 0
    if result.error_kind == "overloaded":
        return _overloaded(result, counters, rails, backend, remaining_s, now)
    counters.overloaded_in_a_row = 0
    if result.ok or result.error_kind not in ("auth", "account"):  # refused: no model call
        counters.add_cost(result.cost_usd)
    if result.ok:
        return Proceed()
    if result.error_kind == "budget":  # the call's cap was what was left of --max-cost
        spent = f"${counters.cost_usd:.4f}"
        budget = f"${rails.max_cost_usd or 0:.4f}"
        return Stop(
            "max-cost", f"{spent} spent, the budget is {budget} (the last call hit its cap)"
        )
    detail = result.error or f"exit code {result.exit_code}"
    if result.error_kind == "quota":
        message = f"{backend}'s quota or credit is used up: {detail}"
        return Switch(f"{backend}: quota or credit used up", None, "quota-exhausted", message,
                      hint=_remedy(backend, result.remedy))  # fmt: skip
    if result.error_kind == "account":  # on hold, verification, credentials: the user acts
        message = f"backend {backend}'s account needs you: {detail}"
        return Switch(f"{backend}: its account needs you", None, "backend-unauthenticated",
                      message, hint=_remedy(backend, result.remedy or detail))  # fmt: skip
    if result.error_kind == "auth":  # read from the call itself: no login probe before a run
        from jlgcli.backends.cli_facts import BUILTIN_CLIS

        info = BUILTIN_CLIS.get(backend)
        return Stop("backend-unauthenticated", f"backend {backend} is not logged in: {detail}",
                    hint=f"log in: {info.login_hint}" if info is not None else None)  # fmt: skip
    return Stop("backend-error", f"backend {backend} failed: {detail}", result.output_tail)


def _rate_limited(
    result: BackendResult,
    counters: Counters,
    rails: Guardrails,
    backend: str,
    remaining_s: float,
    now: float,
    can_switch: bool,
) -> Verdict:
    counters.limited_in_a_row += 1
    reset = result.rate_limit_reset
    if reset is not None:
        wait = reset - now
    else:
        index = min(counters.limited_in_a_row - 1, len(rails.backoff_s) - 1)
        wait = rails.backoff_s[index]
    wait = max(wait, rails.retry_floor_s)
    when = (
        f"resets in {_human(wait)}{_at(reset)}" if reset is not None else f"retry in {_human(wait)}"
    )
    if wait >= remaining_s:
        message = (
            f"backend {backend} is rate-limited ({when}), "
            f"later than the run's remaining {_human(max(0.0, remaining_s))}"
        )
        return Switch(f"{backend}: rate-limited, {when}", now + wait, "rate-limited", message)
    if can_switch and wait > rails.switch_after_s:
        message = f"backend {backend} is rate-limited ({when})"
        return Switch(f"{backend}: rate-limited, {when}", now + wait, "rate-limited", message,
                      wait_if_alone=True)  # fmt: skip
    if counters.limited_in_a_row > rails.max_limited_calls:
        message = f"backend {backend} is still rate-limited after {rails.max_limited_calls} calls"
        return Switch(f"{backend}: rate-limited again and again", now + wait, "rate-limited",
                      message)  # fmt: skip
    return Retry(wait, f"backend {backend} rate-limited ({when})")


def _overloaded(
    result: BackendResult,
    counters: Counters,
    rails: Guardrails,
    backend: str,
    remaining_s: float,
    now: float,
) -> Verdict:
    """Back off while the time budget allows, then fail over (or stop ``overloaded``)."""
    counters.overloaded_in_a_row += 1
    counters.add_cost(result.cost_usd)
    detail = result.error or "overloaded"
    index = min(counters.overloaded_in_a_row - 1, len(rails.overload_backoff_s) - 1)
    wait = max(rails.overload_backoff_s[index], rails.retry_floor_s)
    if counters.overloaded_in_a_row > rails.max_overloaded_calls or wait >= remaining_s:
        tries = counters.overloaded_in_a_row
        message = f"backend {backend} is overloaded ({tries} calls in a row): {detail}"
        counters.overloaded_in_a_row = 0
        return Switch(f"{backend}: overloaded", None, "overloaded", message)
    return Retry(wait, f"backend {backend} overloaded, retry in {_human(wait)}: {detail}")


def _remedy(backend: str, said: str | None) -> str | None:
    """The CLI's own remedy as a hint (None: the stop cause's usual hint)."""
    return f"{backend} says: {said}" if said else None


def judge_budget(counters: Counters, rails: Guardrails) -> Stop | None:
    """After a reply that did not finish the task: is the cost budget spent?"""
    if rails.max_cost_usd is not None and counters.cost_usd >= rails.max_cost_usd:
        spent = f"${counters.cost_usd:.4f}"
        return Stop("max-cost", f"{spent} spent, the budget is ${rails.max_cost_usd:.4f}")
    return None


def _at(epoch: float) -> str:
    import time

    return time.strftime(", at %Y-%m-%d %H:%M UTC", time.gmtime(epoch))


def _human(seconds: float) -> str:
    """``4d23h`` past two days (a weekly limit), else the usual short form."""
    if seconds >= 2 * 86400:
        days, rest = divmod(int(seconds), 86400)
        return f"{days}d{rest // 3600:02d}h"
    from jlgcli.durations import format_duration_ms

    return format_duration_ms(seconds * 1000)
