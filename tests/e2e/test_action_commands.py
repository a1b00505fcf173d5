"""Issue 33: what the model writes never reaches the Actions runner's command parser.

The Action's door (``python -m jlgcli.integrations.action``, what ``action.yml``
runs) with the scripted fake claude replying ``::error::x``, ``::add-mask::…`` and
``::stop-commands::…`` lines. Both streams go to one pipe, in the order written,
and ``obeyed`` reads them the way the runner does: it honours
``::stop-commands::TOKEN`` until ``::TOKEN::`` and obeys every other ``::cmd::``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from support.environ import tool_environ

COMMAND = re.compile(r"^::([a-z-]+)(?: [^:]*)?::(.*)$")


def obeyed(log: str) -> list[tuple[str, str]]:
    """The workflow commands a runner would act on in ``log`` (a tiny stand-in for its parser)."""
    found: list[tuple[str, str]] = []
    stopped: str | None = None
    for line in log.splitlines():
        if stopped is not None:
            if line == f"::{stopped}::":
                stopped = None
            continue
        match = COMMAND.match(line)
        if match is None:
            continue
        name, value = match.groups()
        if name == "stop-commands":
            stopped = value
        else:
            found.append((name, value))
    return found


def test_the_stand_in_parser_obeys_what_is_not_stopped() -> None:
    log = "::error::a\n::stop-commands::t\n::error::b\n::t::\n::warning title=x::c\n"
    assert obeyed(log) == [("error", "a"), ("warning", "c")]


def _action(tmp_path: Path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], str]:
    summary = tmp_path / "step_summary.md"
    result = subprocess.run(
        [sys.executable, "-m", "jlgcli.integrations.action"],
        cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, timeout=120,
        env=tool_environ(GITHUB_ACTIONS="true", GITHUB_OUTPUT=str(tmp_path / "out"),
                         GITHUB_STEP_SUMMARY=str(summary), **env),
    )  # fmt: skip
    return result, summary.read_text("utf-8") if summary.exists() else ""


def test_a_models_workflow_commands_are_not_obeyed(tmp_path: Path) -> None:
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    text = "::error::x\n::add-mask::everything\n::stop-commands::mine\n::error::y\nDONE"
    script = tmp_path / "fake.json"
    script.write_text(json.dumps({"turns": [{"text": text}]}), encoding="utf-8")
    env = {"JLGCLI_FAKE_SCRIPT": str(script), "JLG_PROMPT_FILE": "task.md",
           "JLG_BACKEND": "claude", "JLG_COMMAND": "run", "JLG_ARGS": "-v"}  # fmt: skip
    result, _summary = _action(tmp_path, env)
    assert result.returncode == 0, result.stdout
    assert "::error::x" in result.stdout  # the text is in the log…
    assert obeyed(result.stdout) == []  # …and the runner acted on none of it


def test_bad_inputs_get_a_job_summary_too(tmp_path: Path) -> None:
    result, summary = _action(tmp_path, {"JLG_COMMAND": "deploy"})
    assert result.returncode == 64, result.stdout
    assert summary.startswith("### ❌ jlgcli: the run did not start")
    assert "unknown command 'deploy'" in summary


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``jlgcli ARGS`` as a user's own workflow step runs it: both streams in one log."""
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    text = "::error::x\n::add-mask::everything\n::stop-commands::mine\n::error::y\nDONE"
    script = tmp_path / "fake.json"
    script.write_text(json.dumps({"turns": [{"text": text}]}), encoding="utf-8")
    jlgcli = str(Path(sys.executable).parent / "jlgcli")
    return subprocess.run(
        [jlgcli, *args], cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, timeout=120,
        env=tool_environ(GITHUB_ACTIONS="true", GITHUB_OUTPUT=str(tmp_path / "out"),
                         GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"),
                         JLGCLI_FAKE_SCRIPT=str(script)),
    )  # fmt: skip


def test_in_a_users_own_step_jlgcli_run_stops_the_models_commands_too(tmp_path: Path) -> None:
    result = _cli(tmp_path, "run", "task.md", "-b", "claude", "-v")
    assert result.returncode == 0, result.stdout
    assert "::error::x" in result.stdout
    assert obeyed(result.stdout) == []


def test_with_json_the_marks_go_to_stderr_and_stdout_stays_one_document(tmp_path: Path) -> None:
    result = _cli(tmp_path, "loop", "task.md", "-b", "claude", "--json", "-v")
    assert result.returncode == 0, result.stdout
    assert "::error::x" in result.stdout
    assert obeyed(result.stdout) == []
    split = subprocess.run(  # the same, stdout alone: what `out=$(jlgcli … --json)` reads
        [str(Path(sys.executable).parent / "jlgcli"), "loop", "task.md", "-b", "claude", "--json"],
        cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
        env=tool_environ(GITHUB_ACTIONS="true", JLGCLI_FAKE_SCRIPT=str(tmp_path / "fake.json")),
    )  # fmt: skip
    assert json.loads(split.stdout)["status"] == "done"
    assert "::stop-commands::" in split.stderr


def test_the_hook_in_a_users_own_step_stops_the_models_commands_too(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    _git(tmp_path, "add", "a.py")
    result = _cli(tmp_path, "hook", "-b", "claude", "--completion", "marker", "-v")
    assert "::error::x" in result.stdout, result.stdout
    assert obeyed(result.stdout) == []


def _git(folder: Path, *args: str) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(folder)]
    subprocess.run([*git, *args], check=True, env=tool_environ())


def _repository_with_a_second_task(folder: Path) -> None:
    _git(folder, "init", "-q")
    _git(folder, "commit", "-q", "--allow-empty", "-m", "i")
    (folder / "other.md").write_text("Do that.\n", encoding="utf-8")


def test_a_batch_in_a_users_own_step_stops_the_models_commands_too(tmp_path: Path) -> None:
    _repository_with_a_second_task(tmp_path)
    result = _cli(tmp_path, "loop", "task.md", "other.md", "-j", "2", "-b", "claude", "-v")
    assert result.returncode == 0, result.stdout
    assert "::stop-commands::" in result.stdout
    assert obeyed(result.stdout) == []


def test_a_batch_in_actions_writes_one_set_of_outputs_and_one_summary(tmp_path: Path) -> None:
    # issue 37: each task's loop published its own outputs (the last one won) and summary
    _repository_with_a_second_task(tmp_path)
    result = _cli(tmp_path, "loop", "task.md", "other.md", "-j", "2", "-b", "claude")
    assert result.returncode == 0, result.stdout
    outputs = (tmp_path / "out").read_text("utf-8").splitlines()
    assert [line for line in outputs if line.startswith("status")] == ["status=done"]
    assert "exit-code=0" in outputs
    (tasks,) = [line.removeprefix("tasks=") for line in outputs if line.startswith("tasks=")]
    assert [(t["id"], t["status"], t["exitCode"]) for t in json.loads(tasks)] == [
        ("task", "done", 0),
        ("other", "done", 0),
    ]
    summary = (tmp_path / "summary.md").read_text("utf-8")
    assert summary.count("jlgcli batch") == 1
    assert "| task | done | 1 |" in summary and "| other | done | 1 |" in summary
