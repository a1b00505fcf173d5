"""Containment end to end (issue 14): no agent outlives jlgcli, and every ending says how it ended.

The agent is ``data/escaping_agent.py`` behind a ``command`` backend: it leaves
one grandchild in its process group and one daemon that left it with
``setsid``, both ignoring SIGINT/SIGTERM/SIGHUP/SIGQUIT. "No process left" is
checked by pid with psutil once jlgcli has exited (a zombie is dead).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from support.environ import without_coverage

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform != "linux", reason="Linux: subreaper and POSIX signals"),
]

AGENT = Path(__file__).parent / "data" / "escaping_agent.py"
PIDS = ("agent.pid", "grandchild.pid", "daemon.pid")


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """A directory with a task and a ``grand`` backend running the escaping agent."""
    (tmp_path / "task.md").write_text("Do the thing.\n", encoding="utf-8")
    (tmp_path / "pids").mkdir()
    yield tmp_path
    for name in PIDS:  # whatever a failed test left behind
        with contextlib.suppress(OSError, ValueError):
            os.kill(int((tmp_path / "pids" / name).read_text()), signal.SIGKILL)


def configure(project: Path, mode: str, *, prompt: str = "stdin") -> None:
    argv = [sys.executable, str(AGENT), mode, str(project / "pids")]
    if prompt == "file":  # the prompt goes through a temporary file jlgcli must remove
        argv.append("{prompt_file}")
    backend: dict[str, Any] = {"argv": argv, "prompt": prompt}
    (project / ".jlgcli.json").write_text(
        json.dumps({"backend": "grand", "backends": {"grand": backend}}), encoding="utf-8"
    )
    from jlgcli.config.write import trust_files  # the test's own project: trusted (issue 15)

    trust_files(
        [project / ".jlgcli.json"], env={"JLGCLI_CONFIG_DIR": os.environ["JLGCLI_CONFIG_DIR"]}
    )


def start(jlgcli_exe: str, project: Path, *args: str, **popen: Any) -> subprocess.Popen[str]:
    popen.setdefault("stdout", subprocess.PIPE)
    popen.setdefault("stderr", subprocess.PIPE)
    # Signalled: not measured (support/environ.py says why).
    popen["env"] = without_coverage(popen.get("env"))
    if "preexec_fn" not in popen:  # a closed stderr leaves faulthandler nowhere to write
        # On a hang, finish() sends SIGABRT: faulthandler then prints every thread's stack.
        popen["env"]["PYTHONFAULTHANDLER"] = "1"
    return subprocess.Popen(
        [jlgcli_exe, "loop", "task.md", "--artifacts", *args],
        cwd=project,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
        **popen,
    )


def finish(proc: subprocess.Popen[str], timeout: float = 60) -> tuple[str, str]:
    """``proc.communicate``; if jlgcli hangs, fail with its threads' stacks (SIGABRT)."""
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        try:
            _out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            _out, err = proc.communicate()
        pytest.fail(f"jlgcli did not end within {timeout:g}s; its stacks:\n{err}")


def wait_for_pids(project: Path, proc: subprocess.Popen[str]) -> list[int]:
    marker = project / "pids" / "agent.pid"
    deadline = time.monotonic() + 60
    while not marker.exists():  # polling the marker file the agent writes last
        assert proc.poll() is None, "jlgcli ended before the agent was ready"
        assert time.monotonic() < deadline, "the agent never started"
        time.sleep(0.02)
    return [int((project / "pids" / name).read_text()) for name in PIDS]


