"""A batch's tasks forked by its warm task server (issue 37): ``jlgcli.batch.task_server``.

Through the installed ``jlgcli``: each task is a child of the batch (adopted), in a
session of its own, forked from the server (it keeps the server's command line);
the server's environment holds no secret of the user's, each task's agent gets
the whole environment and its task's name; Ctrl-C ends every process of the tree.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

if not sys.platform.startswith("linux"):  # also .ci/run's Windows proxy
    pytest.skip("the task server forks (Linux)", allow_module_level=True)

import psutil
from support.batch import make_repo, make_tasks

from jlgcli.backends.login_watch import CHECK_DELAY_S
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


def _forked_by_server(process: psutil.Process) -> bool:
    """Whether ``process`` runs the server's entry: forked by it (a middle process a fork
    server makes to fork the next supervisor ahead ends at once: gone, it is none)."""
    with contextlib.suppress(psutil.Error):
        return ENTRY in process.cmdline()
    return False


def _childless_child_of(process: psutil.Process, parent: int) -> bool:
    with contextlib.suppress(psutil.Error):
        return process.ppid() == parent and not process.children()
    return False


def _inspect(pid: int, repo: Path) -> list[psutil.Process]:
    """Check the batch's tree once both agents run; every process of it."""
    batch = psutil.Process(pid)
    deadline = time.monotonic() + 60
    while len(agents := _agents(batch)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(agents) == 2
    seen = [batch, *batch.children(recursive=True)]
    forked = [process for process in seen[1:] if _forked_by_server(process)]
    tasks_by_agent = {agent.pid: _task_of(agent, batch.pid) for agent in agents}
    task_pids = {task.pid for task in tasks_by_agent.values()}
    # the server: the batch's child that is neither a task nor a supervisor it forked for
    # one of the batch's gits (a task's own supervisors and their server are the task's)
    servers = [p for p in forked if p.pid not in task_pids and _childless_child_of(p, batch.pid)]
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


BACKENDS = ("claude", "codex", "gemini", "copilot")
# A call long enough for what starts beside it after a while (codex's login check).
CALL_S = CHECK_DELAY_S + 0.5
# The server's side, in a fork made first: what its entry (``python -m jlgcli``, the task
# server's module) and WARM_MODULES bring in. The task's side, in the driver itself:
# everything a task forked by the server runs (``run_task``: adoption, its supervisors'
# server forked from itself, the loop). Neither side sees the other's imports. Counted:
# jlgcli's and the standard library's modules, not their private helpers nor the
# interpreter's built-in ones.
IMPORTS_DRIVER = """\
import importlib, json, os, sys
std = sys.stdlib_module_names
def ours(names):
    return {m for m in names if m.partition('.')[0] in ('jlgcli', *std)
            and '._' not in '.' + m and m not in sys.builtin_module_names}
read, write = os.pipe()
if os.fork() == 0:
    import jlgcli.cli
    from jlgcli.batch.task_server import WARM_MODULES
    from jlgcli.records import compile_pending
    for name in WARM_MODULES:
        importlib.import_module(name)
    compile_pending()
    os.write(write, json.dumps({'warm': list(WARM_MODULES),
                                'brought': sorted(ours(sys.modules))}).encode())
    os._exit(0)
os.close(write)
chunks = []
while chunk := os.read(read, 1 << 16):
    chunks.append(chunk)
os.wait()
facts = json.loads(b''.join(chunks))
before = set(sys.modules)
from jlgcli.batch.task_server import fork_supervisor_server
from jlgcli.cli import main
from jlgcli.process import adopt_orphans, warm
from jlgcli.startup_gc import run_console
adopt_orphans()
own = fork_supervisor_server()
assert own is not None
warm.serve_from(own)
code = run_console(lambda: main(sys.argv[1:]))
warm.retire()
loop = ours(set(sys.modules) - before)
facts.update(code=code, loop=sorted(loop), missed=sorted(loop - set(facts['brought'])))
sys.stderr.write(json.dumps(facts) + '\\n')
"""


def _loop_imports(tmp_path: Path, backend: str) -> dict[str, Any]:
    """A task's loop on ``backend`` run as a task forked by the server runs it: the modules
    it imported, and those the server brings in."""
    repo = make_repo(tmp_path / "repo")
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts",
                       {"alpha": [{"text": "done\nDONE", "files": {"a.txt": "a\n"},
                                  "delay_seconds": CALL_S}]})  # fmt: skip
    driver = tmp_path / "driver.py"
    driver.write_text(IMPORTS_DRIVER, encoding="utf-8")
    gate = f'{sys.executable} -c "pass"'
    logins = {"GEMINI_API_KEY": "k", "COPILOT_GITHUB_TOKEN": "github_pat_test"}  # dummies
    env = {**os.environ, "JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts"), **logins}
    options = RunOptions(prompt=tasks[0], backend=backend, gates=(gate,), events="-",
                         batch_task="alpha", shared_limits=str(tmp_path / "limits"))  # fmt: skip
    record = tmp_path / "alpha.options.json"
    record.write_text(json.dumps(to_json(options)), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(driver), "loop", "--task-options", str(record)],
        cwd=repo, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    facts: dict[str, Any] = json.loads(done.stderr.strip().splitlines()[-1])
    assert facts["code"] == 0, done.stderr
    return facts


def test_the_server_warms_what_a_loop_imports_on_every_backend(tmp_path: Path) -> None:
    """``WARM_MODULES``, a hand-kept list, held both ways (issue 45). What a task imports
    itself is private to it: the list must be whole, for every backend, for the standard
    library's modules as for jlgcli's. And a name left in it after no loop imports it any
    more would cost the server (and so the batch) memory for nothing."""
    used: set[str] = set()
    warm: list[str] = []
    for backend in BACKENDS:
        facts = _loop_imports(tmp_path / backend, backend)
        assert (backend, facts["missed"]) == (backend, [])
        used.update(facts["loop"])
        warm = facts["warm"]
    assert sorted(set(warm) - used) == [], sorted(set(warm) - used)
    assert len(set(warm)) == len(warm)
