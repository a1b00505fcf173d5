"""Helpers for adapter tests: feed recorded output to a parser, run a backend through a fake."""

from __future__ import annotations

from dataclasses import dataclass

from jlgcli.backends.base import BackendRequest, BackendResult
from jlgcli.process.model import Limits, OutputEvent, ProcessOutcome, StopReason

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.backends.base import Backend, StreamParser


def outcome(
    code: int | None = 0, reason: StopReason = StopReason.EXITED, duration: float = 1.0
) -> ProcessOutcome:
    return ProcessOutcome(exit_code=code, signal=None, stop_reason=reason, duration=duration)


@dataclass
class Parsed:
    shown: str
    result: BackendResult


def parse(
    parser: StreamParser,
    stdout: str = "",
    stderr: str = "",
    *,
    code: int | None = 0,
    reason: StopReason = StopReason.EXITED,
    chunk: int | None = None,
) -> Parsed:
    """Feed stderr then stdout (in ``chunk``-sized pieces when given) and finish."""
    shown = []
    for stream, text in (("stderr", stderr), ("stdout", stdout)):
        size = chunk or max(1, len(text))
        for start in range(0, len(text), size):
            shown.append(parser.feed(stream, text[start : start + size]))  # type: ignore[arg-type]
    return Parsed("".join(shown), parser.finish(outcome(code, reason)))


def lines(*items: str) -> str:
    return "".join(item + "\n" for item in items)


def run_backend(
    backend: Backend, request: BackendRequest, *, timeout: float = 20.0, idle: float | None = None
) -> tuple[BackendResult, ProcessOutcome, str]:
    """The real spawn path: invocation → run_invocation → parser; returns what was shown too."""
    from jlgcli.process import run_invocation

    parser = backend.parser()
    shown: list[str] = []

    def sink(event: OutputEvent) -> None:
        shown.append(parser.feed(event.stream, event.text))

    result_outcome = run_invocation(
        backend.invocation(request),
        limits=Limits(total_timeout=timeout, idle_timeout=idle, kill_grace=0.5),
        sinks=(sink,),
    )
    return parser.finish(result_outcome), result_outcome, "".join(shown)
