"""A batch's events (issue 51): ``<runs root>/.batches/<batch id>/events.ndjson``, always.

The batch-level story, what ``jlgcli watch BATCH`` and the dashboard follow, one JSON line
each (``docs/schemas/events.schema.json``; ``batchId`` where a run's events have ``runId``):

* ``batch-started`` — the tasks (``tasks``: their ids, in order), ``jobs``, ``merge``;
* ``task-started`` — a task's child began (``task``);
* ``task-line`` — a task's live line changed: ``state``, ``backend``, ``iteration``,
  ``costUsd``, ``activity`` and ``line``, the board's text of it (what the terminal that
  started the batch shows); a clock that moved alone is not a change;
* ``task-ended`` — ``task``, ``exitCode``, ``stopCause``, ``state``, ``runId``, ``iterations``;
* ``batch-ended`` — ``exitCode``.

Each task's own events are in its run's folder (and the ``--events FILE`` of the batch,
tagged with ``task``). A write failure never stops the batch: it is reported once. The file
is one batch start's stream (truncated when a resume opens it), so its last line is the
``batch-ended`` of what is running now. Lines are redacted as a run's are.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from jlgcli.batch.board import Row
from jlgcli.runner.events import event_line  # the same envelope as a run's events

BATCH_EVENT_TYPES = ("batch-started", "task-started", "task-line", "task-ended", "batch-ended")


class BatchEvents:
    """The batch folder's ``events.ndjson``; every method may be called from any thread."""

    def __init__(self, path: Path, batch_id: str, *, warn: Callable[[str], None]) -> None:
        from jlgcli.artifacts.redact import Redactor

        self.batch_id = batch_id
        self._warn = warn
        self._redact = Redactor().redact
        self._lock = threading.Lock()
        self._said: dict[str, tuple[Any, ...]] = {}
        self._stream: IO[str] | None = None
        try:
            self._stream = open(path, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
        except OSError as exc:
            warn(f"the batch's events are not written to {path}: {exc.strerror or exc}")

    def emit(self, event_type: str, **data: Any) -> None:
        """Write one event (``event_type`` is one of ``BATCH_EVENT_TYPES``)."""
        if self._stream is None:
            return
        line = self._redact(event_line(event_type, {"batchId": self.batch_id}, data))
        with self._lock:
            if self._stream is None:
                return
            try:
                self._stream.write(line + "\n")
                self._stream.flush()
            except (OSError, ValueError) as exc:
                self._close()
                self._warn(f"the batch's events are no longer written: {exc}")

    def rows(self, rows: list[Row], now: float) -> None:
        """The board was drawn: a ``task-line`` for each row that changed (``Board.on_update``)."""
        for row in rows:
            key = (row.state, row.backend, row.iteration, row.cost, row.activity)
            if row.state == "queued" or self._said.get(row.name) == key:
                continue
            self._said[row.name] = key
            self.emit(
                "task-line", task=row.name, state=row.state, backend=row.backend or None,
                iteration=row.iteration, costUsd=None if row.cost is None else round(row.cost, 6),
                activity=row.activity or None, line=row.text(now).rstrip(),
            )  # fmt: skip

    def close(self) -> None:
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self._stream is not None:
            with contextlib.suppress(OSError):
                self._stream.close()
        self._stream = None
