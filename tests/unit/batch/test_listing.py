"""Batches in ``jlgcli runs`` in-process (issue 44): stdout, a TASK column, ids, ``show``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.batch import make_repo, make_tasks

from jlgcli.batch.record import list_batches
from jlgcli.cli import main


def test_runs_lists_batches_on_stdout_and_shows_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path / "repo")
    monkeypatch.chdir(repo)
    monkeypatch.setenv("JLGCLI_FAKE_SCRIPT", str(tmp_path / "scripts"))
    paths = make_tasks(tmp_path / "tasks", tmp_path / "scripts",
                       {"a": [{"text": "ok\nDONE"}], "b": [{"text": "ok\nDONE"}],
                        "c": [{"text": "ok\nDONE"}]})  # fmt: skip
    assert main(["loop", *paths, "-j", "1", "-b", "claude", "--max-cost", "0.01", "--json"]) == 4
    batch = json.loads(capsys.readouterr().out)["batchId"]
    root = repo / ".jlgcli" / "runs"
    assert list_batches(root) == [batch]
    assert main(["runs"]) == 0
    out = capsys.readouterr().out
    assert "TASK" in out.splitlines()[0] and f"{batch}  exit 4  3 tasks, 0 done" in out
    assert main(["runs", "-q", "--limit", "1"]) == 0
    assert capsys.readouterr().out.split() == [batch]
    assert main(["runs", "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert [run["task"] for run in runs] == ["a"]  # the budget was spent by a
    assert main(["runs", "show", batch]) == 0
    shown = capsys.readouterr().out
    assert "not started (budget)" in shown and "budget spent" in shown
    assert "merge       no (branches kept)" in shown
    assert f"continue the unfinished tasks with: jlgcli loop --resume {batch}" in shown
    broken = root / ".batches" / "batch-20990101T000000Z-000000"
    broken.mkdir()
    (broken / "batch.json").write_text("{", "utf-8")
    assert main(["runs"]) == 0
    assert "batch-20990101T000000Z-000000  (record unreadable)" in capsys.readouterr().out
    assert main(["runs", "show", "batch-20990101T000000Z-000000"]) == 65


def test_runs_with_only_single_loops_has_no_task_column(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.md").write_text("task", "utf-8")
    assert main(["loop", "t.md", "-b", "claude", "--json"]) == 0
    capsys.readouterr()
    assert main(["runs"]) == 0
    out = capsys.readouterr().out
    assert out.split()[:3] == ["ID", "DATE", "BACKEND"] and "batches" not in out