def left_alive(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


def running_script(script: Path) -> list[psutil.Process]:
    """Live processes running ``script`` (found by command line: a pid a script writes may be
    one of its PID namespace, issue 33)."""
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        alive = process.info["status"] != psutil.STATUS_ZOMBIE
        if alive and str(script) in (process.info["cmdline"] or []):
            found.append(process)
    return found


def kill_script(script: Path) -> None:
    for process in running_script(script):
        with contextlib.suppress(psutil.Error):
            process.kill()


def result_of(project: Path) -> dict[str, Any]:
    (result,) = (project / ".jlgcli" / "runs").glob("*/result.json")
    data: dict[str, Any] = json.loads(result.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("name", ["SIGHUP", "SIGQUIT", "SIGTERM", "SIGINT"])
def test_each_signal_stops_the_whole_tree_writes_the_result_and_exits_128_plus_n(
    jlgcli_exe: str, project: Path, name: str
) -> None:
    configure(project, "hang", prompt="file")
    number = int(getattr(signal, name))
    temp = project / "tmp"
    temp.mkdir()
    proc = start(jlgcli_exe, project, "--json", env={**os.environ, "TMPDIR": str(temp)})
    pids = wait_for_pids(project, proc)
    assert list(temp.glob("jlgcli-prompt-*")), "the prompt did not go through a file"
    proc.send_signal(number)
    out, err = finish(proc)
    assert proc.returncode == 128 + number, err
    assert left_alive(pids) == []
    assert list(temp.glob("jlgcli-prompt-*")) == []  # no prompt file left behind
    summary = json.loads(out)
    assert (summary["stopCause"], summary["exitCode"]) == ("interrupted", 128 + number)
    expected = "Ctrl-C" if name == "SIGINT" else name
    assert expected in summary["error"]["message"]
    recorded = result_of(project)
    assert (recorded["stopCause"], recorded["exitCode"]) == ("interrupted", 128 + number)
    assert expected in recorded["error"]["message"]


def test_a_setsid_daemon_is_gone_after_a_timeout(jlgcli_exe: str, project: Path) -> None:
    configure(project, "hang")
    proc = start(jlgcli_exe, project, "--json", "--iteration-timeout", "2s")
    pids = wait_for_pids(project, proc)
    out, err = finish(proc)
    assert proc.returncode == 75, err
    assert json.loads(out)["stopCause"] == "iteration-timeout"
    assert left_alive(pids) == []


def test_a_setsid_daemon_is_gone_after_a_normal_agent_exit(jlgcli_exe: str, project: Path) -> None:
    configure(project, "done")
    proc = start(jlgcli_exe, project, "--json")
    out, err = finish(proc)
    assert proc.returncode == 0, err
    assert json.loads(out)["stopCause"] == "done"
    pids = [int((project / "pids" / name).read_text()) for name in PIDS]
    assert left_alive(pids) == []


def test_stdout_reader_gone_stops_the_run_like_sigpipe_never_0(
    jlgcli_exe: str, project: Path
) -> None:
    # `jlgcli loop … | true`: the reader is gone before the agent's first line.
    configure(project, "hang")
    proc = start(jlgcli_exe, project)
    assert proc.stdout is not None
    proc.stdout.close()
    pids = wait_for_pids(project, proc)
    _out, err = finish(proc)
    assert proc.returncode == 141, err
    assert left_alive(pids) == []
    recorded = result_of(project)
    assert (recorded["stopCause"], recorded["exitCode"]) == ("interrupted", 141)
    assert "SIGPIPE" in recorded["error"]["message"]


def test_a_finished_loop_whose_stdout_reader_left_is_not_0_either(
    jlgcli_exe: str, project: Path
) -> None:
    # The result could not be delivered: 141, while result.json says the loop was done.
    configure(project, "done")
    proc = start(jlgcli_exe, project, "--json")
    assert proc.stdout is not None
    proc.stdout.close()
    _out, err = finish(proc)
    assert proc.returncode == 141, err
    assert result_of(project)["stopCause"] == "done"


@pytest.mark.parametrize("stderr", ["closed", "broken"])
def test_json_survives_a_closed_or_broken_stderr(
    jlgcli_exe: str, project: Path, stderr: str
) -> None:
    configure(project, "done")
    if stderr == "closed":  # `jlgcli loop … --json 2>&-`
        proc = start(jlgcli_exe, project, "--json", "-v", preexec_fn=lambda: os.close(2))
    else:  # the reader of stderr went away
        proc = start(jlgcli_exe, project, "--json", "-v")
        assert proc.stderr is not None
        proc.stderr.close()
    out, _err = finish(proc)
    assert proc.returncode == 0
    summary = json.loads(out)  # exactly one valid JSON object
    assert (summary["stopCause"], summary["exitCode"]) == ("done", 0)


DAEMON_SCRIPT = """\
import os, signal, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:  # the double fork of a daemon: no parent, no group of ours
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        with open("daemon.pid.tmp", "w") as f:
            f.write(str(os.getpid()))
        os.replace("daemon.pid.tmp", "daemon.pid")
        time.sleep(300)
    os._exit(0)
while not os.path.exists("daemon.pid"):
    time.sleep(0.01)
print("daemon started")
"""


def test_a_rebound_scripts_double_forked_daemon_is_gone_when_the_step_ends(
    jlgcli_exe: str, tmp_path: Path
) -> None:
    # REQ_AUTO_030: the sandboxed script ends with its step, and so does all it started.
    def reply(obj: dict[str, Any]) -> dict[str, Any]:
        return {"text": "```json\n" + json.dumps(obj) + "\n```"}

    project = tmp_path / "project"
    project.mkdir()
    (project / "task.md").write_text("Start the helper.\n", encoding="utf-8")
    script = tmp_path / "agent-script.json"
    first = {
        "thought_process": "Start it.",
        "artifacts": [{"path": "workbench/scripts/daemon.py", "content": DAEMON_SCRIPT}],
        "next_action": {
            "type": "exec_and_chain",
            "target_script": "workbench/scripts/daemon.py",
            "continuation_prompt": "Check it.",
        },
    }
    second = {"status": "done", "summary": "started"}
    script.write_text(json.dumps({"turns": [reply(first), reply(second)]}), "utf-8")
    env = {**os.environ, "JLGCLI_FAKE_SCRIPT": str(script)}
    proc = subprocess.run(
        [jlgcli_exe, "loop", "task.md", "-b", "claude", "--completion", "rebound", "--json"],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    pidfiles = list(project.rglob("daemon.pid"))
    try:
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["stopCause"] == "done"
        assert len(pidfiles) == 1, "the script did not start its daemon"
        # The pid it wrote may be one of the script's PID namespace (issue 33): by command line.
        assert running_script(project / "workbench" / "scripts" / "daemon.py") == []
    finally:
        kill_script(project / "workbench" / "scripts" / "daemon.py")


HANGING_SCRIPT = """\
import os, time
with open("script-started.tmp", "w") as f:
    f.write(str(os.getpid()))
os.replace("script-started.tmp", "script-started")
time.sleep(300)
"""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_a_signal_while_a_rebound_script_runs_takes_the_same_path(
    jlgcli_exe: str, tmp_path: Path, name: str
) -> None:
    number = int(getattr(signal, name))
    project = tmp_path / "project"
    project.mkdir()
    (project / "task.md").write_text("Wait.\n", encoding="utf-8")
    first = {
        "thought_process": "Run it.",
        "artifacts": [{"path": "workbench/scripts/hang.py", "content": HANGING_SCRIPT}],
        "next_action": {
            "type": "exec_and_chain",
            "target_script": "workbench/scripts/hang.py",
            "continuation_prompt": "Go on.",
        },
    }
    script = tmp_path / "agent-script.json"
    reply = {"text": "```json\n" + json.dumps(first) + "\n```"}
    script.write_text(json.dumps({"turns": [reply]}), "utf-8")
    env = without_coverage() | {"JLGCLI_FAKE_SCRIPT": str(script)}  # signalled: not measured
    proc = subprocess.Popen(
        [jlgcli_exe, "loop", "task.md", "-b", "claude", "--completion=rebound", "--artifacts"],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not list(project.rglob("script-started")):  # the marker the script writes
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.02)
        script = project / "workbench" / "scripts" / "hang.py"
        assert running_script(script), "the script is not running"
        proc.send_signal(number)
        out, err = finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
        leftover = running_script(project / "workbench" / "scripts" / "hang.py")
        kill_script(project / "workbench" / "scripts" / "hang.py")
    assert proc.returncode == 128 + number, err + out
    assert leftover == []
    recorded = result_of(project)
    assert (recorded["stopCause"], recorded["exitCode"]) == ("interrupted", 128 + number)
    assert name in recorded["error"]["message"]


@pytest.mark.parametrize("name", ["SIGHUP", "SIGTERM"])
def test_dev_run_stops_its_agent_on_a_signal_and_keeps_its_exit_code_1(
    tmp_path: Path, name: str
) -> None:
    # seed 003 FR-8.3: an interrupted dev run is "aborted" (1), whatever the signal.
    from support.dev_e2e import dev_argv, env_with, write_script
    from support.devproject import make_project

    root = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.json", {"hang": True}, repeat_last=True)
    proc = subprocess.Popen(
        dev_argv("run", "--yes", "-C", str(root)),
        cwd=root,
        env=without_coverage(env_with(script)),  # signalled: not measured
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        marker = Path(f"{script}.prompts") / "000.txt"
        deadline = time.monotonic() + 60
        while not marker.exists():  # the fake agent received its prompt
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.02)
        agents = [p.pid for p in psutil.Process(proc.pid).children(recursive=True)]
        assert agents, "the agent is not running"
        proc.send_signal(int(getattr(signal, name)))
        _out, err = finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err
    assert "interrupted" in err
    assert left_alive(agents) == []
