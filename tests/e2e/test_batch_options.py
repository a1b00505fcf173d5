"""Every guarantee of a single loop holds in a batch and after a resume (issue 44).

Through the installed ``jlgcli``, with the fake claude (tests/fakes/claude.py, whose
calls cost $0.0123 each, as the real CLI's ``total_cost_usd``: research/backends.md)
following each task's own script (``fake-script:`` in the task). A custom backend
``worker`` is the same fake run as a command backend from the user's config.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.batch import git, make_repo, make_tasks
from support.cli import Runner

CALL_USD = 0.0123
pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX signals and process groups")


def _user_config(data: dict[str, object]) -> None:
    config = Path(os.environ["JLGCLI_CONFIG_DIR"]) / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps(data), encoding="utf-8")


def _calls(scripts: Path) -> int:
    """How many agent calls the fakes took (each records its prompt)."""
    return len(list(scripts.glob("*.prompts/*.argv.json")))


def _gate(tmp_path: Path, *, hold_in_merge: bool = False) -> str:
    """A gate that logs where it ran (``loop``: on the task's start commit; ``merge``: on its
    commit), and with ``hold_in_merge`` waits in a merge while ``hold`` exists."""
    script = tmp_path / "gate.py"
    script.write_text(
        "import os, pathlib, subprocess, sys, time\n"
        "message = subprocess.run(['git', 'log', '-1', '--format=%B'], capture_output=True,"
        " text=True).stdout\n"
        "where = 'merge' if 'Jlgcli-Batch: ' in message else 'loop'\n"  # a task's commit
        f"log = pathlib.Path({str(tmp_path / 'gates.log')!r})\n"
        "with log.open('a') as out:\n"
        "    out.write(f'{where} {pathlib.Path.cwd().name}\\n')\n"
        f"hold = pathlib.Path({str(tmp_path / 'hold')!r})\n"
        f"if where == 'merge' and {hold_in_merge!r}:\n"
        f"    pathlib.Path({str(tmp_path / 'in-merge')!r}).touch()\n"
        "    deadline = time.monotonic() + 60\n"
        "    while hold.exists() and time.monotonic() < deadline:\n"
        "        time.sleep(0.05)\n",
        encoding="utf-8",
    )
    return f"{sys.executable} {script}"


def _gate_runs(tmp_path: Path) -> list[str]:
    log = tmp_path / "gates.log"
    return log.read_text("utf-8").splitlines() if log.exists() else []


@pytest.mark.parametrize("source", ["env", "config"])
def test_a_budget_from_the_environment_or_config_is_one_budget_for_the_batch(
    jlg: Runner, tmp_path: Path, source: str
) -> None:
    """Issue 44: three tasks under JLGCLI_MAX_COST_USD=0.03 spent $0.09-0.11 in all."""
    repo = make_repo(tmp_path / "repo")
    turn = {"text": "still working", "delay_seconds": 1}
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", {n: [turn] for n in "xyz"})
    env = {"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    if source == "env":
        env["JLGCLI_MAX_COST_USD"] = "0.03"
    else:
        _user_config({"maxCostUsd": 0.03})
    result = jlg("loop", *tasks, "-j", "3", "-b", "claude", "--json", cwd=repo, env=env)
    assert result.returncode == 4, result.stderr
    data = json.loads(result.stdout)
    assert 0.03 <= data["totals"]["costUsd"] <= 0.03 + CALL_USD + 1e-9, data["totals"]


def test_every_loop_flag_reaches_the_tasks(jlg: Runner, tmp_path: Path) -> None:
    """Issue 44: --artifacts gave no task a run dir (a hand-kept list of flags was passed on)."""
    repo = make_repo(tmp_path / "repo")
    turns = {n: [{"text": f"did {n}\nDONE", "files": {f"{n}.txt": n}}] for n in ("one", "two")}
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)
    env = {"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    result = jlg("loop", *tasks, "-j", "2", "-b", "claude", "--artifacts", "--permissions",
                 "full", "-v", "--json", cwd=repo, env=env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    for task in data["tasks"]:
        run_dir = Path(task["summary"]["runDir"])
        assert (run_dir / "result.json").is_file() and run_dir.parent == repo / ".jlgcli" / "runs"
        meta = json.loads((run_dir / "meta.json").read_text("utf-8"))
        assert meta["options"]["permissions"] == "full"
        log = repo / ".jlgcli" / "runs" / ".batches" / data["batchId"] / f"{task['id']}.err.log"
        assert f"artifacts: {run_dir}" in log.read_text("utf-8")  # -v: the task's details


def _interrupted(argv: list[str], repo: Path, env: dict[str, str], prompts: list[Path]) -> str:
    """Start ``argv``, Ctrl-C it once every prompt in ``prompts`` was sent; its stderr."""
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    environ = {**os.environ, **env}
    with subprocess.Popen(argv, cwd=repo, env=environ, start_new_session=True, **pipes) as started:
        deadline = time.monotonic() + 60
        while not all(path.exists() for path in prompts) and time.monotonic() < deadline:
            time.sleep(0.05)
        started.send_signal(signal.SIGINT)
        _, err = started.communicate(timeout=60)
    assert started.returncode == 130, err
    return err


def _hint(err: str, jlgcli_exe: str) -> list[str]:
    (line,) = [line for line in err.splitlines() if "jlgcli loop --resume" in line]
    words = shlex.split(line.partition(": ")[2])
    assert words[0] == "jlgcli"
    return [jlgcli_exe, *words[1:]]


# the fake claude as a command backend; headless -p edits only with acceptEdits (backends.md §9)
WORKER = {"argv": ["claude", "-p", "--permission-mode", "acceptEdits"], "prompt": "stdin"}


def test_ctrl_c_then_the_printed_hint_goes_on_with_the_same_gate_and_custom_backend(
    jlgcli_exe: str, tmp_path: Path
) -> None:
    """Issue 44: the hint left out --gate, and a custom backend came back as claude."""
    repo = make_repo(tmp_path / "repo")
    _user_config({"backends": {"worker": WORKER}})
    turns = {"solo": [{"text": "working", "delay_seconds": 60},
                      {"text": "did it\nDONE", "files": {"solo.txt": "s"}}]}  # fmt: skip
    (task,) = make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)
    env = {"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    gate = _gate(tmp_path)
    argv = [jlgcli_exe, "loop", task, "-b", "worker", "--gate", gate]
    err = _interrupted(argv, repo, env, [tmp_path / "scripts" / "solo.json.prompts" / "000.txt"])
    hint = _hint(err, jlgcli_exe)
    assert "--gate" not in hint and "worker" not in hint  # the user's record says them
    resumed = subprocess.run([*hint, "--json"], cwd=repo, env={**os.environ, **env},
                             capture_output=True, text=True, timeout=120)  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    data = json.loads(resumed.stdout)
    assert data["backend"] == "worker" and data["iterations"] == 2
    assert (repo / "solo.txt").read_text("utf-8") == "s"
    assert _gate_runs(tmp_path) == [f"loop {repo.name}"]  # the gate ran on the resumed done
    assert "as you started it: backend worker" in resumed.stderr and gate in resumed.stderr


def test_ctrl_c_then_the_printed_hint_resumes_the_batch_with_its_gate_and_backend(
    jlgcli_exe: str, tmp_path: Path
) -> None:
    """Issue 44: following the batch's hint ran every task with no gate, on claude."""
    repo = make_repo(tmp_path / "repo")
    _user_config({"backends": {"worker": WORKER}})
    turns = {name: [{"text": "working", "delay_seconds": 60},
                    {"text": f"did {name}\nDONE", "files": {f"{name}.txt": name}}]
             for name in ("alpha", "beta")}  # fmt: skip
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)
    env = {"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    argv = [jlgcli_exe, "loop", *tasks, "-j", "2", "--merge", "-b", "worker",
            "--gate", _gate(tmp_path)]  # fmt: skip
    prompts = [tmp_path / "scripts" / f"{name}.json.prompts" / "000.txt" for name in turns]
    err = _interrupted(argv, repo, env, prompts)
    hint = _hint(err, jlgcli_exe)
    resumed = subprocess.run([*hint, "--json"], cwd=repo, env={**os.environ, **env},
                             capture_output=True, text=True, timeout=180)  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    data = json.loads(resumed.stdout)
    assert all(task["merged"] for task in data["tasks"]), data
    assert {task["summary"]["backend"] for task in data["tasks"]} == {"worker"}
    assert sorted(_gate_runs(tmp_path)) == ["loop alpha", "loop beta", "merge alpha",
                                            "merge beta"]  # fmt: skip
    assert "as you started it: backend worker" in resumed.stderr


