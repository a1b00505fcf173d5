"""The real CLIs as they are today (issue 48), end to end through the fakes.

claude 2.1.332's cumulative cost, its new account states, codex's logged-out hang,
gemini's capacity shortage and the no-progress judge on near-identical replies.
Facts: research/backends.md §8–10; each fixture cites its upstream string.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
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


def unauthenticated(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The --json summary of a run that ended 6, backend-unauthenticated."""
    assert result.returncode == 6, result.stderr
    data = summary(result.stdout)
    assert data["stopCause"] == "backend-unauthenticated"
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


# --- account, credit and capacity states (backends.md §10) -------------------------------------


@pytest.mark.parametrize(
    ("error", "version", "reason"),
    [
        # 2.0.x sends the text alone, 2.1.x adds error "billing_error": a quota either way
        ("credit-low", "2.0.76", "quota or credit used up"),
        ("credit-low", "2.1.332", "quota or credit used up"),
        ("account-on-hold", "2.1.332", "its account needs you"),
    ],
)
def test_credit_and_account_states_hand_over_to_the_fallback(
    jlg: Runner, tmp_path: Path, error: str, version: str, reason: str
) -> None:
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    env = fake_script(tmp_path, {"error": error}, {"text": "ok\nDONE"})
    result = jlg("loop", "task.md", "-b", "claude", "--fallback", "codex", "--json",
                 env=env | {"JLGCLI_FAKE_VERSION": version})  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = summary(result.stdout)
    assert [m["backend"] for m in data["iterationMetrics"]] == ["codex"]
    assert reason in data["iterationMetrics"][0]["switchReason"]


def test_an_account_on_hold_without_a_fallback_is_6_with_the_appeal_link(
    jlg: Runner, tmp_path: Path
) -> None:
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    env = fake_script(tmp_path, {"error": "account-on-hold"})
    data = unauthenticated(jlg("loop", "task.md", "-b", "claude", "--json", env=env | CLAUDE_NOW))
    assert "https://claude.ai/restricted" in data["error"]["hint"]


@pytest.mark.slow
def test_an_assistant_overloaded_is_backed_off_and_retried(jlg: Runner, tmp_path: Path) -> None:
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    env = fake_script(tmp_path, {"error": "overloaded"}, {"text": "ok\nDONE"})
    result = jlg("loop", "task.md", "-b", "claude", "--json", env=env | CLAUDE_NOW)
    assert result.returncode == 0, result.stderr
    data = summary(result.stdout)
    assert [m["backend"] for m in data["iterationMetrics"]] == ["claude"]
    assert "overloaded, retry in" in result.stderr
    assert len(list((tmp_path / "agent-script.json.prompts").glob("*.txt"))) == 2


@pytest.mark.slow
def test_gemini_no_capacity_is_retried_on_gemini(jlg: Runner, tmp_path: Path) -> None:
    # MODEL_CAPACITY_EXHAUSTED raised as TerminalQuotaError: a back-off, not a handover
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    env = fake_script(tmp_path, {"error": "no-capacity"}, {"text": "ok\nDONE"})
    result = jlg("loop", "task.md", "-b", "gemini", "--fallback", "claude", "--json",
                 env=env | {"GEMINI_API_KEY": "k"})  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = summary(result.stdout)
    assert [m["backend"] for m in data["iterationMetrics"]] == ["gemini"]
    assert "overloaded, retry in" in result.stderr


# --- no progress judged on what changed, not on exact text --------------------------------------


def test_near_identical_short_replies_stop_with_5(jlg: Runner, tmp_path: Path) -> None:
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    turns = [{"text": f"Working on it (step 1 of many){mark}"} for mark in ".!?;:"]
    env = fake_script(tmp_path, *turns)
    result = jlg("loop", "task.md", "-b", "claude", "--no-progress-limit", "2", "--json", env=env)
    assert result.returncode == 5, result.stderr
    data = summary(result.stdout)
    assert (data["stopCause"], data["iterations"]) == ("no-progress", 3)


def test_a_moving_counter_is_progress(jlg: Runner, tmp_path: Path) -> None:
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    turns = [{"text": f"Working on file {k} of 7."} for k in range(1, 5)]
    env = fake_script(tmp_path, *turns, {"text": "all 7 done\nDONE"})
    result = jlg("loop", "task.md", "-b", "claude", "--no-progress-limit", "2", "--json", env=env)
    assert result.returncode == 0, result.stderr


# --- a logged-out codex: found beside the call, not before it ----------------------------------


@pytest.mark.parametrize("command", ["run", "loop"])
def test_a_logged_out_codex_is_6_not_a_timeout(jlg: Runner, tmp_path: Path, command: str) -> None:
    # the fake hangs like codex 0.171.0 logged out; the run's timeout is far away
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    env = fake_script(tmp_path, {"text": "ok\nDONE"}) | {"JLGCLI_FAKE_LOGGED_OUT": "1"}
    result = jlg(command, "task.md", "-b", "codex", "--timeout", "10m", "--json", env=env)
    assert "codex login" in unauthenticated(result)["error"]["hint"]


def test_the_codex_login_check_is_not_on_the_calls_path(jlg: Runner, tmp_path: Path) -> None:
    # a status check that never answers does not hold the call back
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    turn = {"text": "ok\nDONE", "delay_seconds": 2.5}  # the check starts 1 s into the call
    env = fake_script(tmp_path, turn) | {"JLGCLI_FAKE_LOGIN_HANG": "1"}
    result = jlg("loop", "task.md", "-b", "codex", "--json", env=env)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr  # the check stopped with the call, quietly
    assert (tmp_path / "agent-script.json.login-checks").read_text("utf-8").count("codex") == 1


