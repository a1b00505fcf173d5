"""A batch's tasks forked by its warm task server (issue 37): ``jlgcli.batch.task_server``.

Through the installed ``jlgcli``: each task is a child of the batch (adopted), in a
session of its own, forked from the server (it keeps the server's command line);
the server's environment holds no secret of the user's, each task's agent gets
the whole environment and its task's name; Ctrl-C ends every process of the tree.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

if not sys.platform.startswith("linux"):  # also .ci/run's Windows proxy
    pytest.skip("the task server forks (Linux)", allow_module_level=True)

import psutil
from support.batch import make_repo, make_tasks

from jlgcli.runner.options import RunOptions
from jlgcli.runner.options_record import to_json

SECRET = "JLGCLI_TEST_SECRET"
ENTRY = "__jlgcli_task_server__"


def _agents(batch: psutil.Process) -> list[psutil.Process]:
    found = []
    for process in batch.children(recursive=True):
        try:
            if 'run_module("claude"' in " ".join(process.cmdline()):  # the fake's launcher
                found.append(process)
        except psutil.Error:
            continue
    return found


def _task_of(agent: psutil.Process, batch: int) -> psutil.Process:
    """The agent's ancestor that is the batch's child: its task."""
    process = agent.parent()
    while process is not None and process.ppid() != batch:
        process = process.parent()
    assert process is not None, agent.cmdline()
    return process


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().partition("=")[::2] for item in raw if item)


def test_each_task_is_forked_by_the_server_adopted_by_the_batch_and_ended_by_ctrl_c(
    jlgcli_exe: str, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo")
    slow = [{"text": "working", "delay_seconds": 60}]
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", {"alpha": slow, "beta": slow})
    env = {**os.environ, "JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts"), SECRET: "s3cr3t-v4lue"}
    argv = [jlgcli_exe, "loop", *tasks, "-j", "2", "-b", "claude", "--json"]
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    with subprocess.Popen(argv, cwd=repo, env=env, start_new_session=True, **pipes) as parent:
        try:
            seen = _inspect(parent.pid, repo)
        finally:
            parent.send_signal(signal.SIGINT)
            out, err = parent.communicate(timeout=60)
    assert parent.returncode == 130, err
    codes = {task["id"]: task["exitCode"] for task in json.loads(out)["tasks"]}
    assert codes == {"alpha": 130, "beta": 130}
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(p.is_running() for p in seen):
        time.sleep(0.05)
    assert not [p.pid for p in seen if p.is_running()]


def _inspect(pid: int, repo: Path) -> list[psutil.Process]:
    """Check the batch's tree once both agents run; every process of it."""
    batch = psutil.Process(pid)
    deadline = time.monotonic() + 60
    while len(agents := _agents(batch)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(agents) == 2
    seen = [batch, *batch.children(recursive=True)]
    forked = [process for process in seen[1:] if ENTRY in process.cmdline()]
    tasks_by_agent = {agent.pid: _task_of(agent, batch.pid) for agent in agents}
    task_pids = {task.pid for task in tasks_by_agent.values()}
    # the server: the batch's child that is neither a task nor a supervisor it forked for
    # one of the batch's gits (a task's own supervisors and their server are the task's)
    servers = [p for p in forked if p.ppid() == batch.pid and p.pid not in task_pids
               and not p.children()]  # fmt: skip
    assert len(task_pids) == 2 and len(servers) == 1, [p.cmdline() for p in forked]
    for agent_pid, task in tasks_by_agent.items():
        assert ENTRY in task.cmdline()  # adopted: the batch waits for it, kills its tree
        assert os.getsid(task.pid) == task.pid  # its own session: the ladder's group
        supervisor = psutil.Process(agent_pid).parent()
        assert supervisor is not None and supervisor.ppid() == task.pid  # adopted by the task
        assert ENTRY in supervisor.cmdline()  # forked by the task's server, itself a fork
    assert servers[0].ppid() == batch.pid
    server_env = _environ(servers[0].pid)
    assert SECRET not in server_env and "PATH" in server_env
    for agent in agents:
        agent_env = _environ(agent.pid)
        assert agent_env[SECRET] == "s3cr3t-v4lue"  # the request's environment
        assert "JLGCLI_BATCH_VERSIONS" not in agent_env  # issue 44: in the task's options
        name = agent_env["JLGCLI_BATCH_TASK"]  # for the agent: no batch inside a task
        assert Path(agent.cwd()) == repo / ".jlgcli" / "worktrees" / name
        asked = Path(os.environ["JLGCLI_CONFIG_DIR"]) / "asked"  # the user's config folder
        (record,) = asked.glob(f"batch-*.{name}.json")
        probed = json.loads(record.read_text("utf-8"))["known_versions"]  # probed once
        assert [path for path, _ in probed] == [shutil.which("claude", path=agent_env["PATH"])]
        assert json.loads(record.read_text("utf-8"))["batch_task"] == name
    return seen


def test_a_loop_imports_no_jlgcli_module_the_server_did_not(tmp_path: Path) -> None:
    """What a task imports itself is private to it: the server's list must be whole."""
    repo = make_repo(tmp_path / "repo")
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts",
                       {"alpha": [{"text": "done\nDONE", "files": {"a.txt": "a\n"}}]})  # fmt: skip
    driver = tmp_path / "driver.py"
    driver.write_text(
        "import importlib, json, sys\n"
        "from jlgcli.batch.task_server import WARM_MODULES\n"
        "for name in WARM_MODULES:\n"
        "    importlib.import_module(name)\n"
        "before = set(sys.modules)\n"
        "from jlgcli.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "new = sorted(m for m in set(sys.modules) - before if m.startswith('jlgcli'))\n"
        "sys.stderr.write(json.dumps({'code': code, 'new': new}) + '\\n')\n",
        encoding="utf-8",
    )
    gate = f'{sys.executable} -c "pass"'
    env = {**os.environ, "JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    options = RunOptions(prompt=tasks[0], backend="claude", gates=(gate,), events="-",
                         batch_task="alpha", shared_limits=str(tmp_path / "limits"))  # fmt: skip
    record = tmp_path / "alpha.options.json"
    record.write_text(json.dumps(to_json(options)), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(driver), "loop", "--task-options", str(record)],
        cwd=repo, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    facts = json.loads(done.stderr.strip().splitlines()[-1])
    assert facts == {"code": 0, "new": []}, done.stderr
