"""Many tasks at once through the installed ``jlgcli`` (issue 37).

Each task's fake claude follows its own script (``fake-script:`` in the task,
``JLGCLI_FAKE_SCRIPT`` a folder: tests/fakes/_fake_engine.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.batch import git, make_repo, make_tasks
from support.cli import Runner

GATE = (f"{sys.executable} -c \"import pathlib,sys; "
        "sys.exit(1 if 'BROKEN' in pathlib.Path('shared.txt').read_text() else 0)\"")  # fmt: skip

FOUR = {
    "alpha": [{"text": "did alpha\nDONE", "files": {"shared.txt": "alpha\n", "a.txt": "a\n"}}],
    "beta": [{"text": "did beta\nDONE", "files": {"b.txt": "b\n"}}],
    "gamma": [{"text": "did gamma\nDONE", "files": {"shared.txt": "gamma\n"}}],
    "delta": [{"text": "still working"}],
}


def test_four_tasks_two_merged_one_conflicting_one_out_of_iterations(
    jlg: Runner, tmp_path: Path
) -> None:
    """Issue 37 done-when: -j 2, two merged, one conflict left on its branch, one exit 4."""
    repo = make_repo(tmp_path / "repo")
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", FOUR)
    env = {"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    result = jlg("loop", *tasks, "-j", "2", "--merge", "-b", "claude", "--gate", GATE,
                 "--max-iterations", "2", "--json", "--events", str(tmp_path / "ev.jsonl"),
                 cwd=repo, env=env)  # fmt: skip
    # gamma done but not merged counts 1, more serious than delta's 4 (docs/loop.md)
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    by_id = {task["id"]: task for task in data["tasks"]}
    assert by_id["alpha"]["merged"] and by_id["beta"]["merged"]
    assert (by_id["alpha"]["exitCode"], by_id["beta"]["exitCode"]) == (0, 0)
    assert not by_id["gamma"]["merged"] and "conflicts" in by_id["gamma"]["mergeNote"]
    assert by_id["gamma"]["branch"] == "jlgcli/gamma"
    assert by_id["delta"]["exitCode"] == 4 and by_id["delta"]["summary"]["stopCause"] in (
        "max-iterations",
    )
    assert data["totals"]["merged"] == 2
    # The user's branch got alpha's and beta's work, not gamma's; gamma's branch is kept.
    assert (repo / "shared.txt").read_text("utf-8") == "alpha\n"
    assert (repo / "a.txt").exists() and (repo / "b.txt").exists()
    assert "jlgcli/gamma" in git(repo, "branch", "--list", "jlgcli/*")
    assert (repo / ".jlgcli" / "worktrees" / "gamma").is_dir()
    assert not (repo / ".jlgcli" / "worktrees" / "alpha").exists()
    assert git(repo, "status", "--porcelain") == ""
    events = [json.loads(line) for line in (tmp_path / "ev.jsonl").read_text("utf-8").splitlines()]
    assert events and all(event["task"] in FOUR for event in events)
    # each task's summary is a RunSummary, checked against its published schema
    import jsonschema

    schemas = Path(__file__).parents[2] / "docs" / "schemas"
    summary_schema = json.loads((schemas / "run-summary.schema.json").read_text("utf-8"))
    for task in data["tasks"]:
        jsonschema.validate(task["summary"], summary_schema)
    events_schema = json.loads((schemas / "events.schema.json").read_text("utf-8"))
    for event in events:  # the batch adds "task"; the rest is each loop's own event
        jsonschema.validate({k: v for k, v in event.items() if k != "task"}, events_schema)


def test_ctrl_c_stops_every_task_and_resume_latest_finishes_the_rest(
    jlgcli_exe: str, jlg: Runner, tmp_path: Path
) -> None:
    """Issue 37: Ctrl-C writes every task's state (exit 130); --resume latest goes on."""
    repo = make_repo(tmp_path / "repo")
    slow = {"text": "working", "delay_seconds": 60}
    turns = {name: [{"text": f"did {name}\nDONE", "files": {f"{name}.txt": name}}]
             for name in ("alpha", "beta", "gamma", "delta")}  # fmt: skip
    for name in ("alpha", "beta"):  # the tasks started first (in the order given) hang
        turns[name].insert(0, slow)
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)
    env = {**os.environ, "JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    argv = [jlgcli_exe, "loop", *tasks, "-j", "2", "--merge", "-b", "claude", "--gate", GATE]
    with subprocess.Popen(
        [*argv, "--json"],
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as parent:
        prompts = [tmp_path / "scripts" / f"{name}.json.prompts" / "000.txt" for name in turns]
        deadline = time.monotonic() + 60
        while sum(path.exists() for path in prompts) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        parent.send_signal(signal.SIGINT)
        out, err = parent.communicate(timeout=60)
    assert parent.returncode == 130, err
    first = {task["id"]: task for task in json.loads(out)["tasks"]}
    codes = [task["exitCode"] for task in first.values()]
    assert codes == [130, 130, None, None], first
    stopped = ["alpha", "beta"]
    assert all(first[name]["summary"]["stopCause"] == "interrupted" for name in stopped)
    second = jlg("loop", "--resume", "latest", "-b", "claude", "--gate", GATE, "--json",
                 cwd=repo, env={"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")})  # fmt: skip
    assert second.returncode == 0, second.stderr
    data = json.loads(second.stdout)
    assert all(task["merged"] for task in data["tasks"]), data
    for name in turns:
        assert (repo / f"{name}.txt").read_text("utf-8") == name
    # The interrupted ones were resumed (their run counts on), not started again.
    resumed = {task["id"]: task for task in data["tasks"]}
    for name in stopped:
        assert resumed[name]["summary"]["resumedFrom"] == first[name]["runId"]
        assert resumed[name]["iterations"] == 2


def test_several_tasks_outside_git_are_refused_with_64(jlg: Runner, tmp_path: Path) -> None:
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", {"one": [], "two": []})
    result = jlg("loop", *tasks, "-b", "claude", cwd=tmp_path / "tasks")
    assert result.returncode == 64, result.stderr
    assert "need a git repository" in result.stderr and "-j 1" in result.stderr


def test_j1_outside_git_runs_the_tasks_one_after_another_in_place(
    jlg: Runner, tmp_path: Path
) -> None:
    turns = {
        name: [{"text": "ok\nDONE", "files": {f"{name}.txt": name}}] for name in ("one", "two")
    }
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)
    env = {"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    result = jlg("loop", *tasks, "-j", "1", "-b", "claude", cwd=tmp_path / "tasks", env=env)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "tasks" / "one.txt").exists() and (tmp_path / "tasks" / "two.txt").exists()
    assert not (tmp_path / "tasks" / ".jlgcli" / "worktrees").exists()
    assert "(in place)" in result.stderr and "2 done" in result.stderr


def test_max_cost_is_one_budget_shared_by_every_task(jlg: Runner, tmp_path: Path) -> None:
    """Three tasks at $0.0123 a call under --max-cost 0.03: alone each would spend 0.0369."""
    repo = make_repo(tmp_path / "repo")
    turn = {"text": "still working", "delay_seconds": 1}
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", {n: [turn] for n in "xyz"})
    env = {"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    result = jlg("loop", *tasks, "-j", "3", "-b", "claude", "--max-cost", "0.03", "--json",
                 cwd=repo, env=env)  # fmt: skip
    assert result.returncode == 4, result.stderr
    data = json.loads(result.stdout)
    assert [task["exitCode"] for task in data["tasks"]] == [4, 4, 4]
    assert 0.03 <= data["totals"]["costUsd"] < 2 * 0.0369  # stopped within the second round
    # Every stopped task wrote its state: each can be resumed later with more budget.
    assert all(task["runId"] for task in data["tasks"])


def test_runs_lists_the_batch_and_its_tasks(jlg: Runner, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    turns = {"one": [{"text": "ok\nDONE", "files": {"one.txt": "1"}}], "two": [{"text": "no"}]}
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)
    env = {"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    first = jlg("loop", *tasks, "-b", "claude", "-n", "1", cwd=repo, env=env)
    assert first.returncode == 4, first.stderr
    assert "jlgcli/one" in first.stderr and "1 file changed" in first.stderr
    listed = jlg("runs", "--json", cwd=repo)
    assert listed.returncode == 0, listed.stderr
    (batch,) = json.loads(listed.stdout)["batches"]
    assert [(t["id"], t["status"]) for t in batch["tasks"]] == [
        ("one", "done"),
        ("two", "max-iterations"),
    ]
    assert all(t["runId"] for t in batch["tasks"]) and batch["exitCode"] == 4
    text = jlg("runs", cwd=repo)
    assert batch["batchId"] in text.stdout and "jlgcli/one" in text.stdout  # issue 44
    (done_run,) = [line for line in text.stdout.splitlines() if line.startswith(
        batch["tasks"][0]["runId"])]  # fmt: skip
    assert done_run.split()[3] == "one"  # the TASK column (after ID and DATE's two words)
    quiet = jlg("runs", "-q", cwd=repo)
    assert quiet.stdout.splitlines()[0] == batch["batchId"]  # newest first: the batch
    assert set(quiet.stdout.split()) == {batch["batchId"], *(t["runId"] for t in batch["tasks"])}
    shown = jlg("runs", "show", batch["batchId"], cwd=repo)
    assert shown.returncode == 0, shown.stderr
    assert "max-iterations" in shown.stdout and "jlgcli/one" in shown.stdout
    assert f"jlgcli loop --resume {batch['batchId']}" not in shown.stdout  # nothing unfinished
    as_json = json.loads(jlg("runs", "show", batch["batchId"], "--json", cwd=repo).stdout)
    assert [t["status"] for t in as_json["tasks"]] == ["done", "max-iterations"]


def test_a_rate_limit_met_by_one_task_makes_the_others_on_that_backend_wait(
    jlg: Runner, tmp_path: Path
) -> None:
    """Issue 37: the other task waits for the same reset instead of hammering the backend."""
    repo = make_repo(tmp_path / "repo")
    turns = {
        "limited": [{"error": "rate-limit", "reset_in_seconds": 4}, {"text": "ok\nDONE"}],
        # still in its first call when "limited" meets the limit; its next call must wait
        "other": [{"text": "working", "delay_seconds": 2}, {"text": "ok\nDONE"}],
    }
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)
    env = {"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    events = tmp_path / "ev.jsonl"
    result = jlg("loop", *tasks, "-j", "2", "-b", "claude", "--json", "--events", str(events),
                 cwd=repo, env=env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    waits = [json.loads(line) for line in events.read_text("utf-8").splitlines()]
    waits = [(e["task"], e["reason"]) for e in waits if e["type"] == "limit-wait"]
    assert ("other", "another task met claude's rate limit") in waits, waits
    assert any(task == "limited" for task, _ in waits)


WAITING_GIT = """#!{python}
import os, pathlib, sys, time
# issue 37: `git worktree add` of the task "second" waits until the first task's agent was
# called; a batch that made every worktree before starting any task never gets there
if sys.argv[1:3] == ["worktree", "add"] and sys.argv[-2].endswith("second"):
    deadline = time.monotonic() + 20
    while not pathlib.Path({asked!r}).exists():
        if time.monotonic() > deadline:
            pathlib.Path({late!r}).touch()
            break
        time.sleep(0.05)
os.execv({git!r}, [{git!r}, *sys.argv[1:]])
"""


@pytest.mark.skipif(sys.platform == "win32", reason="the git stand-in is a POSIX script")
def test_the_first_task_starts_before_the_other_worktrees_are_made_and_events_flow(
    jlgcli_exe: str, tmp_path: Path
) -> None:
    """Issue 37 (speed): no serial set-up of every worktree before the first task starts,
    and a task's events reach the batch's --events file while the task still runs."""
    import shutil

    repo = make_repo(tmp_path / "repo")
    turns = {
        "first": [{"text": "did first\nDONE", "files": {"1.txt": "1"}, "delay_seconds": 2}],
        "second": [{"text": "did second\nDONE", "files": {"2.txt": "2"}}],
    }
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)
    asked = tmp_path / "scripts" / "first.json.prompts" / "000.txt"
    late = tmp_path / "second-worktree-waited-in-vain"
    stand_in = tmp_path / "bin" / "git"
    stand_in.parent.mkdir()
    script = WAITING_GIT.format(python=sys.executable, asked=str(asked), late=str(late),
                                git=shutil.which("git"))  # fmt: skip
    stand_in.write_text(script, "utf-8")
    stand_in.chmod(0o755)
    env = {**os.environ, "JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts"),
           "PATH": f"{stand_in.parent}{os.pathsep}{os.environ['PATH']}"}  # fmt: skip
    events = tmp_path / "ev.jsonl"
    argv = [jlgcli_exe, "loop", *tasks, "-j", "1", "-b", "claude", "--json", "--events",
            str(events)]  # fmt: skip
    with subprocess.Popen(argv, cwd=repo, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as batch:  # fmt: skip
        deadline = time.monotonic() + 60
        while not asked.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert asked.exists()  # the first task's agent is in its (2 s) call now
        seen = [json.loads(line) for line in events.read_text("utf-8").splitlines()]
        assert ("first", "iteration-started") in [(e["task"], e["type"]) for e in seen]
        out, err = batch.communicate(timeout=60)
    assert batch.returncode == 0, err
    assert not late.exists()  # the first task did not wait for the second's worktree
    assert [task["status"] for task in json.loads(out)["tasks"]] == ["done", "done"]
    assert (repo / ".jlgcli" / "worktrees" / "second" / "2.txt").exists()


@pytest.mark.skipif(sys.platform != "linux", reason="Linux: parent-death signals, subreaper")
def test_kill_9_of_the_batch_leaves_no_process_of_any_task_within_5s(
    jlgcli_exe: str, tmp_path: Path
) -> None:
    """Issues 33 and 37: nothing outlives a SIGKILL of jlgcli, a batch's tasks included."""
    import psutil

    repo = make_repo(tmp_path / "repo")
    turns = {name: [{"text": "working", "delay_seconds": 120}] for name in ("alpha", "beta")}
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)
    env = {**os.environ, "JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    env.pop("COVERAGE_PROCESS_START", None)  # killed: not measured (support/environ.py)
    env.pop("COVERAGE_PROCESS_CONFIG", None)
    with subprocess.Popen(
        [jlgcli_exe, "loop", *tasks, "-j", "2", "-b", "claude"], cwd=repo, env=env,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    ) as parent:  # fmt: skip
        tree: list[psutil.Process] = []
        try:
            prompts = [tmp_path / "scripts" / f"{name}.json.prompts" / "000.txt" for name in turns]
            deadline = time.monotonic() + 60
            while not all(path.exists() for path in prompts):  # both agents are in their call
                assert parent.poll() is None, "the batch ended before its agents were called"
                assert time.monotonic() < deadline, "the agents were never called"
                time.sleep(0.05)
            tree = psutil.Process(parent.pid).children(recursive=True)
            agents = [p for p in tree if any("claude" in part for part in p.cmdline())]
            assert len(agents) >= 2, [p.cmdline() for p in tree]
            parent.kill()
            parent.wait(60)
            deadline = time.monotonic() + 5
            while alive := [p.pid for p in tree if _running(p)]:
                assert time.monotonic() < deadline, f"alive 5 s after SIGKILL: {alive}"
                time.sleep(0.05)
        finally:
            for process in tree:
                with contextlib.suppress(psutil.Error):
                    process.kill()


def _running(process: Any) -> bool:
    import psutil

    try:
        return bool(process.is_running() and process.status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False


def test_a_missing_backend_stops_the_batch_once_before_any_worktree(
    jlg: Runner, tmp_path: Path, fake_bin: Path, system_bin: Path
) -> None:
    """Issue 37: the batch probes its tasks' backend once (exit 2 and the hint, as a loop
    says it), rather than making every worktree and failing every task the same way."""
    repo = make_repo(tmp_path / "repo")
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", {"a": [], "b": []})
    no_claude = tmp_path / "bin"
    no_claude.mkdir()
    for launcher in fake_bin.iterdir():
        if launcher.name.split(".")[0] != "claude":
            (no_claude / launcher.name).symlink_to(launcher)
    path = os.pathsep.join([str(no_claude), str(system_bin)])
    result = jlg("loop", *tasks, "-j", "2", "-b", "claude", cwd=repo, env={"PATH": path})
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("backend claude is not installed") == 1
    assert not (repo / ".jlgcli" / "worktrees").exists()
