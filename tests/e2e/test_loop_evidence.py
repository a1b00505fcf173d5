"""Loop truth through the installed ``jlgcli``: gates, cost budget, resume, events (issue 17).

Driven with the scripted fake ``claude`` (tests/fakes, first on PATH), whose
successful turns report ``total_cost_usd`` 0.0123 like the real CLI does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from support.cli import Runner, fake_script

script = fake_script


def prompts_sent(tmp_path: Path) -> list[str]:
    folder = tmp_path / "agent-script.json.prompts"
    return [p.read_text("utf-8") for p in sorted(folder.glob("[0-9][0-9][0-9].txt"))]


@pytest.fixture
def task(tmp_path: Path) -> Path:
    path = tmp_path / "task.md"
    path.write_text("Create ok.txt and make the check pass.\n", encoding="utf-8")
    return path


def test_a_gate_rejects_the_first_done_and_the_next_prompt_carries_its_output(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    gate = (f"{sys.executable} -c \"import pathlib,sys; print('ok.txt is missing'); "
            "sys.exit(0 if pathlib.Path('ok.txt').exists() else 2)\"")  # fmt: skip
    env = script(tmp_path, {"text": "All done.\nDONE"},
                 {"text": "Created it.\nDONE", "files": {"ok.txt": "ok"}})  # fmt: skip
    result = jlg("loop", str(task), "-b", "claude", "--gate", gate, "--json", env=env)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["stopCause"], data["iterations"]) == ("done", 2)
    first, second = data["iterationMetrics"]
    assert first["completion"] == "gates-failed" and first["gates"][0]["exitCode"] == 2
    assert second["gates"][0]["ok"] is True
    assert "ok.txt is missing" in prompts_sent(tmp_path)[1]


def test_max_cost_stops_after_two_calls_with_exit_4(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    env = script(tmp_path, {"text": "still working"})
    result = jlg("loop", str(task), "-b", "claude", "--max-cost", "0.02", "--json", env=env)
    assert result.returncode == 4, result.stderr
    data = json.loads(result.stdout)
    assert (data["stopCause"], data["iterations"]) == ("max-cost", 2)


def test_max_cost_with_a_backend_reporting_no_cost_is_a_usage_error(
    jlg: Runner, task: Path
) -> None:
    result = jlg("loop", str(task), "-b", "codex", "--max-cost", "1")
    assert result.returncode == 64
    assert "codex reports none" in result.stderr


@pytest.mark.parametrize("bad", ["abc", "0", "-1", "nan"])
def test_max_cost_must_be_an_amount(jlg: Runner, task: Path, bad: str) -> None:
    result = jlg("loop", str(task), "-b", "claude", f"--max-cost={bad}")
    assert result.returncode == 64 and "--max-cost" in result.stderr


def test_resume_latest_makes_one_more_call_and_counts_on(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    """Issue 17 done-when: stopped at 2, --resume latest --max-iterations 3 → 3 iterations."""
    env = script(tmp_path, {"text": "part one"}, {"text": "part two"}, {"text": "part three"})
    first = jlg("loop", str(task), "-b", "claude", "--max-iterations", "2", env=env)
    assert first.returncode == 4, first.stderr
    second = jlg("loop", "--resume", "latest", "--max-iterations", "3", "--json", env=env)
    assert second.returncode == 4, second.stderr
    data = json.loads(second.stdout)
    assert data["iterations"] == 3 and data["resumedFrom"]
    assert [m["index"] for m in data["iterationMetrics"]] == [1, 2, 3]
    assert data["costUsd"] == pytest.approx(3 * 0.0123)
    prompts = prompts_sent(tmp_path)
    assert len(prompts) == 3  # exactly one more call
    assert "Create ok.txt" in prompts[2] and "part two" in prompts[2]
    assert "Iteration 3 of 3" in prompts[2]


def test_resume_of_an_unknown_run_is_a_usage_error(jlg: Runner, tmp_path: Path) -> None:
    result = jlg("loop", "--resume", "latest", cwd=tmp_path)
    assert result.returncode == 64 and "no resumable loop run" in result.stderr
    result = jlg("loop", cwd=tmp_path)
    assert result.returncode == 64 and "no prompt file" in result.stderr


def test_events_file_is_a_versioned_stream_from_start_to_end(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    import jsonschema

    schema = json.loads((Path(__file__).parents[2] / "docs" / "schemas" /
                         "events.schema.json").read_text(encoding="utf-8"))  # fmt: skip
    env = script(tmp_path, {"text": "step one"}, {"text": "finished\nDONE"})
    events = tmp_path / "events.jsonl"
    result = jlg("loop", str(task), "-b", "claude", "--events", str(events), env=env)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["type"] == "run-started" and lines[-1]["type"] == "run-ended"
    assert any(line["type"] == "agent-activity" and line.get("kind") == "text" for line in lines)
    for line in lines:
        jsonschema.validate(line, schema)


def test_events_on_stdout_and_json_conflict(jlg: Runner, task: Path) -> None:
    result = jlg("loop", str(task), "-b", "claude", "--events", "-", "--json")
    assert result.returncode == 64 and "--events" in result.stderr


def test_fallback_flag_takes_a_list(jlg: Runner, task: Path, tmp_path: Path) -> None:
    env = script(tmp_path, {"text": "done\nDONE"})
    result = jlg("loop", str(task), "-b", "claude", "--fallback", "codex,gemini", "--json",
                 env=env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    result = jlg("loop", str(task), "-b", "claude", "--fallback", "nope")
    assert result.returncode == 64


def test_claude_at_its_weekly_limit_fails_over_to_codex_and_says_so(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    """Issue 16 done-when: --backend claude --fallback codex --timeout 1h, claude's weekly
    limit resets in 5 days: the loop finishes on codex, exit 0, and says so."""
    env = script(tmp_path, {"error": "far-limit", "reset_in_seconds": 5 * 86400},
                 {"text": "Finished on codex.\nDONE"}, repeat_last=False)  # fmt: skip
    result = jlg("loop", str(task), "--backend", "claude", "--fallback", "codex",
                 "--timeout", "1h", "--json", env=env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["stopCause"] == "done" and data["text"].startswith("Finished on codex")
    (only,) = data["iterationMetrics"]
    assert only["backend"] == "codex"
    assert "claude: rate-limited, resets in 4d" in only["switchReason"]
    assert "switched to codex" in result.stderr
    again = tmp_path / "again"
    again.mkdir()
    env = script(again, {"error": "far-limit", "reset_in_seconds": 5 * 86400},
                 {"text": "ok\nDONE"}, repeat_last=False)  # fmt: skip
    human = jlg("loop", str(task), "--backend", "claude", "--fallback", "codex",
                "--timeout", "1h", env=env)  # fmt: skip
    assert human.returncode == 0, human.stderr
    assert "backend     claude" in human.stderr  # each backend used, in order (issue 31)
    assert "→ codex" in human.stderr


def test_quota_exhausted_without_fallback_stops_with_its_own_cause(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    env = script(tmp_path, {"error": "quota"})
    result = jlg("loop", str(task), "--backend", "codex", "--json", env=env)
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["stopCause"] == "quota-exhausted" and data["iterations"] == 0
    assert "--fallback" in data["error"]["hint"]


@pytest.mark.parametrize("bad", ["abc", "-1", "0"])
def test_a_bad_script_timeout_is_a_usage_error_naming_the_flag(
    jlg: Runner, task: Path, bad: str
) -> None:
    """Issue 15: --script-timeout abc / -1 / 0 exit 64 (0 used to time out every script)."""
    result = jlg("loop", str(task), "-b", "claude", "--completion", "rebound",
                 f"--script-timeout={bad}")  # fmt: skip
    assert result.returncode == 64, result.stderr
    assert "--script-timeout" in result.stderr and "Traceback" not in result.stderr


def test_gates_and_budget_from_the_config(jlg: Runner, task: Path, tmp_path: Path) -> None:
    """Issue 17: the gates / maxCostUsd / fallback keys; gates of a project file need trust."""
    user = tmp_path / "user-config"
    user.mkdir()
    (user / "config.json").write_text('{"maxCostUsd": 0.02}', "utf-8")
    env = {**script(tmp_path, {"text": "still working"}), "JLGCLI_CONFIG_DIR": str(user)}
    result = jlg("loop", str(task), "-b", "claude", "--json", env=env)
    assert result.returncode == 4, result.stderr
    assert json.loads(result.stdout)["stopCause"] == "max-cost"

    project = tmp_path / "project"
    project.mkdir()
    (project / "task.md").write_text("Do it.\n", encoding="utf-8")
    marker = project / "gate-ran"
    gate = f"{sys.executable} -c \"open('gate-ran', 'w')\""
    (project / ".jlgcli.json").write_text(json.dumps({"gates": [gate]}), "utf-8")
    env = {**script(tmp_path, {"text": "DONE"}), "JLGCLI_CONFIG_DIR": str(user)}
    refused = jlg("loop", "task.md", "-b", "claude", cwd=project, env=env)
    assert refused.returncode == 78 and "jlgcli config trust" in refused.stderr
    assert not marker.exists()
    assert jlg("config", "trust", cwd=project, env=env).returncode == 0
    trusted = jlg("loop", "task.md", "-b", "claude", "--json", cwd=project, env=env)
    assert trusted.returncode == 0, trusted.stderr
    assert marker.exists()
