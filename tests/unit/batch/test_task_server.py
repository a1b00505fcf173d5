"""The task server's edges (issue 37): ``jlgcli.batch.task_server``.

A driver process uses it as the batch does (``adopt_orphans``: a subreaper):
a request that is not a loop is refused like a failed exec, nothing runs; a
dead server makes the task start cold; the server keeps no secret.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

if not sys.platform.startswith("linux"):  # also .ci/run's Windows proxy
    pytest.skip("the task server forks (Linux)", allow_module_level=True)

DRIVER = r"""
import json, sys
from jlgcli.batch import task_server
from jlgcli.process import adopt_orphans, run_invocation
from jlgcli.process.model import Invocation, Limits
from jlgcli.selfcmd import self_argv

adopt_orphans()
server = task_server.start_server()
tasks = task_server.TaskForker(server)

def call(*argv, forker=tasks):
    out = []
    outcome = run_invocation(
        Invocation(argv, cwd=sys.argv[1], fork_server=forker),
        limits=Limits(total_timeout=60), sinks=[out.append])
    return {"exit": outcome.exit_code, "error": outcome.error,
            "stdout": "".join(e.text for e in out if e.stream == "stdout")}

print(json.dumps(call(*self_argv(), "config", "path")), flush=True)
print(json.dumps(call(*self_argv(), "loop", "--help")), flush=True)
plain = call("sh", "-c", "echo $PPID; cat /proc/$PPID/cmdline | tr '\\0' ' '", forker=server)
print(json.dumps(plain), flush=True)
server.proc.kill()
server.proc.wait()
print(json.dumps(call(*self_argv(), "loop", "--help")), flush=True)
task_server.retire_server(server)
"""


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    work = tmp_path_factory.mktemp("task-server")
    driver = work / "driver.py"
    driver.write_text(DRIVER, encoding="utf-8")
    done = subprocess.run([sys.executable, str(driver), str(work)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_a_request_that_is_not_a_loop_is_refused_as_a_failed_exec(
    calls: list[dict[str, Any]],
) -> None:
    refused = calls[0]
    assert refused["exit"] is None and "Exec format error" in refused["error"]
    assert refused["stdout"] == ""


def test_a_loop_runs_forked_and_after_the_server_died_cold(calls: list[dict[str, Any]]) -> None:
    forked, cold = calls[1], calls[3]
    for call in (forked, cold):
        assert call["exit"] == 0 and "--max-iterations" in call["stdout"], call


def test_the_batchs_own_spawn_runs_under_a_supervisor_forked_by_the_server(
    calls: list[dict[str, Any]],
) -> None:
    plain = calls[2]
    assert plain["exit"] == 0, plain
    _ppid, command = plain["stdout"].splitlines()
    assert "__jlgcli_task_server__" in command  # a supervisor forked from the warm server


def test_the_server_environment_keeps_how_python_starts_and_no_secret() -> None:
    from jlgcli.batch.task_server import server_environment

    kept = server_environment({"PATH": "/bin", "HOME": "/h", "LC_ALL": "C.UTF-8",
                               "PYTHONPATH": "/src", "ANTHROPIC_API_KEY": "sk-ant-x",
                               "GITHUB_TOKEN": "ghp_x", "LANG": "C"})  # fmt: skip
    assert kept == {"PATH": "/bin", "HOME": "/h", "LC_ALL": "C.UTF-8", "PYTHONPATH": "/src",
                    "LANG": "C"}  # fmt: skip


def _importers_of(module: str) -> set[str]:
    """jlgcli's files that import ``module`` (``import a.b``, ``from a import b``,
    ``from a.b import c``), anywhere in the file (in a function too)."""
    import ast
    from pathlib import Path

    import jlgcli

    package = Path(jlgcli.__file__).parent
    parent, _, leaf = module.rpartition(".")
    found = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module is not None:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            if module in names or (parent in names and leaf in names):
                found.add(path.relative_to(package).as_posix())
    return found


def test_the_batch_reaches_the_task_server_by_one_seam() -> None:
    """Issue 45: the server is kept behind one seam, ``batch.child.task_server`` (what
    ``benchmarks/fanout.py --cold`` replaces); the only other importer is the program's
    hidden entry that runs the server itself."""
    assert _importers_of("jlgcli.batch.task_server") == {"batch/child.py", "cli.py"}


def test_the_seam_starts_no_server_where_a_task_is_not_adopted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A host program, the frozen exe (no adoption): each task starts its own interpreter."""
    from jlgcli.batch import child
    from jlgcli.process import descendants

    monkeypatch.setattr(descendants, "supervisor_wanted", lambda: False)
    with child.task_server() as forking:
        assert forking.tasks is None
        forking.take_spawns()  # nothing to hand over


def test_a_server_that_cannot_start_leaves_each_task_to_start_cold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from jlgcli.batch import child, task_server
    from jlgcli.process import descendants

    monkeypatch.setattr(descendants, "supervisor_wanted", lambda: True)
    monkeypatch.setattr(task_server, "start_server", lambda: None)
    with child.task_server() as forking:
        assert forking.tasks is None
