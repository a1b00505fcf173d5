"""``jlgcli.api``: the one typed entry every door calls (issue 13 done-when)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jlgcli import api
from jlgcli.errors import JlgError
from jlgcli.runner.summary import RunSummary


@pytest.fixture
def task(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "task.md"
    path.write_text("Add a slugify helper.\n", encoding="utf-8")
    return path


def test_loop_returns_the_summary_of_a_task_the_fake_finishes(task: Path) -> None:
    summary = api.loop("task.md", backend="claude", verbosity=0)
    assert isinstance(summary, RunSummary)
    assert (summary.exitCode, summary.stopCause, summary.backend) == (0, "done", "claude")
    assert summary.costUsd is not None  # the fake claude reports total_cost_usd


def test_run_and_agent_call(task: Path, tmp_path: Path) -> None:
    assert api.run(task, backend="claude", verbosity=0).exitCode == 0
    summary = api.agent_call("Do it.", cwd=tmp_path, backend="claude", verbosity=0,
                             artifacts=True)  # fmt: skip
    assert summary.exitCode == 0 and summary.runDir is not None
    result = json.loads((Path(summary.runDir) / "result.json").read_text(encoding="utf-8"))
    assert result["runId"] == summary.runId


def test_options_beat_the_config_files(task: Path, tmp_path: Path) -> None:
    (tmp_path / ".jlgcli.json").write_text('{"backend": "codex", "maxIterations": 7}', "utf-8")
    summary = api.loop(task, backend="claude", verbosity=0)
    assert summary.backend == "claude" and summary.maxIterations == 7


def test_usage_problems_raise_jlgerror(task: Path) -> None:
    with pytest.raises(JlgError) as caught:
        api.loop(task, no_such_option=1)
    assert caught.value.code == 64 and "max_iterations" in (caught.value.hint or "")
    with pytest.raises(JlgError) as caught:
        api.loop("missing.md", backend="claude")
    assert caught.value.code == 66
