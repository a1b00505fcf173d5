"""Issue 33: every descendant is ours, marked or not, and nothing outlives jlgcli.

A daemon that double-forks, ``setsid``s and ``execve``s with ``env -i``
(``data/cleaned_daemon.py``) carries no ``JLGCLI_TREE`` mark; started by an
agent, a gate or a rebound script it must be gone once jlgcli has exited. The
daemon is found by a unique token in its command line (a pid it wrote could be
one of a PID namespace), and its marker file proves it ran.
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
import uuid
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest
from support.cli import Runner, task_project
from support.reachable import AS_NOBODY, NOBODY, Runtime, give_to_nobody, nobody_workspace
from support.rebound_turns import run_one_script

from jlgcli.config.write import trust_files

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform != "linux", reason="Linux: subreaper, namespaces, signals"),
]

DAEMON = Path(__file__).parent / "data" / "cleaned_daemon.py"


def with_token(token: str) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        cmdline = process.info["cmdline"] or []
        if token in cmdline and process.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(process)
    return found


def gone_within(token: str, seconds: float) -> list[psutil.Process]:
    """The processes carrying ``token`` still alive after polling for up to ``seconds``."""
    deadline = time.monotonic() + seconds
    while (alive := with_token(token)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def kill_all(token: str) -> None:
    for process in with_token(token):
        with contextlib.suppress(psutil.Error):
            process.kill()


def _project(tmp_path: Path) -> Path:
    return task_project(tmp_path, "Start the helper.\n")


def test_a_cleaned_env_daemon_started_by_the_agent_is_gone_after_the_run(
    jlg: Runner, tmp_path: Path
) -> None:
    token, marker = f"jlgcli-test-{uuid.uuid4().hex}", tmp_path / "daemon-ran"
    project = _project(tmp_path)
    argv = [sys.executable, str(DAEMON), token, str(marker), "agent"]
    config = project / ".jlgcli.json"
    config.write_text(
        json.dumps({"backend": "d", "backends": {"d": {"argv": argv, "prompt": "stdin"}}}), "utf-8"
    )
    trust_files([config], env={"JLGCLI_CONFIG_DIR": os.environ["JLGCLI_CONFIG_DIR"]})
    try:
        result = jlg("run", "task.md", cwd=project)
        assert result.returncode == 0, result.stderr
        assert marker.exists(), "the daemon never ran"
        assert with_token(token) == []
    finally:
        kill_all(token)


def test_a_cleaned_env_daemon_started_by_a_gate_is_gone_after_the_run(
    jlg: Runner, tmp_path: Path
) -> None:
    token, marker = f"jlgcli-test-{uuid.uuid4().hex}", tmp_path / "daemon-ran"
    project = _project(tmp_path)
    gate = f"{sys.executable} {DAEMON} {token} {marker}"
    try:
        result = jlg("loop", "task.md", "-b", "claude", "--gate", gate, cwd=project)
        assert result.returncode == 0, result.stderr
        assert marker.exists(), "the gate's daemon never ran"
        assert with_token(token) == []
    finally:
        kill_all(token)


SCRIPT = """\
import os, sys, time
token, marker = {token!r}, "daemon-ran"
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        sleeper = "import signal, sys, time\\n" \\
            "signal.signal(signal.SIGTERM, signal.SIG_IGN)\\n" \\
            "open(sys.argv[2], 'w').close()\\ntime.sleep(300)\\n"
        os.execv("/usr/bin/env", ["env", "-i", sys.executable, "-c", sleeper, token, marker])
    os._exit(0)
while not os.path.exists(marker):
    time.sleep(0.01)
print("daemon started")
"""


def _daemon_script_turns(folder: Path, token: str) -> Path:
    """The fake agent's script: write ``SCRIPT`` and run it, then say done."""
    final = {"status": "done", "summary": "started"}
    content = SCRIPT.format(token=token)
    return run_one_script(folder, "daemon.py", content, continuation="Check it.",
                          final=final, thought="Start it.")  # fmt: skip


