"""``jlgcli.api.answer`` (issue 51): what the dashboard calls to answer a parked run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jlgcli import api
from jlgcli.errors import JlgError


@pytest.fixture
def asking(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A task whose fake claude asks a question, then finishes once answered."""
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "script.json"
    turns = [{"text": "Read it.\nQUESTION: Which format?"}, {"text": "wrote it\nDONE"}]
    script.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    monkeypatch.setenv("JLGCLI_FAKE_SCRIPT", str(script))
    (tmp_path / "task.md").write_text("Write the export.\n", encoding="utf-8")
    return tmp_path


def test_answer_resumes_a_parked_run_to_done_with_the_answer(asking: Path) -> None:
    parked = api.loop("task.md", backend="claude", verbosity=0)
    assert (parked.exitCode, parked.status, parked.question) == (7, "parked", "Which format?")
    done = api.answer(parked.runId, "CSV, comma separated", cwd=asking, verbosity=0)
    assert (done.stopCause, done.resumedFrom, done.iterations) == ("done", parked.runId, 2)
    prompt = (asking / "script.json.prompts" / "001.txt").read_text("utf-8")
    assert "CSV, comma separated" in prompt and "Which format?" in prompt
    with pytest.raises(JlgError, match="is not parked on a question: it ended done") as caught:
        api.answer(done.runId, "again", cwd=asking, verbosity=0)
    assert caught.value.code == 64


def test_answer_refuses_an_empty_answer_and_an_unknown_run(asking: Path) -> None:
    with pytest.raises(JlgError, match="the answer is empty") as empty:
        api.answer("latest", " \n", cwd=asking)
    assert empty.value.code == 64
    with pytest.raises(JlgError, match="cannot be resumed") as unknown:
        api.answer("20261128T230000Z-cccccc", "yes", cwd=asking)
    assert unknown.value.code == 64


def _answered_while_logged_out(asking: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Park, then answer while the backend is logged out: the answering run stops (6)
    before any call carried the answer; its state keeps the answer and the question."""
    parked = api.loop("task.md", backend="claude", verbosity=0)
    assert parked.exitCode == 7
    with monkeypatch.context() as logged_out:
        logged_out.setenv("JLGCLI_FAKE_LOGGED_OUT", "1")
        failed = api.answer(parked.runId, "CSV, comma separated", cwd=asking, verbosity=0)
    assert (failed.exitCode, failed.iterations) == (6, 1)
    state = json.loads((asking / ".jlgcli" / "runs" / failed.runId / "state.json").read_text())
    assert (state["answer"], state["question"]) == ("CSV, comma separated", "Which format?")
    return failed.runId


def test_an_answer_no_call_carried_goes_in_the_prompt_of_the_resume(
    asking: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Following the hint the stopped run prints (``loop --resume``) does not lose the answer."""
    stopped = _answered_while_logged_out(asking, monkeypatch)
    done = api.loop("task.md", resume=stopped, verbosity=0)
    assert (done.stopCause, done.resumedFrom) == ("done", stopped)
    assert "your answer to its question has not reached the agent yet" in capsys.readouterr().err
    prompt = (asking / "script.json.prompts" / "001.txt").read_text("utf-8")
    assert "CSV, comma separated" in prompt and "Which format?" in prompt
    state = json.loads((asking / ".jlgcli" / "runs" / done.runId / "state.json").read_text())
    assert state["answer"] is None  # carried now


def test_an_answer_no_call_carried_can_be_given_again(
    asking: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stopped = _answered_while_logged_out(asking, monkeypatch)
    done = api.answer(stopped, "TSV, tab separated", cwd=asking, verbosity=0)
    assert (done.stopCause, done.resumedFrom) == ("done", stopped)
    prompt = (asking / "script.json.prompts" / "001.txt").read_text("utf-8")
    assert "TSV, tab separated" in prompt and "CSV" not in prompt
