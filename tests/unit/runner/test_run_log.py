"""``jlgcli.api.transcript_lines``: the call the dashboard makes (issue 51)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jlgcli import api
from jlgcli.artifacts.transcript import TranscriptSink
from jlgcli.errors import ExitCode, JlgError
from jlgcli.process.model import OutputEvent

RUN = "20261128T120000Z-abcdef"


def _run(root: Path, *, transcript: bool = True) -> Path:
    folder = root / RUN
    folder.mkdir(parents=True)
    result = {"status": "done", "exitCode": 0, "backend": "claude", "iterations": 1}
    (folder / "result.json").write_text(json.dumps(result), encoding="utf-8")
    if transcript:
        with TranscriptSink(folder / "transcript.ndjson", start=0.0) as sink:
            sink.write_record("iteration-start", iteration=1, backend="claude")
            event = {"type": "assistant", "message": {"content": [{"type": "text",
                     "text": "Hello from the agent."}]}}  # fmt: skip
            sink(OutputEvent("stdout", json.dumps(event) + "\n", 0.5))
            sink.write_record("iteration-end", iteration=1, exitCode=0)
    return folder


def test_the_lines_of_a_run_found_by_latest_or_a_prefix(tmp_path: Path) -> None:
    _run(tmp_path / ".jlgcli" / "runs")
    lines = list(api.transcript_lines("latest", cwd=tmp_path))
    assert lines == ["── iteration 1 · claude ────────────────", "Hello from the agent.",
                     "· exit 0"]  # fmt: skip
    assert list(api.transcript_lines("20261128", cwd=str(tmp_path), iteration=1)) == lines


def test_another_runs_folder(tmp_path: Path) -> None:
    _run(tmp_path / "elsewhere")
    assert "Hello from the agent." in api.transcript_lines(RUN, cwd=tmp_path, runs_dir="elsewhere")


def test_errors_are_raised_at_the_call(tmp_path: Path) -> None:
    root = tmp_path / ".jlgcli" / "runs"
    with pytest.raises(JlgError) as caught:
        api.transcript_lines("latest", cwd=tmp_path)
    assert caught.value.code == ExitCode.USAGE and "no runs recorded" in caught.value.message
    _run(root, transcript=False)
    with pytest.raises(JlgError) as caught:
        api.transcript_lines(RUN, cwd=tmp_path)
    assert "kept no transcript" in caught.value.message and "--no-transcript" in str(
        caught.value.hint
    )
    (root / RUN / "transcript.ndjson").write_text("", encoding="utf-8")
    with pytest.raises(JlgError) as caught:
        api.transcript_lines(RUN, cwd=tmp_path, iteration=3)
    assert "has 1 iteration(s), not 3" in caught.value.message


def test_the_command_prints_lines_or_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from jlgcli import cli

    _run(tmp_path / ".jlgcli" / "runs")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["runs", "log", "latest"]) == 0
    assert "Hello from the agent." in capsys.readouterr().out.splitlines()
    assert cli.main(["runs", "log", "latest", "--json", "--follow"]) == 0  # ended: no wait
    entries = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {"iteration": 1, "text": "Hello from the agent."} in entries


def test_ctrl_c_while_following_says_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from jlgcli import cli
    from jlgcli.runner import run_log

    def interrupted(*_args: object, **_kwargs: object) -> object:
        yield (1, "a line")
        raise KeyboardInterrupt

    monkeypatch.setattr(run_log, "transcript_entries", interrupted)
    assert cli.main(["runs", "log", "latest", "--follow"]) == 130
    captured = capsys.readouterr()
    assert captured.out == "a line\n"
    assert "stopped following run latest: the run goes on" in captured.err