def test_a_cleaned_env_daemon_started_by_a_rebound_script_is_gone_after_the_run(
    jlg: Runner, tmp_path: Path
) -> None:
    token = f"jlgcli-test-{uuid.uuid4().hex}"
    project = _project(tmp_path)
    env = {"JLGCLI_FAKE_SCRIPT": str(_daemon_script_turns(tmp_path, token))}
    try:
        result = jlg(
            "loop", "task.md", "-b", "claude", "--completion", "rebound", cwd=project, env=env
        )
        assert result.returncode == 0, result.stderr
        assert (project / "daemon-ran").exists(), "the script's daemon never ran"
        assert with_token(token) == []
    finally:
        kill_all(token)


@pytest.mark.parametrize("name", ["SIGKILL", "SIGTERM"])
def test_after_kill_of_jlgcli_nothing_of_its_tree_is_alive_within_5s(
    tmp_path: Path, name: str
) -> None:
    # issue 33: the agent's same-group child, its setsid child and a cleaned-env daemon.
    from support.environ import without_coverage

    token, marker = f"jlgcli-test-{uuid.uuid4().hex}", tmp_path / "daemon-ran"
    project = _project(tmp_path)
    proc = _escaping_loop(project, token, marker, lambda agent, pids: [agent, "hang", pids])
    jlgcli = str(Path(sys.executable).parent / "jlgcli")
    pids: list[int] = []
    try:
        pids = _agent_pids(proc, project / "pids")
        assert marker.exists()
        tree = [p.pid for p in psutil.Process(proc.pid).children(recursive=True)]
        proc.send_signal(getattr(signal, name))
        proc.wait(60)
        _gone_within_5s([*pids, *tree], token, after=name)
        if name == "SIGTERM":  # a catchable signal: jlgcli still writes its result
            assert list((project / ".jlgcli" / "runs").glob("*/result.json"))
        else:  # nothing ran to record the end: the next look says what happened
            listed = subprocess.run([jlgcli, "runs", "--json"], cwd=project, env=without_coverage(),
                                    capture_output=True, text=True, timeout=60)  # fmt: skip
            assert listed.returncode == 0, listed.stderr
            assert [run["status"] for run in json.loads(listed.stdout)["runs"]] == ["killed"]
            shown = subprocess.run([jlgcli, "runs", "show", "latest"], cwd=project,
                                   env=without_coverage(), capture_output=True, text=True,
                                   timeout=60)  # fmt: skip
            assert "status      killed\n" in shown.stdout  # in its first call: no state to resume
    finally:
        _end_all(proc, pids, token)


SECOND_CALL_HANGS = (
    "import os, sys\n"
    "first = os.path.join(sys.argv[2], 'first-call')\n"
    "if not os.path.exists(first):\n"
    "    sys.stdin.read()\n"
    "    open(first, 'w').close()\n"
    "    print('step 1: made some progress')\n"
    "    sys.exit(0)\n"
    "os.execv(sys.executable, [sys.executable, sys.argv[1], 'hang', sys.argv[2]])\n"
)


def test_after_kill_of_jlgcli_a_child_the_fork_server_started_leaves_nothing(
    tmp_path: Path,
) -> None:
    # issue 33 with issue 18's fork server: the second agent call's supervisor is forked
    # by the server (no interpreter start-up); a SIGKILL of jlgcli still ends its whole
    # tree (same group, setsid, cleaned-env daemon), the server and the supervisor.
    token, marker = f"jlgcli-test-{uuid.uuid4().hex}", tmp_path / "daemon-ran"
    project = _project(tmp_path)
    pids_dir = project / "pids"
    proc = _escaping_loop(
        project, token, marker, lambda agent, pids: ["-c", SECOND_CALL_HANGS, agent, pids]
    )
    pids: list[int] = []
    try:
        pids = _agent_pids(proc, pids_dir)  # the second call's
        # the fork server, the supervisor it forked, and the next one, forked ahead (issue 50)
        deadline = time.monotonic() + 30
        while True:
            tree = psutil.Process(proc.pid).children(recursive=True)
            server = [p for p in tree if _serving_for(p, proc.pid)]
            if len(server) == 3 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        supervising = psutil.Process(pids[-1]).parent()
        assert supervising is not None and supervising.ppid() == proc.pid  # adopted by jlgcli
        assert len(server) == 3
        proc.kill()
        proc.wait(60)
        _gone_within_5s([*pids, *(p.pid for p in tree)], token, after="SIGKILL")
    finally:
        _end_all(proc, pids, token)


