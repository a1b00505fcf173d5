"""Helpers for the process-layer tests: run an invocation and keep what the sinks saw."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest

from jlgcli.process import run_invocation
from jlgcli.process.model import Invocation, Limits, OutputEvent, ProcessOutcome, Sink


@dataclass
class Recorded:
    outcome: ProcessOutcome
    events: list[OutputEvent]
    logs: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(e.text for e in self.events)

    def stream(self, name: str) -> str:
        return "".join(e.text for e in self.events if e.stream == name)


Runner = Callable[..., Recorded]


@pytest.fixture(params=["pipe", "pipe-threads", "pty"])
def transport(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each transport: selector pipes, reader-thread pipes (the Windows path), a pty."""
    if request.param == "pipe-threads":
        from jlgcli.process import pipe

        monkeypatch.setattr(pipe, "_select_channel", pipe._thread_channel)
        return "pipe"
    return str(request.param)


@pytest.fixture
def run() -> Iterator[Runner]:
    """``run(argv..., transport=, limits=, extra_sinks=, **invocation fields) -> Recorded``."""

    def _run(
        *argv: str,
        limits: Limits | None = None,
        extra_sinks: tuple[Sink, ...] = (),
        cancel: object | None = None,
        **fields: object,
    ) -> Recorded:
        events: list[OutputEvent] = []
        logs: list[str] = []
        outcome = run_invocation(
            Invocation(tuple(argv), **fields),  # type: ignore[arg-type]
            limits=limits or Limits(total_timeout=60),
            sinks=(events.append, *extra_sinks),
            cancel=cancel,  # type: ignore[arg-type]
            log=logs.append,
        )
        return Recorded(outcome, events, logs)

    with warnings.catch_warnings():
        # Python 3.12+ warns about forkpty() in a process that has threads (pexpect#817).
        warnings.filterwarnings("ignore", message=".*fork.*", category=DeprecationWarning)
        yield _run
