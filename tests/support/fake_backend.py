"""An in-process fake backend for engine tests: ``enqueue()`` replies, read ``history``.

No process is spawned: ``caller`` stands in for ``runner.iteration.call_backend``
and returns the queued results, and ``FakeClock`` makes waits instant, so
back-off, timeouts, failover and budgets are tested in milliseconds.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from jlgcli.backends.base import Availability, BackendRequest, BackendResult
from jlgcli.process.model import ProcessOutcome, StopReason
from jlgcli.runner.iteration import CallResult
from jlgcli.runner.select import SelectedBackend


class FakeClock:
    """Wall and monotonic time that only move when the run sleeps (or ``advance``)."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.t = start
        self.start = start
        self.slept: list[float] = []

    def time(self) -> float:
        return self.t

    def monotonic(self) -> float:
        return self.t - self.start

    def now(self) -> datetime:
        return datetime(2027, 1, 15, tzinfo=timezone.utc) + timedelta(seconds=self.t - self.start)

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += seconds

    def advance(self, seconds: float) -> None:
        self.t += seconds


@dataclass
class Step:
    result: BackendResult
    stop: StopReason = StopReason.EXITED
    duration_s: float = 1.0


@dataclass
class FakeBackend:
    """A backend whose calls return what was enqueued (a reply text, or a full result)."""

    id: str = "fake"
    clock: FakeClock | None = None
    queue: deque[Step] = field(default_factory=deque)
    history: list[BackendRequest] = field(default_factory=list)

    def enqueue(
        self,
        text: str = "",
        *,
        stop: StopReason = StopReason.EXITED,
        duration_s: float = 1.0,
        **result: Any,
    ) -> FakeBackend:
        fields = {"text": text, "ok": True, "exit_code": 0} | result
        self.queue.append(Step(BackendResult(**fields), stop, duration_s))
        return self

    def probe(self, timeout: float = 2.0) -> Availability:
        return Availability(self.id, "available", version="1.0")

    def invocation(self, request: BackendRequest) -> Any:
        raise AssertionError("the fake backend is called through its caller")

    def parser(self) -> Any:
        raise AssertionError("the fake backend is called through its caller")

    def call(self, request: BackendRequest) -> CallResult:
        self.history.append(request)
        step = self.queue.popleft() if self.queue else Step(BackendResult("", True, 0))
        if self.clock is not None:
            self.clock.advance(step.duration_s)
        outcome = ProcessOutcome(
            exit_code=step.result.exit_code, signal=None, stop_reason=step.stop,
            duration=step.duration_s,
        )  # fmt: skip
        return CallResult(step.result, outcome, round(step.duration_s * 1000))


def caller(backend: FakeBackend, request: BackendRequest, **_kw: Any) -> CallResult:
    """Stands in for ``call_backend``."""
    return backend.call(request)


def selector(backend: FakeBackend) -> Any:
    return lambda spec, console: SelectedBackend(backend, backend.probe())  # type: ignore[arg-type]


def opener(*backends: FakeBackend) -> Any:
    by_id = {b.id: b for b in backends}
    return lambda name, spec: (by_id[name], by_id[name].probe()) if name in by_id else "missing"


def run_loop(tmp_path: Any, backend: FakeBackend, **fields: Any) -> tuple[Any, str]:
    """A loop of "Do the task." on ``backend`` in ``tmp_path`` (``fields`` change the RunSpec),
    its clock fake: (the RunSummary, what it printed on stderr)."""
    import io

    from jlgcli.prompts import Prompt
    from jlgcli.runner.console import Console
    from jlgcli.runner.engine import execute
    from jlgcli.runner.spec import RunSpec

    base: dict[str, Any] = dict(
        command="loop", prompt=Prompt("Do the task.", "task.md"), backend="fake", cwd=tmp_path,
        max_iterations=5, timeout_ms=3_600_000, idle_timeout_ms=0,
    )  # fmt: skip
    base.update(fields)
    backend.clock = backend.clock or FakeClock()
    err = io.StringIO()
    summary = execute(RunSpec(**base), Console(1, out=io.StringIO(), err=err),
                      clock=backend.clock, caller=caller, select=selector(backend),
                      open_fallback=opener())  # fmt: skip
    return summary, err.getvalue()
