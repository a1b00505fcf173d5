"""Issue 16 "Done when", through the installed ``jlgcli`` and the fake CLIs.

The adapters' classification meets today's run core: a paid overage answer is
kept, a codex retry notice is not a rate limit, a far reset stops at once under
the deadline (75), a bad key or token is exit 6, and claude runs inside a
Claude Code session. Signals come from the fakes' scripts (tests/fakes,
backends.md §8). Failover on quota is the run core's (not tested here).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.cli import Runner, command_runner


@pytest.fixture
def jlg(jlgcli_exe: str, tmp_path: Path) -> Runner:
    return command_runner(lambda: jlgcli_exe, tmp_path, timeout=120)


@pytest.fixture
def task(tmp_path: Path) -> Path:
    path = tmp_path / "task.md"
    path.write_text("Add a slugify helper.\n", encoding="utf-8")
    return path


def script(tmp_path: Path, *turns: dict[str, Any]) -> dict[str, str]:
    path = tmp_path / "agent-script.json"
    path.write_text(json.dumps({"turns": list(turns), "repeat_last": True}), "utf-8")
    # copilot and gemini are probed for a login before the run (no process run for it)
    return {
        "JLGCLI_FAKE_SCRIPT": str(path),
        "GEMINI_API_KEY": "fake-key",
        "COPILOT_GITHUB_TOKEN": "github_pat_fake",
    }


def calls(tmp_path: Path) -> int:
    return len(list((tmp_path / "agent-script.json.prompts").glob("[0-9][0-9][0-9].txt")))


def test_claude_overage_ends_done_with_its_text(jlg: Runner, task: Path, tmp_path: Path) -> None:
    env = script(tmp_path, {"text": "paid answer\nDONE", "signal": "overage"})
    result = jlg("loop", str(task), "-b", "claude", "--json", env=env)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["status"] == "done" and "paid answer" in data["text"]
    assert calls(tmp_path) == 1


def test_codex_hiccup_then_success_is_one_call(jlg: Runner, task: Path, tmp_path: Path) -> None:
    env = script(tmp_path, {"text": "ok\nDONE", "signal": "hiccup"})
    result = jlg("loop", str(task), "-b", "codex", "--json", env=env)
    assert result.returncode == 0, result.stderr
    assert calls(tmp_path) == 1


def test_codex_hiccup_then_context_failure_is_exit_1(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    env = script(tmp_path, {"error": "context", "signal": "hiccup"})
    result = jlg("loop", str(task), "-b", "codex", "--timeout", "1m", "--json", env=env)
    assert result.returncode == 1, result.stderr
    assert calls(tmp_path) <= 2
    assert "context window" in json.loads(result.stdout)["error"]["message"]


def test_gemini_capacity_reset_after_the_deadline_is_75_at_once(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    env = script(tmp_path, {"error": "far-limit", "reset_in_seconds": 19 * 3600 + 14 * 60 + 47})
    result = jlg("loop", str(task), "-b", "gemini", "--timeout", "1h", "--json", env=env)
    assert result.returncode == 75, result.stderr
    assert calls(tmp_path) == 1
    assert "reset" in json.loads(result.stdout)["error"]["message"]


@pytest.mark.parametrize("backend", ["copilot", "gemini", "claude", "codex"])
def test_a_bad_key_or_token_is_exit_6(
    jlg: Runner, task: Path, tmp_path: Path, backend: str
) -> None:
    env = script(tmp_path, {"error": "auth-invalid"})
    result = jlg("run", str(task), "-b", backend, "--json", env=env)
    assert result.returncode == 6, result.stderr
    if backend == "copilot":  # the line that says so, not the login instructions' tail
        message = json.loads(result.stdout)["error"]["message"]
        assert "could not be validated" in message


@pytest.mark.parametrize("backend", ["claude", "codex", "copilot", "gemini"])
def test_an_exhausted_quota_is_not_waited_for(
    jlg: Runner, task: Path, tmp_path: Path, backend: str
) -> None:
    env = script(tmp_path, {"error": "quota"})
    result = jlg("loop", str(task), "-b", backend, "--timeout", "1h", "--json", env=env)
    assert result.returncode not in (0, 75), result.stderr
    assert calls(tmp_path) == 1 and "waiting" not in result.stderr


def test_claude_runs_inside_a_claude_code_session(jlg: Runner, task: Path, tmp_path: Path) -> None:
    env = {**script(tmp_path, {"text": "nested fine\nDONE"}), "CLAUDECODE": "1"}
    result = jlg("loop", str(task), "-b", "claude", env=env)
    assert result.returncode == 0, result.stderr
    assert "nested fine" in result.stdout
