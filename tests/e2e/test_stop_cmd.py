"""``jlgcli stop`` from a second terminal: a running loop and a running batch end as a
termination ends them, write their endings and can be resumed (issue 52: work left
alone stays steerable from the command line, not only from the board)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.batch import make_repo, make_tasks
from support.cli import Runner, fake_script

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM path (POSIX)")


def _wait_for(predicate, what: str, timeout: float = 120.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def _events(folder_glob: str, root: Path) -> list[dict[str, object]]:
    found = sorted(root.glob(folder_glob))
    if not found:
        return []
    return [json.loads(line) for line in found[0].read_text("utf-8").splitlines() if line]


def test_stop_ends_a_running_loop_which_then_resumes(
    jlg: Runner, jlgcli_exe: str, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "task.md").write_text("Take your time.\n", encoding="utf-8")
    env = {**os.environ, **fake_script(tmp_path, {"text": "thinking", "delay_seconds": 120})}
    runs = repo / ".jlgcli" / "runs"
    with subprocess.Popen(
        [jlgcli_exe, "loop", "task.md", "-b", "claude"], cwd=repo, env=env,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    ) as loop:  # fmt: skip
        try:
            calls = lambda: [e for e in _events("*/events.ndjson", runs)  # noqa: E731
                             if e["type"] == "iteration-started"]  # fmt: skip
            _wait_for(calls, "the first call")
            stopped = jlg("stop", "--json", cwd=repo, env=env)
            assert stopped.returncode == 0, stopped.stderr
            line = json.loads(stopped.stdout)
            assert (line["kind"], line["pid"], line["ended"]) == ("run", loop.pid, True)
            # when stop returns, the run has written its ending (a loop's: its state)
            state = json.loads((runs / line["id"] / "state.json").read_text("utf-8"))
            assert state["stop_cause"] == "interrupted"
            _, err = loop.communicate(timeout=60)
        finally:
            if loop.poll() is None:
                loop.kill()
    assert loop.returncode == 143, err
    run_id = line["id"]
    again = jlg("stop", run_id, cwd=repo, env=env)
    assert again.returncode == 64 and f"run {run_id} is not running" in again.stderr
    (tmp_path / "later").mkdir()
    done = {**os.environ, **fake_script(tmp_path / "later", {"text": "finished\nDONE"})}
    resumed = jlg("loop", "--resume", run_id, "--json", cwd=repo, env=done)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["resumedFrom"] == run_id


def test_stop_of_a_batch_stops_its_tasks_and_the_batch_resumes(
    jlg: Runner, jlgcli_exe: str, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo")
    slow = [{"text": "working on it\nDONE", "delay_seconds": 120, "files": {"x.txt": "x"}}]
    turns = {"alpha": slow, "beta": [{**slow[0], "files": {"y.txt": "y"}}]}
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)
    env = {**os.environ, "JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    batches = repo / ".jlgcli" / "runs" / ".batches"
    with subprocess.Popen(
        [jlgcli_exe, "loop", *tasks, "-j", "2", "-b", "claude", "--json"], cwd=repo, env=env,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    ) as batch:  # fmt: skip
        try:
            _wait_for(lambda: sum(e["type"] == "task-started"
                                  for e in _events("batch-*/events.ndjson", batches)) == 2,
                      "both tasks")  # fmt: skip
            batch_id = next(batches.glob("batch-*")).name
            stopped = jlg("stop", batch_id[:20], cwd=repo, env=env)
            assert stopped.returncode == 0, stopped.stderr
            assert f"batch {batch_id} stopped" in stopped.stderr
            assert f"jlgcli loop --resume {batch_id}" in stopped.stderr
            out, err = batch.communicate(timeout=60)
        finally:
            if batch.poll() is None:
                batch.kill()
    assert batch.returncode == 143, err
    summary = json.loads(out)
    assert summary["exitCode"] == 143
    assert all(task["exitCode"] != 0 for task in summary["tasks"])
    # a TERM to the batch is a TERM to its tasks, in their own records too (not SIGINT, 130)
    ended = [json.loads(line) for own in sorted(batches.glob("batch-*/*.events.jsonl"))
             for line in own.read_text("utf-8").splitlines() if '"run-ended"' in line]  # fmt: skip
    assert sorted(e["exitCode"] for e in ended) == [143, 143]
    told = [e for e in _events("batch-*/events.ndjson", batches) if e["type"] == "task-ended"]
    assert sorted(e["exitCode"] for e in told) == [143, 143]
    quick = {name: [{**turn[0], "delay_seconds": 0}] for name, turn in turns.items()}
    make_tasks(tmp_path / "tasks", tmp_path / "scripts", quick)  # the agents answer at once now
    resumed = jlg("loop", "--resume", batch_id, "--json", cwd=repo, env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert [task["exitCode"] for task in json.loads(resumed.stdout)["tasks"]] == [0, 0]
