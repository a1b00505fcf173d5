"""What the trail reports is true (issue 31): the summary after a failover, and `jlgcli runs`.

Driven with the scripted fakes (tests/fakes): claude out of credit, codex finishes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.cli import Runner, fake_script

script = fake_script
FAKES = Path(__file__).parents[1] / "fakes"


def fake_version(name: str) -> str:
    """The version a fake's ``--version`` reports (its ``VERSION``, from backends.md)."""
    text = (FAKES / f"{name}.py").read_text(encoding="utf-8")
    match = re.search(r'^VERSION = "([^"]+)"', text, re.MULTILINE)
    assert match is not None
    return match.group(1)


CLAUDE_VERSION, CODEX_VERSION = fake_version("claude"), fake_version("codex")


@pytest.fixture
def task(tmp_path: Path) -> Path:
    path = tmp_path / "task.md"
    path.write_text("Finish the task.\n", encoding="utf-8")
    return path


def test_after_a_failover_the_summary_names_each_backend_with_its_own_version(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    # issue 31: the summary said "backend codex <claude's version>", --json "backend": "claude"
    turns = ({"error": "quota"}, {"text": "Finished on codex.\nDONE"})
    env = script(tmp_path, *turns, repeat_last=False)
    result = jlg("loop", str(task), "-b", "claude", "--fallback", "codex", "--json", env=env)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [m["backend"] for m in data["iterationMetrics"]] == ["codex"]
    assert (data["backend"], data["backendVersion"]) == ("codex", CODEX_VERSION)
    assert data["backends"] == [
        {"id": "claude", "version": CLAUDE_VERSION},
        {"id": "codex", "version": CODEX_VERSION},
    ]
    again = tmp_path / "again"
    again.mkdir()
    env = script(again, *turns, repeat_last=False)
    human = jlg("loop", str(task), "-b", "claude", "--fallback", "codex", env=env)
    assert human.returncode == 0, human.stderr
    line = f"backend     claude {CLAUDE_VERSION} → codex {CODEX_VERSION}"
    assert line in human.stderr


# --- jlgcli runs reads every loop's state (issue 31) --------------------------------------


def test_runs_shows_the_real_status_backend_and_cost_of_loops_without_artifacts(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    # issue 31: every loop without --artifacts (and every --resume) was "incomplete", backend -
    env = script(tmp_path, {"text": "part one"}, {"text": "ok\nDONE"})
    first = jlg("loop", str(task), "-b", "claude", "-n", "1", "--json", env=env)
    assert first.returncode == 4, first.stderr
    second = jlg("loop", "--resume", "latest", "-n", "2", "--json", env=env)
    assert second.returncode == 0, second.stderr
    first_id, second_id = json.loads(first.stdout)["runId"], json.loads(second.stdout)["runId"]
    table = jlg("runs")
    assert table.returncode == 0, table.stderr
    rows = {line.split()[0]: line.split() for line in table.stdout.splitlines()[1:]}
    assert rows[first_id][3:6] == ["claude", "max-iterations", "1"]
    assert rows[second_id][3:6] == ["claude", "done", "2"]
    assert rows[second_id][-1] == "$0.0246"  # two calls at the fake's 0.0123
    listed = json.loads(jlg("runs", "--json").stdout)["runs"]
    by_id = {run["runId"]: run for run in listed}
    assert (by_id[second_id]["status"], by_id[second_id]["exitCode"]) == ("done", 0)
    assert by_id[first_id]["stopCause"] == "max-iterations"


def test_runs_show_is_a_short_human_view_and_json_the_full_record(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    # issue 31: `runs show` dumped ~150 lines of raw meta/result JSON
    env = script(tmp_path, {"text": "still going"})
    result = jlg("loop", str(task), "-b", "claude", "-n", "2", "--artifacts", "--json", env=env)
    run_id = json.loads(result.stdout)["runId"]
    shown = jlg("runs", "show", "latest")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert len(lines) <= 20 and "{" not in shown.stdout
    assert f"run         {run_id}" in lines
    assert "status      max-iterations (exit 4)" in lines
    assert "backend     claude" in lines and "cost        $0.0246" in lines
    assert f"resume      jlgcli loop --resume {run_id}" in lines
    assert any(line.startswith("hint ") and "--max-iterations 4" in line for line in lines)
    full = json.loads(jlg("runs", "show", "latest", "--json").stdout)
    assert full["result"]["runId"] == run_id and full["state"]["run_id"] == run_id
    assert full["meta"]["runId"] == run_id


def test_runs_never_print_terminal_controls_from_a_record(jlg: Runner, tmp_path: Path) -> None:
    # a record is input (DESIGN "state is input"): shown, never able to drive the terminal
    run = tmp_path / ".jlgcli" / "runs" / "20260101T000000Z-aaaaaa"
    run.mkdir(parents=True)
    evil = "\x1b]0;owned\x07\x1b[2J"
    (run / "result.json").write_text(json.dumps({"status": f"done{evil}", "backend": evil,
                                                 "error": {"message": evil}}), "utf-8")  # fmt: skip
    for args in (("runs",), ("runs", "show", "latest")):
        result = jlg(*args)
        assert result.returncode == 0, result.stderr
        assert "\x1b" not in result.stdout and "\x07" not in result.stdout
