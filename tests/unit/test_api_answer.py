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
