"""The Invoke door end to end: a user's two-line tasks.py, the real ``invoke``, the fake claude.

Issue 8: ``invoke loop --task …`` runs the same core with the same options and
exits with jlgcli's exit code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

TWO_LINES = """from invoke import task  # noqa: F401
from jlgcli.invoke_tasks import dev, loop, run  # noqa: F401
"""
NAMESPACED = """from invoke import Collection, task
from jlgcli.invoke_tasks import ns as jlg


@task
def hello(c):
    print("hello from the user's own task")


ns = Collection(hello, jlg)
ns.configure(jlg.configuration())
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "user-repo"
    root.mkdir()
    (root / "tasks.py").write_text(TWO_LINES, encoding="utf-8")
    (root / "task.md").write_text("Write hello.txt, then say DONE.\n", encoding="utf-8")
    return root


def invoke(
    root: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "invoke", *args], cwd=root, capture_output=True, text=True,
        encoding="utf-8", errors="replace", timeout=120, stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )  # fmt: skip


def script(tmp_path: Path, *turns: dict[str, object]) -> dict[str, str]:
    path = tmp_path / "fake.json"
    path.write_text(json.dumps({"turns": list(turns)}), encoding="utf-8")
    return {"JLGCLI_FAKE_SCRIPT": str(path)}


def test_invoke_lists_the_tasks(project):
    result = invoke(project, "--list")
    assert result.returncode == 0, result.stderr
    for name in ("run", "loop", "dev"):
        assert f"  {name} " in result.stdout


def test_loop_until_done_exits_0(project):
    result = invoke(project, "loop", "--task", "task.md", "--backend", "claude")
    assert result.returncode == 0, result.stderr
    assert "jlgcli loop: DONE" in result.stderr
    assert "fake reply" in result.stdout


def test_loop_json_prints_the_run_summary(project, tmp_path):
    env = script(tmp_path, {"text": 'all good\n{"status": "done", "summary": "wrote it"}'})
    result = invoke(project, "loop", "--prompt", "task.md", "--backend", "claude",
                    "--completion", "json", "--json", env=env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["status"] == "done"
    assert summary["summary"] == "wrote it"
    assert summary["completionMode"] == "json"


def test_max_iterations_exits_4(project, tmp_path):
    env = script(tmp_path, {"text": "still working"})
    result = invoke(project, "loop", "--task", "task.md", "--backend", "claude",
                    "--max-iterations", "2", env=env)  # fmt: skip
    assert result.returncode == 4, result.stderr
    assert "max-iterations" in result.stderr


def test_model_error_in_run_exits_1(project, tmp_path):
    env = script(tmp_path, {"error": "backend"})
    result = invoke(project, "run", "--task", "task.md", "--backend", "claude", env=env)
    assert result.returncode == 1, result.stderr


def test_missing_task_file_exits_66(project):
    result = invoke(project, "loop", "--task", "nope.md", "--backend", "claude")
    assert result.returncode == 66
    assert "prompt file not found: nope.md" in result.stderr


def test_no_task_at_all_exits_64(project):
    result = invoke(project, "loop")
    assert result.returncode == 64
    assert "needs a prompt file" in result.stderr


def test_a_task_flag_beats_the_invoke_yaml_args(project, tmp_path):
    """Issue 19 item 2: with args "--backend codex" in invoke.yaml, --backend claude wins."""
    (project / "tasks.py").write_text(NAMESPACED, encoding="utf-8")
    (project / "invoke.yaml").write_text('jlgcli:\n  args: "--backend codex --json"\n',
                                         encoding="utf-8")  # fmt: skip
    result = invoke(project, "jlg.loop", "--task", "task.md", "--backend", "claude")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["backend"] == "claude"


def test_namespaced_collection_with_config_from_invoke_yaml(project, tmp_path):
    (project / "tasks.py").write_text(NAMESPACED, encoding="utf-8")
    (project / "invoke.yaml").write_text('jlgcli:\n  args: "--backend claude --json"\n',
                                         encoding="utf-8")  # fmt: skip
    assert "hello from the user's own task" in invoke(project, "hello").stdout
    result = invoke(project, "jlg.loop", "--task", "task.md")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["backend"] == "claude"


def test_dev_goes_through_the_api_with_seed_003_codes(project):
    # issue 36: `invoke dev` calls jlgcli.api.dev (dev init exists; codes are 0/1/2/3)
    done = invoke(project, "dev", "--args", "init --yes")
    assert done.returncode == 0, done.stderr
    assert (project / "docs" / "implementation-plan.md").is_file()
    assert (project / ".aidevloop.json").is_file()
    bad = invoke(project, "dev", "--args", "resume --from-step 9")
    assert bad.returncode == 2, bad.stderr  # a usage error was 64 before
    assert "9 is out of range; accepted: 1 to 8" in bad.stderr


# --- task defaults from Invoke's config (issue 38) ---------------------------------------
# Before issue 38 only jlgcli.args was read: jlgcli.backend, jlgcli.max_iterations and
# INVOKE_JLGCLI_ARGS were silently ignored.


def test_task_defaults_come_from_invoke_yaml(project, tmp_path):
    (project / "invoke.yaml").write_text(
        "jlgcli:\n  backend: claude\n  max_iterations: 2\n  json: true\n", encoding="utf-8"
    )
    env = script(tmp_path, {"text": "still working"})
    result = invoke(project, "loop", "--task", "task.md", env=env)
    assert result.returncode == 4, result.stderr
    summary = json.loads(result.stdout)
    assert (summary["backend"], summary["iterations"]) == ("claude", 2)


def test_a_task_flag_beats_its_invoke_yaml_default(project):
    (project / "invoke.yaml").write_text(
        "jlgcli:\n  backend: codex\n  task: other.md\n", encoding="utf-8"
    )
    result = invoke(project, "loop", "--task", "task.md", "--backend", "claude", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["backend"] == "claude"


def test_invoke_jlgcli_variables_are_read(project):
    env = {"INVOKE_JLGCLI_ARGS": "--json", "INVOKE_JLGCLI_BACKEND": "claude"}
    result = invoke(project, "loop", "--task", "task.md", env=env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["backend"] == "claude"


def test_an_unknown_invoke_config_key_is_an_error_naming_it(project):
    (project / "invoke.yaml").write_text("jlgcli:\n  max_iteration: 3\n", encoding="utf-8")
    result = invoke(project, "loop", "--task", "task.md", "--backend", "claude")
    assert result.returncode == 64
    assert "jlgcli.max_iteration" in result.stderr
    assert "max_iterations" in result.stderr  # the hint lists the keys
