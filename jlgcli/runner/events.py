"""``--events FILE``: one JSON line per thing that happens, the same for every backend.

Each line is ``{"schemaVersion": 1, "type": …, "time": ISO-8601 UTC, "runId": …, …}``.
Types: ``run-started``, ``iteration-started``, ``agent-activity`` (text, tool use,
usage), ``limit-wait``, ``backend-switch``, ``gate-result``, ``iteration-ended``,
``run-ended`` (with the exit code). Schema: ``docs/schemas/events.schema.json``.
Every line goes through the redactor; a write failure never stops the run
(the events are a view, like stdout), it is reported once.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any, TextIO

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
        try:
            self._stream: TextIO | None = (
                open(target, "a", encoding="utf-8", newline="\n")  # noqa: SIM115
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
        record = {
            "schemaVersion": EVENTS_SCHEMA_VERSION,
            "type": event_type,
            "time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
            "runId": self.run_id,
        }
        record.update({key: value for key, value in data.items() if value is not None})
        line = self._redact(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
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


class NoEvents:
    """The event writer of a run without ``--events``."""

    def emit(self, event_type: str, **data: Any) -> None:
        """Nothing to write."""

    def close(self) -> None:
        """Nothing to close."""
