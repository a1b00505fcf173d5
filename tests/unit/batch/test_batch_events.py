"""A batch's own events file (issue 51): batch-level lines, written cheaply and safely."""

from __future__ import annotations

import io
import json
from pathlib import Path

from jlgcli.batch.board import Board, Row
from jlgcli.batch.events import BatchEvents

BATCH = "batch-20261128T120000Z-cccccc"


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def test_a_task_line_is_written_when_the_row_changes_not_when_its_clock_moves(
    tmp_path: Path,
) -> None:
    path = tmp_path / "events.ndjson"
    events = BatchEvents(path, BATCH, warn=lambda _m: None)
    rows = [Row("alpha"), Row("beta")]
    board = Board(rows, stream=io.StringIO(), quiet=True, on_update=events.rows)  # --json: quiet
    board.update(now=10.0)  # both queued: nothing to say
    rows[0].state, rows[0].started, rows[0].backend = "running", 10.0, "claude"
    board.update(now=11.0)
    board.update(now=70.0)  # only the clock moved
    rows[0].iteration, rows[0].cost, rows[0].activity = 2, 0.25, "text"
    board.update(now=71.0)
    events.emit("batch-ended", exitCode=0)
    events.close()
    events.emit("batch-ended", exitCode=1)  # after close: nothing, no error
    lines = _lines(path)
    assert [(e["type"], e.get("task"), e.get("iteration")) for e in lines] == [
        ("task-line", "alpha", 0),
        ("task-line", "alpha", 2),
        ("batch-ended", None, None),
    ]
    assert lines[1]["costUsd"] == 0.25 and lines[1]["activity"] == "text"
    assert str(lines[1]["line"]).startswith("alpha") and "running (text)" in str(lines[1]["line"])
    assert all(e["batchId"] == BATCH and e["schemaVersion"] == 1 for e in lines)


def test_a_file_that_cannot_be_opened_or_written_is_one_warning(tmp_path: Path) -> None:
    warned: list[str] = []
    missing = BatchEvents(tmp_path / "no" / "events.ndjson", BATCH, warn=warned.append)
    missing.emit("batch-started", tasks=["a"])
    assert len(warned) == 1 and "not written" in warned[0]
    broken = BatchEvents(tmp_path / "events.ndjson", BATCH, warn=warned.append)
    assert broken._stream is not None
    broken._stream.close()  # every write now fails
    broken.emit("task-started", task="a")
    broken.emit("task-started", task="b")
    assert len(warned) == 2 and "no longer written" in warned[1]


def test_batch_lines_are_redacted(tmp_path: Path) -> None:
    path = tmp_path / "events.ndjson"
    events = BatchEvents(path, BATCH, warn=lambda _m: None)
    secret = "sk-ant-api03-" + "a" * 40
    events.emit("task-ended", task="a", state=f"error {secret}", exitCode=1)
    events.close()
    assert secret not in path.read_text("utf-8")
