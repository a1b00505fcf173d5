"""The transcript kept by default (issue 51): where the Recorder puts it, and what a failure
does (a warning, never a failed run: the user did not ask for it)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from support.fake_backend import FakeClock
from support.files import FullDisk

from jlgcli.prompts import Prompt
from jlgcli.runner.console import Console
from jlgcli.runner.engine import new_record
from jlgcli.runner.recorder import Recorder
from jlgcli.runner.spec import RunSpec
from jlgcli.runner.summary import IterationMetrics


def _recorder(tmp_path: Path, **fields: Any) -> tuple[Recorder, io.StringIO]:
    base: dict[str, Any] = dict(
        command="run", prompt=Prompt("Do it.", "task.md"), backend="fake", cwd=tmp_path,
    )  # fmt: skip
    base.update(fields)
    err = io.StringIO()
    record = new_record(RunSpec(**base), FakeClock())
    return Recorder(record, Console(1, out=io.StringIO(), err=err)), err


def _folder(recorder: Recorder, tmp_path: Path) -> Path:
    return tmp_path / ".jlgcli" / "runs" / recorder.record.run_id


def test_a_one_shot_run_keeps_its_transcript_with_the_iteration_records(tmp_path: Path) -> None:
    from jlgcli.runner.record import build_summary

    recorder, _ = _recorder(tmp_path)
    recorder.open()
    assert recorder.run_dir is None and recorder.transcript is not None
    assert recorder.sinks() == (recorder.transcript,)
    recorder.prompt(1, "claude", "Do it.")
    metrics = IterationMetrics(index=1, durationMs=5, exitCode=0, stopReason="exited",
                               completion="done", outputChars=2, costUsd=0.5,
                               inputTokens=3, outputTokens=4)  # fmt: skip
    recorder.call_ended(metrics, "ok")
    summary = recorder.finish(build_summary(recorder.record, FakeClock()))
    folder = _folder(recorder, tmp_path)
    lines = [json.loads(line) for line in (folder / "transcript.ndjson").read_text().splitlines()]
    assert [line["type"] for line in lines] == ["iteration-start", "iteration-end"]
    assert lines[0]["backend"] == "claude"
    assert (lines[1]["costUsd"], lines[1]["inputTokens"], lines[1]["outputTokens"]) == (0.5, 3, 4)
    assert json.loads((folder / "result.json").read_text())["runId"] == summary.runId
    assert (tmp_path / ".jlgcli" / "runs" / ".gitignore").is_file()


@pytest.mark.parametrize("fields", [{"transcript": False}, {"resumable": False}])
def test_no_transcript_and_the_demo_keep_none(tmp_path: Path, fields: dict[str, Any]) -> None:
    recorder, _ = _recorder(tmp_path, **fields)
    recorder.open()
    assert recorder.transcript is None and recorder.sinks() == ()
    recorder.close_on_error()
    assert not (tmp_path / ".jlgcli").exists()


def test_a_run_refused_before_it_said_anything_leaves_no_folder(tmp_path: Path) -> None:
    recorder, _ = _recorder(tmp_path)
    recorder.open()
    folder = _folder(recorder, tmp_path)
    assert folder.is_dir()
    recorder.close_on_error()
    assert not folder.exists()


def test_a_folder_that_cannot_be_made_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / ".jlgcli").write_text("a file where the folder goes", encoding="utf-8")
    recorder, err = _recorder(tmp_path)
    recorder.open()
    assert recorder.transcript is None
    assert "the transcript is not kept" in err.getvalue()


def test_a_write_failure_is_a_warning_and_the_run_goes_on(tmp_path: Path) -> None:
    recorder, err = _recorder(tmp_path)
    recorder.open()
    sink = recorder.transcript
    assert sink is not None
    sink._fh.close()
    sink._fh = FullDisk()  # type: ignore[assignment]
    recorder.prompt(1, "claude", "Do it.")
    recorder.prompt(2, "claude", "Again.")
    assert err.getvalue().count("the transcript is no longer kept") == 1


def test_a_result_that_cannot_be_written_is_a_warning(tmp_path: Path) -> None:
    from jlgcli.runner.record import build_summary

    recorder, err = _recorder(tmp_path)
    recorder.open()
    folder = _folder(recorder, tmp_path)
    (folder / "result.json").mkdir()  # the rename onto it fails
    summary = recorder.finish(build_summary(recorder.record, FakeClock()))
    assert summary.stopCause != "artifacts-error"  # the run's own outcome is kept
    assert "the run's result is not kept" in err.getvalue()


def test_a_one_shot_result_is_fsynced_but_not_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 49: one fsync at a one-shot's end, not two: after a power cut before the folder
    reached the disk the run reads as incomplete, as a killed one does."""
    from jlgcli.artifacts import atomic
    from jlgcli.runner.record import build_summary

    synced: list[Path] = []
    monkeypatch.setattr(atomic, "_fsync_dir", lambda folder, **_: synced.append(folder))
    recorder, _ = _recorder(tmp_path)
    recorder.open()
    recorder.prompt(1, "claude", "Do it.")
    recorder.finish(build_summary(recorder.record, FakeClock()))
    folder = _folder(recorder, tmp_path)
    assert json.loads((folder / "result.json").read_text())["runId"]
    assert folder not in synced  # (the runs root's .gitignore, written once, is)
