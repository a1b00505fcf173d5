"""The real CLIs as they are today (issue 48), end to end through the fakes.

claude 2.1.332's cumulative cost, its new account states, codex's logged-out hang,
gemini's capacity shortage and the no-progress judge on near-identical replies.
Facts: research/backends.md §8–10; each fixture cites its upstream string.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.cli import Runner, fake_script

SID = "11111111-2222-3333-4444-555555555555"
CLAUDE_NOW = {"JLGCLI_FAKE_VERSION": "2.1.332"}


def argv_of(tmp_path: Path, number: int) -> list[str]:
    path = tmp_path / "agent-script.json.prompts" / f"{number:03d}.argv.json"
    data: list[str] = json.loads(path.read_text("utf-8"))
    return data


def summary(stdout: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(stdout)
    return data


# --- cumulative cost (claude 2.1.277+: total_cost_usd is the session's running total) ----


def test_a_resumed_claude_session_is_counted_once(jlg: Runner, tmp_path: Path) -> None:
    (tmp_path / "task.md").write_text("Add a helper.\n", encoding="utf-8")
    env = fake_script(
        tmp_path,
        {"text": "part 1", "session_id": SID, "cost_usd": 0.01},
        {"text": "part 2\nDONE", "cost_usd": 0.02},
    )  # the results report 0.01 then 0.03: the session's running total
    result = jlg("loop", "task.md", "-b", "claude", "--session", "continue", "--max-cost", "1",
                 "--json", env=env | CLAUDE_NOW)  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = summary(result.stdout)
    assert round(data["costUsd"], 6) == 0.03
    assert [round(m["costUsd"], 6) for m in data["iterationMetrics"]] == [0.01, 0.02]
    second = argv_of(tmp_path, 1)
    # claude gates --max-budget-usd on the session's total: what is left plus what it saved
    assert second[second.index("--max-budget-usd") + 1] == "1.0000"


def test_an_older_claude_reports_each_call_on_its_own(jlg: Runner, tmp_path: Path) -> None:
    (tmp_path / "task.md").write_text("Add a helper.\n", encoding="utf-8")
    env = fake_script(
        tmp_path,
        {"text": "part 1", "session_id": SID, "cost_usd": 0.01},
        {"text": "part 2\nDONE", "cost_usd": 0.02},
    )
    result = jlg("loop", "task.md", "-b", "claude", "--session", "continue", "--json",
                 env=env | {"JLGCLI_FAKE_VERSION": "2.1.197"})  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert round(summary(result.stdout)["costUsd"], 6) == 0.03


def test_a_resumed_run_does_not_count_its_session_again(jlg: Runner, tmp_path: Path) -> None:
    (tmp_path / "task.md").write_text("Add a helper.\n", encoding="utf-8")
    env = (
        fake_script(
            tmp_path,
            {"text": "part 1", "session_id": SID, "cost_usd": 0.01},
            {"text": "part 2\nDONE", "cost_usd": 0.02},
        )
        | CLAUDE_NOW
    )
    first = jlg("loop", "task.md", "-b", "claude", "--session", "continue", "-n", "1", env=env)
    assert first.returncode == 4, first.stderr
    second = jlg("loop", "--resume", "latest", "-n", "2", "--max-cost", "0.05", "--json", env=env)
    assert second.returncode == 0, second.stderr
    assert round(summary(second.stdout)["costUsd"], 6) == 0.03
    argv = argv_of(tmp_path, 1)
    assert argv[argv.index("--max-budget-usd") + 1] == "0.0500"  # 0.04 left + 0.01 saved