def test_resume_latest_after_kill_9_during_the_merge_gates_again_without_an_agent_call(
    jlgcli_exe: str, jlg: Runner, tmp_path: Path
) -> None:
    """Issue 44: the resumed merge fast-forwarded both tasks with no gate run at all."""
    repo = make_repo(tmp_path / "repo")
    turns = {name: [{"text": f"did {name}\nDONE", "files": {f"{name}.txt": name}}]
             for name in ("alpha", "beta")}  # fmt: skip
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)
    env = {"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    (tmp_path / "hold").touch()
    argv = [jlgcli_exe, "loop", *tasks, "-j", "2", "--merge", "-b", "claude",
            "--gate", _gate(tmp_path, hold_in_merge=True)]  # fmt: skip
    with subprocess.Popen(argv, cwd=repo, env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, start_new_session=True) as batch:  # fmt: skip
        deadline = time.monotonic() + 60
        while not (tmp_path / "in-merge").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (tmp_path / "in-merge").exists()
        os.killpg(batch.pid, signal.SIGKILL)
        batch.wait(timeout=30)
    (tmp_path / "hold").unlink()  # a gate left behind ends
    calls = _calls(tmp_path / "scripts")
    assert calls == 2 and git(repo, "log", "--format=%s").splitlines() == ["init"]
    resumed = jlg("loop", "--resume", "latest", "--merge", "--json", cwd=repo, env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert all(task["merged"] for task in json.loads(resumed.stdout)["tasks"])
    assert _calls(tmp_path / "scripts") == calls  # no new agent call
    merges = [run for run in _gate_runs(tmp_path) if run.startswith("merge")]
    assert merges[0] == "merge alpha" and sorted(merges[1:]) == ["merge alpha", "merge beta"]
    assert (repo / "alpha.txt").exists() and (repo / "beta.txt").exists()
    assert git(repo, "status", "--porcelain") == ""


def test_the_same_gate_failing_with_no_change_stops_with_5_naming_it(
    jlg: Runner, tmp_path: Path
) -> None:
    """Issue 44: 18 identical 'done' replies, the same failing gate: 20/20 iterations, exit 4."""
    repo = make_repo(tmp_path / "repo")
    (task,) = make_tasks(tmp_path / "tasks", tmp_path / "scripts", {"t": [{"text": "DONE"}]})
    gate = f'{sys.executable} -c "import sys; sys.exit(3)"'
    result = jlg("loop", task, "-b", "claude", "--gate", gate, "-n", "20",
                 "--no-progress-limit", "3", "--json", cwd=repo,
                 env={"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")})  # fmt: skip
    assert result.returncode == 5, result.stderr
    data = json.loads(result.stdout)
    assert (data["stopCause"], data["iterations"]) == ("no-progress", 3)
    said = json.dumps(data["error"] or data["diagnosis"])
    assert "failed 3 times in a row with no file changed" in result.stderr + said
    assert "sys.exit(3)" in result.stderr + said, result.stderr  # the gate, named


def test_several_tasks_in_a_repository_without_a_commit_are_64_commit_first(
    jlg: Runner, tmp_path: Path
) -> None:
    repo = tmp_path / "fresh"
    repo.mkdir()
    git(repo, "init", "-q")
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", {"a": [], "b": []})
    result = jlg("loop", *tasks, "-b", "claude", cwd=repo)
    assert result.returncode == 64, result.stderr
    assert "no commit yet" in result.stderr and "commit first" in result.stderr
    assert not (repo / ".jlgcli" / "worktrees").exists()
