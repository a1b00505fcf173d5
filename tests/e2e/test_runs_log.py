"""Issue 51: what the agent said is kept by default, and `jlgcli runs log` prints it readably.

Through the installed console script with the fake agent CLIs (tests/fakes: their
stream formats are research/backends.md's — claude and gemini stream-json, codex
--json, copilot's JSON events) and a plain command backend: a loop started without
--artifacts keeps its transcript; `runs log latest` prints the agent's text and one
line per tool call, never JSON nor a control sequence; `--iteration`, `--follow`,
`--json`; `--no-transcript` and the `transcript` key keep none; secrets stay masked.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.canaries import CANARIES, KEY
from support.canaries import leaks as _leaks
from support.cli import Runner, fake_script, task_project

LOGINS = {"GEMINI_API_KEY": "fake-gemini-login", "COPILOT_GITHUB_TOKEN": "github_pat_test"}
FIRST = {"text": "First I look around the code.\nstill going", "files": {"notes.txt": "x"}}
SECOND = {"text": "All good now, the tests pass.\nDONE"}


def _run_folders(project: Path) -> list[Path]:
    root = project / ".jlgcli" / "runs"
    return sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


@pytest.mark.parametrize("backend", ["claude", "codex", "gemini", "copilot"])
def test_runs_log_latest_prints_what_the_agent_said_in_a_run_started_without_flags(
    jlg: Runner, tmp_path: Path, backend: str
) -> None:
    project = task_project(tmp_path, "Tidy the notes.\n")
    env = {**fake_script(tmp_path, FIRST, SECOND), **LOGINS}
    loop = jlg("loop", "task.md", "-b", backend, "--permissions", "full", cwd=project, env=env)
    assert loop.returncode == 0, loop.stderr
    (folder,) = _run_folders(project)
    assert (folder / "transcript.ndjson").is_file()  # kept without --artifacts
    assert not (folder / "meta.json").exists()  # what --artifacts adds is not written

    log = jlg("runs", "log", "latest", cwd=project)
    assert log.returncode == 0, log.stderr
    lines = log.stdout.splitlines()
    assert "First I look around the code." in lines
    assert "All good now, the tests pass." in lines
    assert [line.split(" · ")[0] for line in lines if line.startswith("── iteration")] == [
        "── iteration 1",
        "── iteration 2",
    ]
    assert any("notes.txt" in line for line in lines)  # the tool call (or edit), one line
    assert not [line for line in lines if line.lstrip().startswith("{") or '"type"' in line]
    assert "\x1b" not in log.stdout

    only = jlg("runs", "log", "latest", "--iteration", "2", cwd=project)
    assert only.returncode == 0, only.stderr
    assert "All good now, the tests pass." in only.stdout
    assert "First I look around" not in only.stdout

    entries = [json.loads(line) for line in jlg("runs", "log", "latest", "--json",
                                                cwd=project).stdout.splitlines()]  # fmt: skip
    assert {"iteration": 1, "text": "First I look around the code."} in entries


def test_a_command_backend_s_output_is_logged_without_control_sequences(
    jlg: Runner, tmp_path: Path
) -> None:
    project = task_project(tmp_path, "Say hi.\n")
    agent = tmp_path / "agent.py"
    agent.write_text(
        "import sys\nsys.stdin.read()\n"
        "print('\\x1b]52;c;ZXZpbA==\\x07hello \\x1b[31mred\\x1b[0m\\x1b[2J there')\n"
        "print('DONE')\n",
        encoding="utf-8",
    )
    _user_config({"backends": {"plain": {"argv": [sys.executable, str(agent)],
                                         "prompt": "stdin"}}})  # fmt: skip
    assert jlg("loop", "task.md", "-b", "plain", cwd=project).returncode == 0
    log = jlg("runs", "log", "latest", cwd=project)
    assert log.returncode == 0, log.stderr
    assert "hello red there" in log.stdout.splitlines()
    assert "\x1b" not in log.stdout and "\x07" not in log.stdout


def test_secrets_in_the_agent_s_output_are_masked_in_the_log(jlg: Runner, tmp_path: Path) -> None:
    project = task_project(tmp_path, "Fix the deploy.\n")
    said = "Found these:\n" + "\n".join(CANARIES.values()) + f"\nand {KEY}\nDONE"
    loop = jlg("loop", "task.md", "-b", "claude", cwd=project,
               env=fake_script(tmp_path, {"text": said}))  # fmt: skip
    assert loop.returncode == 0, loop.stderr
    (folder,) = _run_folders(project)
    assert not _leaks((folder / "transcript.ndjson").read_text("utf-8"))
    log = jlg("runs", "log", "latest", cwd=project)
    assert log.returncode == 0, log.stderr
    assert "Found these:" in log.stdout and "[REDACTED]" in log.stdout
    assert not _leaks(log.stdout + log.stderr)


def test_no_transcript_flag_and_config_key_keep_none(jlg: Runner, tmp_path: Path) -> None:
    project = task_project(tmp_path, "Do it.\n")
    env = fake_script(tmp_path, SECOND)
    assert jlg("loop", "task.md", "-b", "claude", "--no-transcript", cwd=project,
               env=env).returncode == 0  # fmt: skip
    assert jlg("config", "set", "transcript", "false").returncode == 0
    assert jlg("run", "task.md", "-b", "claude", cwd=project, env=env).returncode == 0
    folders = _run_folders(project)
    assert folders and not [f for f in folders if (f / "transcript.ndjson").exists()]
    missing = jlg("runs", "log", "latest", cwd=project)
    assert missing.returncode == 64
    assert "kept no transcript" in missing.stderr and "--no-transcript" in missing.stderr


def test_a_one_shot_run_keeps_its_transcript_and_how_it_ended(jlg: Runner, tmp_path: Path) -> None:
    project = task_project(tmp_path, "Answer.\n")
    env = fake_script(tmp_path, {"text": "The answer is 42."})
    assert jlg("run", "task.md", "-b", "claude", cwd=project, env=env).returncode == 0
    (folder,) = _run_folders(project)
    assert json.loads((folder / "result.json").read_text("utf-8"))["status"] == "done"
    listed = jlg("runs", "--json", cwd=project)
    assert [r["status"] for r in json.loads(listed.stdout)["runs"]] == ["done"]
    assert "The answer is 42." in jlg("runs", "log", "latest", cwd=project).stdout


def test_runs_show_has_the_table_of_iterations(jlg: Runner, tmp_path: Path) -> None:
    project = task_project(tmp_path, "Tidy.\n")
    env = fake_script(tmp_path, FIRST, SECOND)
    assert jlg("loop", "task.md", "-b", "claude", cwd=project, env=env).returncode == 0
    shown = jlg("runs", "show", "latest", cwd=project, env={"COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    header = lines.index(next(line for line in lines if line.startswith("#  DURATION")))
    assert lines[header].split() == ["#", "DURATION", "BACKEND", "TOKENS", "COST",
                                     "FILES", "(+/−)", "GATES"]  # fmt: skip
    rows = [line.split() for line in lines[header + 1 :]]
    assert [row[0] for row in rows] == ["1", "2"] and rows[0][2] == "claude"
    table = json.loads(jlg("runs", "show", "latest", "--json", cwd=project).stdout)
    assert [row["iteration"] for row in table["iterationTable"]] == [1, 2]
    assert table["iterationTable"][0]["costUsd"] == 0.0123


def test_follow_prints_a_running_loop_until_it_ends(jlgcli_exe: str, tmp_path: Path) -> None:
    project = task_project(tmp_path, "Wait for the signal.\n")
    release = tmp_path / "release"
    agent = tmp_path / "agent.py"
    agent.write_text(  # iteration 1 waits for the test's signal, then says DONE
        "import os, sys, time\nsys.stdin.read()\n"
        "print('first part', flush=True)\n"
        f"while not os.path.exists({str(release)!r}):\n    time.sleep(0.05)\n"
        "print('second part', flush=True)\nprint('DONE', flush=True)\n",
        encoding="utf-8",
    )
    _user_config({"backends": {"slow": {"argv": [sys.executable, str(agent)],
                                        "prompt": "stdin"}}})  # fmt: skip
    exe = jlgcli_exe
    loop = subprocess.Popen([exe, "loop", "task.md", "-b", "slow"], cwd=project,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    follow: subprocess.Popen[str] | None = None
    try:
        _wait_for(lambda: any(b"first part" in _transcript(f) for f in _run_folders(project)))
        follow = subprocess.Popen([exe, "runs", "log", "latest", "--follow"], cwd=project,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  encoding="utf-8")  # fmt: skip
        assert follow.stdout is not None
        assert follow.stdout.readline().startswith("── iteration 1")
        assert follow.stdout.readline().strip() == "first part"  # shown while it runs
        assert loop.poll() is None
        release.write_text("go", encoding="utf-8")
        out, err = follow.communicate(timeout=120)  # ends by itself when the loop ends
        assert follow.returncode == 0, err
        assert "second part" in out.splitlines() and "DONE" in out.splitlines()
        assert loop.wait(timeout=120) == 0
    finally:
        release.write_text("go", encoding="utf-8")
        for process in (loop, follow):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()


def _transcript(folder: Path) -> bytes:
    try:
        return (folder / "transcript.ndjson").read_bytes()
    except OSError:
        return b""


def _wait_for(condition: object, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _user_config(data: dict[str, object]) -> None:
    config = Path(os.environ["JLGCLI_CONFIG_DIR"]) / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps(data), encoding="utf-8")
