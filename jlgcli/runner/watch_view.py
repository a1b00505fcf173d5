"""A run's events shown as the terminal that started it shows the run (issue 51: ``watch``).

The same pieces as the live run: the ``Console`` (assistant text on stdout, ``[jlgcli]``
lines on stderr), the ``LiveStatus`` line of the call in progress — redrawn in place on a
terminal, a heartbeat line elsewhere — plus one line per iteration as it ends and one for
the run's end. The events are input read back from disk: every value is checked for its
type before it is shown, and the console strips control sequences and redacts again.
"""

from __future__ import annotations

import time
from typing import Any

from jlgcli.artifacts.redact import Redacted
from jlgcli.moments import datetime, timezone
from jlgcli.runner.console import Console
from jlgcli.runner.status import LiveStatus


class RunView:
    """Feed it a run's events in order (``show``) and call ``tick`` while nothing comes."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.max_iterations: int | None = None
        self.total_ms = 0.0  # the ended iterations' time: the status line's "total"
        self.status: LiveStatus | None = None
        self.ended: dict[str, Any] | None = None  # the run-ended event, once seen

    def show(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        handler = getattr(self, "_" + str(kind).replace("-", "_"), None)
        if kind in _HANDLED and handler is not None:
            handler(event)

    def tick(self, now: float | None = None) -> None:
        """A beat with nothing new: the status line's clock, or a heartbeat."""
        if self.status is not None:
            self.status.tick(time.monotonic() if now is None else now)

    def close(self) -> None:
        self._end_status()

    # -- each event ----------------------------------------------------------------------
    def _run_started(self, event: dict[str, Any]) -> None:
        self.max_iterations = _int(event.get("maxIterations"))
        what = _text(event.get("command")) or "run"
        backend = _text(event.get("backend")) or "?"
        limit = f", at most {self.max_iterations} iterations" if self.max_iterations else ""
        resumed = _text(event.get("resumedFrom"))
        since = f", resuming {resumed}" if resumed else ""
        self.console.progress(f"{what} {event.get('runId')} started on {backend}{limit}{since}")

    def _iteration_started(self, event: dict[str, Any]) -> None:
        self._end_status()
        iteration, backend = _int(event.get("iteration")) or 0, _text(event.get("backend")) or "?"
        limit = f"/{self.max_iterations}" if self.max_iterations else ""
        self.console.progress(f"iteration {iteration}{limit} · {backend}")
        self.status = LiveStatus(self.console, f"iteration {iteration}{limit} · {backend}",
                                 total_before_ms=self.total_ms,
                                 started=_monotonic_at(event.get("time")))  # fmt: skip

    def _agent_activity(self, event: dict[str, Any]) -> None:
        text = _text(event.get("text"))
        if event.get("kind") != "text" or not text:
            return
        if self.status is not None:
            self.status.saw(text)
        # redacted when it was written; shown without control sequences (Console.assistant)
        self.console.assistant(Redacted(text))

    def _limit_wait(self, event: dict[str, Any]) -> None:
        seconds = _int(event.get("seconds"))
        reason = _text(event.get("reason")) or "rate limit"
        self.console.progress(f"{reason}: waiting {seconds}s" if seconds else reason)

    def _backend_switch(self, event: dict[str, Any]) -> None:
        reason = _text(event.get("reason"))
        self.console.progress(reason or f"switched to {_text(event.get('to')) or '?'}")

    def _gate_result(self, event: dict[str, Any]) -> None:
        command = _text(event.get("command")) or "?"
        passed = event.get("ok") is True
        self.console.progress(f"gate {'passed' if passed else 'failed'}: {command}")

    def _iteration_ended(self, event: dict[str, Any]) -> None:
        self._end_status()
        duration = _int(event.get("durationMs"))
        self.total_ms += duration or 0
        parts = [f"iteration {_int(event.get('iteration')) or '?'} ended: "
                 f"{_text(event.get('completion')) or '?'}"]  # fmt: skip
        if duration is not None:
            parts.append(_duration(duration))
        cost = event.get("costUsd")
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            parts.append(f"${cost:.4f}")
        files = _files(event.get("diffStat"))
        if files:
            parts.append(files)
        self.console.progress(" · ".join(parts))

    def _question(self, event: dict[str, Any]) -> None:
        """The agent asked the user: the run parks on it (issue 51); say how to answer."""
        self._end_status()
        self.console.progress(f"question: {_text(event.get('question')) or '?'}")
        self.console.progress(f'answer it: jlgcli answer {_text(event.get("runId")) or "RUN"} '
                              '"your answer"')  # fmt: skip

    def _run_ended(self, event: dict[str, Any]) -> None:
        self._end_status()
        self.ended = event
        status, cause = _text(event.get("status")) or "?", _text(event.get("stopCause"))
        parts = [f"run ended: {status}" + (f" ({cause})" if cause and cause != status else "")]
        parts.append(f"exit {_int(event.get('exitCode'))}")
        iterations = _int(event.get("iterations"))
        if iterations is not None:
            parts.append(f"{iterations} iteration" + ("" if iterations == 1 else "s"))
        duration = _int(event.get("durationMs"))
        if duration is not None:
            parts.append(_duration(duration))
        cost = event.get("costUsd")
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            parts.append(f"${cost:.4f}")
        self.console.progress(" · ".join(parts))

    def _end_status(self) -> None:
        if self.status is not None:
            self.status = None
            self.console.clear_status()
        self.console.end_live()


_HANDLED = frozenset({"run-started", "iteration-started", "agent-activity", "limit-wait",
                      "backend-switch", "gate-result", "iteration-ended", "question",
                      "run-ended"})  # fmt: skip


def _monotonic_at(value: Any) -> float:
    """The ``time.monotonic()`` of an event's ISO time (now when it is not one, or later)."""
    now = time.monotonic()
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        return now
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    ago = (datetime.now(timezone.utc) - moment).total_seconds()
    return now - max(ago, 0.0)


def _int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _duration(ms: int) -> str:
    from jlgcli.durations import format_duration_ms

    return format_duration_ms(max(ms, 0))


def _files(stat: Any) -> str | None:
    if not isinstance(stat, dict):
        return None
    files, plus, minus = (_int(stat.get(key)) for key in ("files", "insertions", "deletions"))
    if not files:
        return None
    return f"{files} file{'' if files == 1 else 's'} changed (+{plus or 0}/-{minus or 0})"
