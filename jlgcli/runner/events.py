"""Events: one JSON line per thing that happens, the same for every backend.

Every run with a folder writes them to ``<run folder>/events.ndjson`` (issue 51: what
``jlgcli watch`` and the dashboard follow), and ``--events FILE`` (``-``: stdout) gets the
same lines as well.

Each line is ``{"schemaVersion": 1, "type": …, "time": ISO-8601 UTC, "runId": …, …}``.
Types: ``run-started``, ``iteration-started``, ``agent-activity`` (text, tool use,
usage), ``limit-wait``, ``backend-switch``, ``gate-result``, ``iteration-ended``,
``run-ended`` (with the exit code), ``question`` (the run parks on it, issue 51).
Schema: ``docs/schemas/events.schema.json``.
Every line goes through the redactor; a write failure never stops the run
(the events are a view, like stdout), it is reported once per file.

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
from pathlib import Path

from jlgcli.moments import datetime, timezone

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any, TextIO

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
    """Writes events as JSON lines to a file, to stdout for ``-``, and to the run folder's
    ``events.ndjson`` (``also_to``); each line is composed and redacted once for all."""

    def __init__(
        self,
        target: str | None,
        run_id: str,
        *,
        redact: Callable[[str], str] | None = None,
        warn: Callable[[str], None] | None = None,
        stdout: TextIO | None = None,
    ) -> None:
        self.run_id = run_id
        self._redact = redact or (lambda text: text)
        self._warn = warn or (lambda _message: None)
        self._outs: list[_Out] = []
        self._open: tuple[int, str | None, float] | None = None  # iteration, backend, start
        if target is None:
            return
        if target == "-":
            self._outs.append(_Out(stdout or sys.stdout, owned=False, name="stdout"))
            return
        try:
            stream = open(target, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
        except OSError as exc:
            from jlgcli.errors import ExitCode, JlgError

            raise JlgError(ExitCode.CANT_CREATE, f"cannot open --events {target}: {exc.strerror}",
                           hint="pass a writable file, or - for stdout") from None  # fmt: skip
        self._outs.append(_Out(stream, owned=True, name=target))

    def also_to(self, path: Path) -> None:
        """Write the events to ``path`` too (the run folder's file): one that cannot be
        opened is a warning, never a stopped run."""
        try:
            stream = open(path, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
        except OSError as exc:
            self._warn(f"events are not written to {path}: {exc.strerror or exc}")
            return
        self._outs.append(_Out(stream, owned=True, name=str(path)))

    def emit(self, event_type: str, **data: Any) -> None:
        """Write one event (``event_type`` is one of ``EVENT_TYPES``)."""
        if not self._outs:
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
        if self._outs and text:
            self._write("agent-activity", {"iteration": iteration, "kind": "text", "text": text},
                        redacted=True)  # fmt: skip

    def end_iteration(self, completion: str) -> None:
        """End the iteration still open, if any, with ``completion`` (why it ended early)."""
        if self._open is None or not self._outs:
            return
        iteration, backend, started = self._open
        self._open = None
        duration = round((time.monotonic() - started) * 1000)
        ended = {"iteration": iteration, "backend": backend, "completion": completion}
        self._write("iteration-ended", {**ended, "durationMs": duration})

    def _write(self, event_type: str, data: dict[str, Any], *, redacted: bool = False) -> None:
        line = event_line(event_type, {"runId": self.run_id}, data)
        if not redacted:
            line = self._redact(line)
        line += "\n"
        for out in self._outs:
            if out.failed:
                continue
            try:
                out.stream.write(line)
                out.stream.flush()
            except (OSError, ValueError) as exc:
                out.failed = True
                self._warn(f"events are no longer written to {out.name}: {exc}")

    def close(self) -> None:
        for out in self._outs:
            if out.owned:
                with contextlib.suppress(OSError):
                    out.stream.close()
        self._outs = []


class _Out:
    """One place the events go; after a failed write it gets no more (warned once)."""

    __slots__ = ("failed", "name", "owned", "stream")

    def __init__(self, stream: TextIO, *, owned: bool, name: str) -> None:
        self.stream, self.owned, self.name, self.failed = stream, owned, name, False


def event_line(event_type: str, owner: dict[str, str], data: dict[str, Any]) -> str:
    """One event as its JSON line (no newline): the envelope, ``owner`` (``runId``, or a
    batch's ``batchId``), then the fields of ``data`` that have a value."""
    record: dict[str, Any] = {
        "schemaVersion": EVENTS_SCHEMA_VERSION,
        "type": event_type,
        "time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
        **owner,
    }
    record.update({key: value for key, value in data.items() if value is not None})
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


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
