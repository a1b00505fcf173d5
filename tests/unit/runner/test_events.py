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