def test_codex_with_stored_credentials_is_not_checked(jlg: Runner, tmp_path: Path) -> None:
    # what `codex login status` reads first: $CODEX_HOME/auth.json (codex-rs/cli/src/login.rs)
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "auth.json").write_text('{"OPENAI_API_KEY": null}', encoding="utf-8")
    env = fake_script(tmp_path, {"text": "ok\nDONE"}) | {"CODEX_HOME": str(home)}
    result = jlg("loop", "task.md", "-b", "codex", "--json", env=env)
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "agent-script.json.login-checks").exists()


@pytest.mark.parametrize("command", ["run", "loop"])
def test_a_logged_out_claude_spends_no_iteration(jlg: Runner, tmp_path: Path, command: str) -> None:
    # issue 49: a loop counted the refused call as iteration 1 at "cost $0.0000"
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    env = {"JLGCLI_FAKE_LOGGED_OUT": "1"}
    result = jlg(command, "task.md", "-b", "claude", "--json", env=env)
    assert result.returncode == 6, result.stderr
    data = summary(result.stdout)
    assert (data["iterations"], data["costUsd"], data["iterationMetrics"]) == (0, None, [])
    human = jlg(command, "task.md", "-b", "claude", env=env)
    assert human.returncode == 6 and "$0.0000" not in human.stderr
    assert "claude auth login" in human.stderr


# --- a Node too old for the installed claude -------------------------------------------------


def npm_claude(tmp_path: Path, fake_bin: Path, *, node: str, engines: str) -> dict[str, str]:
    """claude installed by npm under a prefix (bin/claude beside lib/node_modules/…) and a
    ``node`` answering ``node``: 2.1.332's package.json says ``engines.node >=22.0.0``."""
    import os
    import shutil

    prefix = tmp_path / "npm"
    package = prefix / "lib" / "node_modules" / "@anthropic-ai" / "claude-code"
    package.mkdir(parents=True)
    manifest = {"name": "@anthropic-ai/claude-code", "version": "2.1.332",
                "engines": {"node": engines}}  # fmt: skip
    (package / "package.json").write_text(json.dumps(manifest), encoding="utf-8")
    (prefix / "bin").mkdir()
    shutil.copy2(fake_bin / "claude", prefix / "bin" / "claude")
    (prefix / "bin" / "node").write_text(f"#!/bin/sh\necho {node}\n", encoding="utf-8")
    (prefix / "bin" / "node").chmod(0o755)
    return {"PATH": f"{prefix / 'bin'}{os.pathsep}{os.environ['PATH']}"}


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX npm prefix and a sh node")
def test_backends_and_doctor_name_a_node_too_old(
    jlg: Runner, tmp_path: Path, fake_bin: Path
) -> None:
    env = npm_claude(tmp_path, fake_bin, node="v20.20.2", engines=">=22.0.0")
    done = jlg("backends", "--json", env=env)
    assert done.returncode == 0, done.stderr
    claude = next(b for b in summary(done.stdout)["backends"] if b["id"] == "claude")
    assert claude["version"] == "2.1.332"
    assert "needs Node ≥ 22.0.0" in claude["detail"] and "20.20.2" in claude["detail"]
    assert "upgrade Node.js to 22" in claude["hint"]
    doctor = jlg("doctor", "--json", env=env)
    check = next(c for c in summary(doctor.stdout)["checks"] if c["name"] == "claude")
    assert check["status"] == "warn" and "needs Node" in check["summary"]


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX npm prefix and a sh node")
def test_a_node_new_enough_says_nothing(jlg: Runner, tmp_path: Path, fake_bin: Path) -> None:
    env = npm_claude(tmp_path, fake_bin, node="v22.11.0", engines=">=22.0.0")
    done = jlg("backends", "--json", env=env)
    claude = next(b for b in summary(done.stdout)["backends"] if b["id"] == "claude")
    assert "Node" not in claude["detail"] and not claude.get("hint")


# --- what the CLIs now offer, by version ---------------------------------------------------------


@pytest.mark.parametrize(("version", "passed"), [("2.1.197", False), ("2.1.332", True)])
def test_claude_permission_prompts_only_where_the_version_has_it(
    jlg: Runner, tmp_path: Path, version: str, passed: bool
) -> None:
    # the fake claude, like the real one, refuses a flag its version lacks
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    env = fake_script(tmp_path, {"text": "ok\nDONE"}) | {"JLGCLI_FAKE_VERSION": version}
    result = jlg("loop", "task.md", "-b", "claude", "--json", env=env)
    assert result.returncode == 0, result.stderr
    assert ("--permission-prompts" in argv_of(tmp_path, 0)) is passed


def test_claude_sessions_are_named_by_jlgcli(jlg: Runner, tmp_path: Path) -> None:
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    env = fake_script(tmp_path, {"text": "part 1"}, {"text": "part 2\nDONE"})
    result = jlg("loop", "task.md", "-b", "claude", "--session", "continue", "--json", env=env)
    assert result.returncode == 0, result.stderr
    first, second = argv_of(tmp_path, 0), argv_of(tmp_path, 1)
    chosen = first[first.index("--session-id") + 1]
    assert second[second.index("--resume") + 1] == chosen == summary(result.stdout)["sessionId"]
