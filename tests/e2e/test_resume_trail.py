"""`jlgcli loop --resume` through the installed console script: state is input (issue 31).

A ``state.json`` read back from disk is validated, supplies the task, counters,
session and last report only, and never decides what runs, with which rights or
where (DESIGN "state is input"; STYLE habit 14). Driven with the scripted fake
``claude`` (tests/fakes), which records each call's prompt and argv.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.cli import Runner, fake_script
from support.environ import without_coverage

script = fake_script
PLANTED = "99991231T000000Z-aaaaaa"


def prompts(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "agent-script.json.prompts").glob("[0-9][0-9][0-9].txt"))


def argv_of(tmp_path: Path, number: int) -> list[str]:
    path = tmp_path / "agent-script.json.prompts" / f"{number:03d}.argv.json"
    data: list[str] = json.loads(path.read_text("utf-8"))
    return data


def state_file(project: Path, run_id: str) -> Path:
    return project / ".jlgcli" / "runs" / run_id / "state.json"


def plant(project: Path, run_id: str, data: Any) -> Path:
    path = state_file(project, run_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def planted_state(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "run_id": PLANTED, "task": "Write made.txt.", "prompt_source": "task.md",
        "backend": "claude", "completion_mode": "marker", "options": {}, "iterations": 0,
        "elapsed_ms": 0, "cost_usd": None, "session_id": None, "last_report": "",
        "stop_cause": None, "metrics": [], "version": 1,
    }  # fmt: skip
    data.update(changes)
    return data


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A committed git repository holding a planted resume state (issue 31)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    project = tmp_path / "repo"
    project.mkdir()
    (tmp_path / "elsewhere").mkdir()
    touch = f"{sys.executable} -c \"open(r'{tmp_path / 'PWNED'}', 'w')\""  # touch, anywhere
    plant(project, PLANTED, planted_state(options={
        "gates": [touch], "permissions": "full",
        "cwd": str(tmp_path / "elsewhere"), "completionMode": "json",
    }))  # fmt: skip
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for args in (["init", "-q"], ["add", "-A", "-f"], ["commit", "-q", "-m", "planted"]):
        subprocess.run([*git, *args], cwd=project, check=True, capture_output=True)
    return project


# --- a planted state in a committed repository ----------------------------------------


def test_resume_latest_never_picks_a_planted_state(jlg: Runner, repo: Path, tmp_path: Path) -> None:
    # issue 31: `latest` was the highest directory name, so a shipped 9999… run won
    env = script(tmp_path, {"text": "ok\nDONE"})
    result = jlg("loop", "--resume", "latest", "-b", "claude", cwd=repo, env=env)
    assert result.returncode == 64, result.stderr
    assert "no resumable loop run started by you" in result.stderr
    assert not (tmp_path / "PWNED").exists()
    assert prompts(tmp_path) == []


def test_a_planted_state_gives_the_task_but_no_gates_rights_or_folder(
    jlg: Runner, repo: Path, tmp_path: Path
) -> None:
    # issue 31: gates, permissions and cwd came from the file; now only the task does
    env = script(tmp_path, {"text": "made it\nDONE", "files": {"made.txt": "ok"}})
    result = jlg("loop", "--resume", PLANTED, "-b", "claude", "--json", cwd=repo, env=env)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["stopCause"], data["resumedFrom"]) == ("done", PLANTED)
    assert not (tmp_path / "PWNED").exists()  # the recorded gate never ran
    argv = argv_of(tmp_path, 0)
    assert "bypassPermissions" not in argv and "--dangerously-skip-permissions" not in argv
    assert (repo / "made.txt").exists() and not (tmp_path / "elsewhere" / "made.txt").exists()
    assert "Write made.txt." in prompts(tmp_path)[0].read_text("utf-8")
    for key in ("gates", "permissions", "cwd", "completionMode"):
        assert f"recorded {key}" in result.stderr and "not read back" in result.stderr
    assert data["completionMode"] == "marker"


# --- a damaged state: 65 naming the file and the field, never 70 ----------------------


@pytest.mark.parametrize(
    ("damage", "named"),
    [
        ([1, 2, 3], "top level"),
        (None, "top level"),
        (planted_state(options=[1]), "'options'"),
        (planted_state(options={"gates": 5}), "'options.gates'"),
        (planted_state(task=42), "'task'"),
        (planted_state(elapsed_ms="x"), "'elapsed_ms'"),
        (planted_state(metrics=[1, "a", None]), "'metrics[0]'"),
        (planted_state(options={"cwd": 5}), "'options.cwd'"),
        (planted_state(options={"permissions": "root"}), "'options.permissions'"),
        (planted_state(options={"timeoutMs": 5}), "'options.timeoutMs'"),
    ],
)
def test_a_damaged_state_is_65_naming_the_file_and_the_field(
    jlg: Runner, tmp_path: Path, damage: Any, named: str
) -> None:
    # issue 31: these were 70 "this is a bug" with a crash log, or named --timeout
    path = plant(tmp_path, PLANTED, damage)
    env = script(tmp_path, {"text": "ok\nDONE"})
    result = jlg("loop", "--resume", PLANTED, "-b", "claude", env=env)
    assert result.returncode == 65, result.stderr
    assert str(path) in result.stderr and named in result.stderr
    assert "bug" not in result.stderr and "--timeout" not in result.stderr
    assert prompts(tmp_path) == []


def test_a_state_that_is_not_json_is_65(jlg: Runner, tmp_path: Path) -> None:
    path = state_file(tmp_path, PLANTED)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"{\xff")
    result = jlg("loop", "--resume", PLANTED, "-b", "claude")
    assert result.returncode == 65 and str(path) in result.stderr


# --- what resume refuses ----------------------------------------------------------------


def test_resume_refuses_a_run_that_ended_done(jlg: Runner, tmp_path: Path) -> None:
    # issue 31: resuming a done run silently made new paid calls
    (tmp_path / "task.md").write_text("Say done.\n", encoding="utf-8")
    env = script(tmp_path, {"text": "ok\nDONE"})
    assert jlg("loop", "task.md", "-b", "claude", env=env).returncode == 0
    again = jlg("loop", "--resume", "latest", env=env)
    assert again.returncode == 64, again.stderr
    assert "ended done" in again.stderr and "nothing to resume" in again.stderr
    assert len(prompts(tmp_path)) == 1  # no second agent call


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_resume_refuses_a_run_that_is_still_running(
    jlgcli_exe: str, jlg: Runner, tmp_path: Path
) -> None:
    # issue 31: `--resume latest` while the run went on started a second agent on the tree
    (tmp_path / "task.md").write_text("Work.\n", encoding="utf-8")
    selected = script(tmp_path, {"text": "step one"}, {"hang": True})
    env = without_coverage()  # signalled: not measured (support/environ.py says why)
    env.update(selected)
    live = subprocess.Popen(
        [jlgcli_exe, "loop", "task.md", "-b", "claude"], cwd=tmp_path, env=env,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        marker = tmp_path / "agent-script.json.prompts" / "001.txt"
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)  # polling for the marker the fake writes, not a fixed wait
        assert marker.exists(), "the fake never received the second prompt"
        again = jlg("loop", "--resume", "latest", env=selected)
        assert again.returncode == 64, again.stderr
        assert "still running" in again.stderr
        assert len(prompts(tmp_path)) == 2  # no third call
    finally:
        live.send_signal(signal.SIGINT)
        _, err = live.communicate(timeout=60)
    assert live.returncode == 130
    run_id = json.loads(next((tmp_path / ".jlgcli" / "runs").glob("*/state.json"))
                        .read_text("utf-8"))["run_id"]  # fmt: skip
    assert f"jlgcli loop --resume {run_id}" in err  # the hint after Ctrl-C (issue 31)
    state = json.loads(state_file(tmp_path, run_id).read_text("utf-8"))
    assert state["stop_cause"] == "interrupted"


# --- what resume carries over (tests that catch the mutations, STYLE habit 16) ----------


def test_resume_keeps_the_recorded_session_mode_and_session_id(jlg: Runner, tmp_path: Path) -> None:
    # issue 31: --session had a default ("fresh") that always beat the recorded mode
    (tmp_path / "task.md").write_text("Add a helper.\n", encoding="utf-8")
    sid = "11111111-2222-3333-4444-555555555555"
    env = script(tmp_path, {"text": "part 1", "session_id": sid}, {"text": "part 2\nDONE"})
    first = jlg("loop", "task.md", "-b", "claude", "--session", "continue", "-n", "1", env=env)
    assert first.returncode == 4, first.stderr
    assert "jlgcli loop --resume " in first.stderr and "--max-iterations 2" in first.stderr
    second = jlg("loop", "--resume", "latest", "-n", "2", "--json", env=env)
    assert second.returncode == 0, second.stderr
    argv = argv_of(tmp_path, 1)
    assert argv[argv.index("--resume") + 1] == sid  # the session id was carried over
    assert "Add a helper." not in prompts(tmp_path)[1].read_text("utf-8")  # not restated
    assert json.loads(second.stdout)["sessionId"] == sid


def test_resume_carries_the_elapsed_time_against_the_timeout(jlg: Runner, tmp_path: Path) -> None:
    (tmp_path / "task.md").write_text("Add a helper.\n", encoding="utf-8")
    env = script(tmp_path, {"text": "part 1"})
    first = jlg("loop", "task.md", "-b", "claude", "-n", "1", "--json", env=env)
    run_id = json.loads(first.stdout)["runId"]
    path = state_file(tmp_path, run_id)
    state = json.loads(path.read_text("utf-8"))
    state["elapsed_ms"] = 2 * 3_600_000  # two hours spent before
    path.write_text(json.dumps(state), encoding="utf-8")
    second = jlg("loop", "--resume", run_id, "-n", "5", "--timeout", "1h", "--json", env=env)
    assert second.returncode == 75, second.stderr
    data = json.loads(second.stdout)
    assert data["stopCause"] == "timeout" and data["durationMs"] >= 2 * 3_600_000
    assert len(prompts(tmp_path)) == 1  # the hour was already spent: no call
    assert f"--resume {data['runId']} --timeout" in data["error"]["hint"]


def test_resume_sends_the_last_report_and_keeps_a_stricter_recorded_budget(
    jlg: Runner, tmp_path: Path
) -> None:
    (tmp_path / "task.md").write_text("Add a helper.\n", encoding="utf-8")
    env = script(tmp_path, {"text": "part one"}, {"text": "part two"}, {"text": "part three"})
    first = jlg("loop", "task.md", "-b", "claude", "-n", "1", "--max-cost", "0.02", env=env)
    assert first.returncode == 4, first.stderr
    second = jlg("loop", "--resume", "latest", "-n", "5", "--json", env=env)
    assert second.returncode == 4, second.stderr
    data = json.loads(second.stdout)
    assert data["stopCause"] == "max-cost"  # the recorded --max-cost 0.02 still holds
    assert data["iterations"] == 2
    assert "part one" in prompts(tmp_path)[1].read_text("utf-8")  # the last report