def _serving_for(process: psutil.Process, jlgcli: int) -> bool:
    """A process with the fork server's command line that jlgcli adopted (a middle process
    the server forks ends at once: gone, it is none)."""
    with contextlib.suppress(psutil.Error):
        return "--serve" in process.cmdline() and process.ppid() == jlgcli
    return False


def _escaping_loop(
    project: Path, token: str, marker: Path, args: Callable[[str, str], list[str]]
) -> subprocess.Popen[bytes]:
    """``jlgcli loop`` on a trusted backend running Python with ``args(agent, pids folder)``:
    the escaping agent, which also starts a cleaned-env daemon carrying ``token``."""
    from support.environ import without_coverage

    agent = Path(__file__).parent / "data" / "escaping_agent.py"
    (project / "pids").mkdir()
    argv = [sys.executable, *args(str(agent), str(project / "pids"))]
    config = project / ".jlgcli.json"
    config.write_text(
        json.dumps({"backend": "e", "backends": {"e": {"argv": argv, "prompt": "stdin"}}}), "utf-8"
    )
    trust_files([config], env={"JLGCLI_CONFIG_DIR": os.environ["JLGCLI_CONFIG_DIR"]})
    return subprocess.Popen(
        [str(Path(sys.executable).parent / "jlgcli"), "loop", "task.md", "--artifacts"],
        cwd=project,
        env=without_coverage() | {"ESCAPING_AGENT_CLEANED_DAEMON": f"{token}:{marker}"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _agent_pids(proc: subprocess.Popen[bytes], pids_dir: Path) -> list[int]:
    """Once the escaping agent is ready: its grandchild's, its daemon's and its own pid."""
    deadline = time.monotonic() + 60
    while not (pids_dir / "agent.pid").exists():  # the marker the agent writes last
        assert proc.poll() is None, "jlgcli ended before the agent was ready"
        assert time.monotonic() < deadline, "the agent never started"
        time.sleep(0.02)
    return [int((pids_dir / n).read_text()) for n in ("grandchild.pid", "daemon.pid", "agent.pid")]


def _gone_within_5s(pids: list[int], token: str, *, after: str) -> None:
    deadline = time.monotonic() + 5
    while _alive(pids) or with_token(token):
        assert time.monotonic() < deadline, (
            f"alive 5 s after {after}: {_alive(pids)} {with_token(token)}"
        )
        time.sleep(0.05)


def _end_all(proc: subprocess.Popen[bytes], pids: list[int], token: str) -> None:
    """Whatever a failed test left behind."""
    if proc.poll() is None:
        proc.kill()
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    kill_all(token)


def _alive(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        with contextlib.suppress(psutil.NoSuchProcess):
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
    return alive


# As an unprivileged user (issue 33's "as root and as an unprivileged user"): jlgcli is started
# as nobody from a runtime nobody can reach (support/reachable.py). It is then no subreaper by
# privilege, cannot see other users' /proc entries, and its supervisor is nobody's too.


def _nobody_project(
    folder: Path, runtime: Runtime, agent: list[str] | None = None
) -> tuple[Path, dict[str, str]]:
    """A project (with a trusted ``e`` backend running ``agent``), and nobody's environment."""
    from support.environ import without_coverage

    project = _project(folder)
    (folder / "cfg").mkdir()
    (folder / "home").mkdir()
    env = {"JLGCLI_CONFIG_DIR": str(folder / "cfg"), "HOME": str(folder / "home")}
    if agent is not None:
        config = project / ".jlgcli.json"
        backends = {"e": {"argv": agent}}
        config.write_text(json.dumps({"backend": "e", "backends": backends}), "utf-8")
        trust_files([config], env=env)
    env |= {"TMPDIR": str(folder / "home")}
    give_to_nobody(folder)
    return project, runtime.environ(without_coverage() | env)


@pytest.mark.parametrize("starter", ["agent", "gate"])
def test_as_nobody_a_cleaned_env_daemon_started_by_the_agent_or_a_gate_is_gone_after_the_run(
    system_bin: Path, starter: str
) -> None:
    with nobody_workspace(system_bin) as (runtime, folder):
        token, marker = f"jlgcli-test-{uuid.uuid4().hex}", folder / "daemon-ran"
        daemon = str(shutil.copy(DAEMON, folder / DAEMON.name))
        if starter == "agent":
            agent = [str(runtime.python), daemon, token, str(marker), "agent"]
            project, env = _nobody_project(folder, runtime, agent)
            args = ["run", "task.md"]
        else:
            project, env = _nobody_project(folder, runtime)
            gate = f"{runtime.python} {daemon} {token} {marker}"
            args = ["loop", "task.md", "-b", "claude", "--gate", gate]
        try:
            result = subprocess.run(
                [*AS_NOBODY, *runtime.jlgcli, *args], cwd=project, env=env,
                stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            assert result.returncode == 0, result.stderr
            assert marker.exists(), f"the {starter}'s daemon never ran"
            assert marker.stat().st_uid == NOBODY  # the daemon, thus jlgcli, was nobody
            assert with_token(token) == []
        finally:
            kill_all(token)


def test_as_nobody_after_kill_9_of_jlgcli_nothing_of_its_tree_is_alive_within_5s(
    system_bin: Path,
) -> None:
    with nobody_workspace(system_bin) as (runtime, folder):
        token, marker = f"jlgcli-test-{uuid.uuid4().hex}", folder / "daemon-ran"
        for name in ("escaping_agent.py", "cleaned_daemon.py"):
            shutil.copy(DAEMON.with_name(name), folder / name)
        pids_dir = folder / "project" / "pids"
        agent = [str(runtime.python), str(folder / "escaping_agent.py"), "hang", str(pids_dir)]
        project, env = _nobody_project(folder, runtime, agent)
        pids_dir.mkdir()
        give_to_nobody(pids_dir)
        env["ESCAPING_AGENT_CLEANED_DAEMON"] = f"{token}:{marker}"
        proc = subprocess.Popen(
            [*AS_NOBODY, *runtime.jlgcli, "loop", "task.md", "--artifacts"], cwd=project, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        pids: list[int] = []
        try:
            pids = _agent_pids(proc, pids_dir)
            assert marker.exists()
            tree = [p.pid for p in psutil.Process(proc.pid).children(recursive=True)]
            assert all(psutil.Process(pid).uids().real == NOBODY for pid in tree)
            proc.kill()  # setpriv exec'd jlgcli: proc is jlgcli itself
            proc.wait(60)
            _gone_within_5s([*pids, *tree], token, after="SIGKILL")
            listed = subprocess.run(
                [*AS_NOBODY, *runtime.jlgcli, "runs", "--json"], cwd=project, env=env,
                capture_output=True, text=True, timeout=60,
            )  # fmt: skip
            assert listed.returncode == 0, listed.stderr
            assert [run["status"] for run in json.loads(listed.stdout)["runs"]] == ["killed"]
        finally:
            _end_all(proc, pids, token)


def test_as_nobody_a_cleaned_env_daemon_started_by_a_rebound_script_is_gone_after_the_run(
    system_bin: Path,
) -> None:
    with nobody_workspace(system_bin) as (runtime, folder):
        token = f"jlgcli-test-{uuid.uuid4().hex}"
        script = _daemon_script_turns(folder, token)
        project, env = _nobody_project(folder, runtime)
        env["JLGCLI_FAKE_SCRIPT"] = str(script)
        try:
            result = subprocess.run(
                [*AS_NOBODY, *runtime.jlgcli, "loop", "task.md", "-b", "claude",
                 "--completion", "rebound"],
                cwd=project, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                timeout=120,
            )  # fmt: skip
            assert result.returncode == 0, result.stderr
            assert (project / "daemon-ran").exists(), "the script's daemon never ran"
            assert (project / "daemon-ran").stat().st_uid == NOBODY
            assert with_token(token) == []
        finally:
            kill_all(token)
