"""``--events FILE``: one JSON line per thing that happens, the same for every backend.

Each line is ``{"schemaVersion": 1, "type": …, "time": ISO-8601 UTC, "runId": …, …}``.
Types: ``run-started``, ``iteration-started``, ``agent-activity`` (text, tool use,
usage), ``limit-wait``, ``backend-switch``, ``gate-result``, ``iteration-ended``,
``run-ended`` (with the exit code), ``question`` (the run parks on it, issue 51).
Schema: ``docs/schemas/events.schema.json``.
Every line goes through the redactor; a write failure never stops the run
(the events are a view, like stdout), it is reported once.

Issue 31: a file is one run's stream, truncated when the run opens it, so
its first line is that run's ``run-started`` and its last the ``run-ended``
(appending mixed runs in one file, and a reader had to split them by
``runId``; to keep several runs, give each its own file). Every
``iteration-started`` gets its ``iteration-ended``, also when the call was
rate-limited (``completion: rate-limited``), moved to a fallback
(``switched``) or stopped (the stop cause, e.g. ``timeout``); an activity
event with nothing in it (a usage report without any count) is not written.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from jlgcli.artifacts.redact import Redacted

EVENTS_SCHEMA_VERSION = 1
EVENT_TYPES = (
    "run-started",
    "iteration-started",
    "agent-activity",
    "limit-wait",
    "backend-switch",
    "gate-result",
    "iteration-ended",
    "run-ended",
    "question",  # the agent asked the user; the run parks on it (issue 51)
)


class EventWriter:
    """Writes events as JSON lines to a file, or to stdout for ``-``."""

    def __init__(
        self,
        target: str,
        run_id: str,
        *,
        redact: Callable[[str], str] | None = None,
        warn: Callable[[str], None] | None = None,
        stdout: TextIO | None = None,
    ) -> None:
        self.run_id = run_id
        self._redact = redact or (lambda text: text)
        self._warn = warn or (lambda _message: None)
        self._failed = False
        self._owned = target != "-"
        self._open: tuple[int, str | None, float] | None = None  # iteration, backend, start
        try:
            self._stream: TextIO | None = (
                open(target, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
                if self._owned
                else (stdout or sys.stdout)
            )
        except OSError as exc:
            from jlgcli.errors import ExitCode, JlgError

            raise JlgError(ExitCode.CANT_CREATE, f"cannot open --events {target}: {exc.strerror}",
                           hint="pass a writable file, or - for stdout") from None  # fmt: skip

    def emit(self, event_type: str, **data: Any) -> None:
        """Write one event (``event_type`` is one of ``EVENT_TYPES``)."""
        if self._stream is None:
            return
        if event_type == "agent-activity" and not _has_content(data):
            return
        if event_type == "iteration-started":
            self.end_iteration("abandoned")  # never left open, whatever the caller forgot
            self._open = (data["iteration"], data.get("backend"), time.monotonic())
        elif event_type == "iteration-ended":
            self._open = None
        elif event_type == "run-ended":
            self.end_iteration(str(data.get("stopCause") or "stopped"))
        self._write(event_type, data)

    def activity(self, iteration: int, text: Redacted) -> None:
        """An ``agent-activity`` text event whose text is redacted already (issue 32): the
        line holds nothing else that could need it, so it is not redacted a second time."""
        if self._stream is not None and text:
            self._write("agent-activity", {"iteration": iteration, "kind": "text", "text": text},
                        redacted=True)  # fmt: skip

    def end_iteration(self, completion: str) -> None:
        """End the iteration still open, if any, with ``completion`` (why it ended early)."""
        if self._open is None or self._stream is None:
            return
        iteration, backend, started = self._open
        self._open = None
        duration = round((time.monotonic() - started) * 1000)
        ended = {"iteration": iteration, "backend": backend, "completion": completion}
        self._write("iteration-ended", {**ended, "durationMs": duration})

    def _write(self, event_type: str, data: dict[str, Any], *, redacted: bool = False) -> None:
        assert self._stream is not None  # both callers checked
        record = {
            "schemaVersion": EVENTS_SCHEMA_VERSION,
            "type": event_type,
            "time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
            "runId": self.run_id,
        }
        record.update({key: value for key, value in data.items() if value is not None})
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        if not redacted:
            line = self._redact(line)
        try:
            self._stream.write(line + "\n")
            self._stream.flush()
        except (OSError, ValueError) as exc:
            if not self._failed:
                self._failed = True
                self._warn(f"events are no longer written: {exc}")

    def close(self) -> None:
        if self._stream is not None and self._owned:
            with contextlib.suppress(OSError):
                self._stream.close()
        self._stream = None


def _has_content(data: dict[str, Any]) -> bool:
    return any(value is not None and value != "" for key, value in data.items()
               if key not in ("iteration", "kind"))  # fmt: skip


class NoEvents:
    """The event writer of a run without ``--events``."""

    def emit(self, event_type: str, **data: Any) -> None:
        """Nothing to write."""

    def activity(self, iteration: int, text: Redacted) -> None:
        """Nothing to write."""

    def end_iteration(self, completion: str) -> None:
        """Nothing to end."""

    def close(self) -> None:
        """Nothing to close."""
