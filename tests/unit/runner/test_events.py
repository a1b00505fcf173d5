"""The event writer's own guarantees (issue 31): one run a file, every iteration ended."""

from __future__ import annotations

import json
from pathlib import Path

from jlgcli.runner.events import EventWriter


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_file_starts_fresh_for_each_run(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text('{"type": "from-an-earlier-run"}\n', encoding="utf-8")
    writer = EventWriter(str(path), "run-2")
    writer.emit("run-started", command="loop")
    writer.close()
    assert [line["runId"] for line in _lines(path)] == ["run-2"]


def test_an_open_iteration_is_ended_before_the_next_one_and_before_the_run_ends(
    tmp_path: Path,
) -> None:
    path = tmp_path / "events.jsonl"
    writer = EventWriter(str(path), "r")
    writer.emit("iteration-started", iteration=1, backend="claude")
    writer.emit("iteration-started", iteration=1, backend="claude")
    writer.end_iteration("switched")
    writer.end_iteration("twice")  # nothing open: nothing written
    writer.emit("iteration-started", iteration=1, backend="codex")
    writer.emit("run-ended", stopCause="interrupted", exitCode=130)
    writer.close()
    ended = [
        (e["iteration"], e["completion"]) for e in _lines(path) if e["type"] == "iteration-ended"
    ]
    assert ended == [(1, "abandoned"), (1, "switched"), (1, "interrupted")]
    assert all(isinstance(e["durationMs"], int) for e in _lines(path) if "durationMs" in e)


def test_an_iteration_that_ended_normally_is_not_ended_twice(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    writer = EventWriter(str(path), "r")
    writer.emit("iteration-started", iteration=1, backend="claude")
    writer.emit("iteration-ended", iteration=1, completion="done", durationMs=5)
    writer.emit("run-ended", stopCause="done", exitCode=0)
    writer.close()
    assert [e["type"] for e in _lines(path)].count("iteration-ended") == 1


def test_empty_activity_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    writer = EventWriter(str(path), "r")
    writer.emit("agent-activity", iteration=1, kind="usage", costUsd=None, inputTokens=None)
    writer.emit("agent-activity", iteration=1, kind="text", text="")
    writer.emit("agent-activity", iteration=1, kind="usage", outputTokens=0)
    writer.close()
    assert [e.get("outputTokens") for e in _lines(path)] == [0]


def test_the_run_folder_file_gets_the_same_redacted_lines_as_the_given_file(
    tmp_path: Path,
) -> None:
    """Issue 51: one line composed and redacted once, written to each place."""
    given, kept = tmp_path / "given.jsonl", tmp_path / "events.ndjson"
    writer = EventWriter(str(given), "r", redact=lambda text: text.replace("s3cret", "***"))
    writer.also_to(kept)
    writer.emit("run-started", command="loop", backend="claude")
    writer.emit("limit-wait", iteration=1, seconds=3, reason="key s3cret")
    writer.close()
    assert kept.read_text("utf-8") == given.read_text("utf-8")
    assert "s3cret" not in kept.read_text("utf-8") and len(_lines(kept)) == 2


def test_a_run_folder_file_that_cannot_be_written_is_a_warning_once(tmp_path: Path) -> None:
    """Issue 51: the events are a view; a failing place stops neither the run nor the others."""
    warned: list[str] = []
    given = tmp_path / "given.jsonl"
    writer = EventWriter(str(given), "r", warn=warned.append)
    writer.also_to(tmp_path / "missing" / "events.ndjson")  # cannot be opened
    broken = tmp_path / "broken.ndjson"
    writer.also_to(broken)
    writer._outs[-1].stream.close()  # every write to it now fails (ValueError)
    for n in range(3):
        writer.emit("iteration-started", iteration=n + 1, backend="claude")
    writer.close()
    assert len(warned) == 2, warned  # one for the folder that is not there, one for the write
    assert "missing" in warned[0] and str(broken) in warned[1]
    assert [e["iteration"] for e in _lines(given) if e["type"] == "iteration-started"] == [1, 2, 3]


def test_without_any_place_nothing_is_written_and_nothing_fails(tmp_path: Path) -> None:
    writer = EventWriter(None, "r")
    writer.emit("run-started", command="run")
    writer.end_iteration("stopped")
    writer.close()
