"""Upstream signals read right, end to end through the fakes (issue 34).

gemini's Google 429 ("Resource has been exhausted (e.g. check quota). Suggested retry after
Ns.", error.type "unknown", exit 429 & 255 = 173: core/utils/errors.ts, cli/utils/errors.ts,
research/backends.md §9) was exit 1 with no wait and no failover.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from support.cli import Runner, fake_script

GEMINI_ENV = {"GEMINI_API_KEY": "k"}  # a dummy the fake accepts


def test_gemini_429_waits_for_the_suggested_retry_then_finishes(
    jlg: Runner, tmp_path: Path
) -> None:
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    env = fake_script(
        tmp_path, {"error": "resource-exhausted", "reset_in_seconds": 1}, {"text": "ok\nDONE"}
    )
    result = jlg("loop", "task.md", "-b", "gemini", "--json", env=env | GEMINI_ENV)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["stopCause"], data["iterations"]) == ("done", 1)
    assert "rate-limited" in result.stderr and "waiting" in result.stderr


def test_gemini_429_past_the_time_left_switches_to_the_fallback(
    jlg: Runner, tmp_path: Path
) -> None:
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    env = fake_script(
        tmp_path, {"error": "resource-exhausted", "reset_in_seconds": 3600}, {"text": "ok\nDONE"}
    )
    result = jlg(
        "loop", "task.md", "-b", "gemini", "--fallback", "claude", "--timeout", "10m", "--json",
        env=env | GEMINI_ENV,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [m["backend"] for m in data["iterationMetrics"]] == ["claude"]
    assert "switched to claude" in data["iterationMetrics"][0]["switchReason"]


def test_gemini_context_overflow_is_not_done(jlg: Runner, tmp_path: Path) -> None:
    # client.ts / nonInteractiveCli.ts: an overflow ends as status "success" with empty text
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    env = fake_script(tmp_path, {"error": "context-overflow"})
    result = jlg("run", "task.md", "-b", "gemini", "--json", env=env | GEMINI_ENV)
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["stopCause"] == "backend-error" and "context window" in data["error"]["message"]


def test_gemini_continues_its_session_by_id(jlg: Runner, tmp_path: Path) -> None:
    # issue 34: gemini 0.61 `--resume <uuid>` (sessionUtils.ts); jlgcli dropped the id
    (tmp_path / "task.md").write_text("Add a slugify helper.\n", encoding="utf-8")
    sid = "0b8a4b6e-7e59-4b1e-9f5e-2f1c4f0e8d11"
    env = fake_script(tmp_path, {"text": "part 1", "session_id": sid}, {"text": "part 2\nDONE"})
    result = jlg("loop", "task.md", "-b", "gemini", "--session", "continue", env=env | GEMINI_ENV)
    assert result.returncode == 0, result.stderr
    prompts = tmp_path / "agent-script.json.prompts"
    argv = json.loads((prompts / "001.argv.json").read_text("utf-8"))
    assert argv[argv.index("--resume") + 1] == sid
    assert "Add a slugify helper." not in (prompts / "001.txt").read_text("utf-8")


def test_a_session_that_cannot_resume_restates_the_task(jlg: Runner, tmp_path: Path) -> None:
    # gemini before 0.61 takes only an index or `latest`: continuing would send a prompt that
    # says "continue from where the previous iteration stopped" without the task (issue 34)
    (tmp_path / "task.md").write_text("Add a slugify helper.\n", encoding="utf-8")
    env = fake_script(tmp_path, {"text": "part 1"}, {"text": "part 2\nDONE"})
    env |= GEMINI_ENV | {"JLGCLI_FAKE_VERSION": "0.60.1"}
    result = jlg("loop", "task.md", "-b", "gemini", "--session", "continue", env=env)
    assert result.returncode == 0, result.stderr
    prompts = tmp_path / "agent-script.json.prompts"
    assert "--resume" not in json.loads((prompts / "001.argv.json").read_text("utf-8"))
    assert "Add a slugify helper." in (prompts / "001.txt").read_text("utf-8")


def test_max_cost_caps_each_claude_call_with_what_is_left(jlg: Runner, tmp_path: Path) -> None:
    # issue 34: --max-cost was checked between calls only; claude takes --max-budget-usd
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    env = fake_script(tmp_path, {"text": "step"})  # each call costs $0.0123 (the fake)
    result = jlg("loop", "task.md", "-b", "claude", "--max-cost", "0.02", "--json", env=env)
    assert result.returncode == 4, result.stderr
    data = json.loads(result.stdout)
    assert (
        data["stopCause"] == "max-cost" and "the last call hit its cap" in data["error"]["message"]
    )
    prompts = tmp_path / "agent-script.json.prompts"
    first = json.loads((prompts / "000.argv.json").read_text("utf-8"))
    second = json.loads((prompts / "001.argv.json").read_text("utf-8"))
    assert first[first.index("--max-budget-usd") + 1] == "0.0200"
    assert second[second.index("--max-budget-usd") + 1] == "0.0077"  # 0.02 - 0.0123


@pytest.mark.parametrize(
    ("backend", "flag"), [("claude", "--json-schema"), ("codex", "--output-schema")]
)
def test_json_completion_gives_the_status_schema_natively(
    jlg: Runner, tmp_path: Path, backend: str, flag: str
) -> None:
    # issue 34: claude --json-schema and codex exec --output-schema FILE (backends.md §9)
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    status = {"status": "done", "summary": "all done", "next": None}
    env = fake_script(tmp_path, {"text": "All done.", "structured": status})
    result = jlg("loop", "task.md", "-b", backend, "--completion", "json", "--json", env=env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["summary"] == "all done"
    argv = json.loads((tmp_path / "agent-script.json.prompts" / "000.argv.json").read_text())
    value = argv[argv.index(flag) + 1]
    if backend == "codex":  # the fake read the file; jlgcli removed it when the run ended
        assert "jlgcli-schema-" in value and not Path(value).exists()
        return
    assert json.loads(value)["properties"]["status"]["enum"] == [
        "continue",
        "done",
        "error",
        "question",
    ]


def test_a_missing_status_object_is_asked_for_once_in_the_same_session(
    jlg: Runner, tmp_path: Path
) -> None:
    # issue 34: exit 65 at once before; now one short repair prompt in the same session
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    sid = "11111111-2222-3333-4444-555555555555"
    env = fake_script(
        tmp_path,
        {"text": "Finished the work.", "session_id": sid},
        {"text": '{"status": "done", "summary": "finished", "next": null}'},
    )
    result = jlg("loop", "task.md", "-b", "gemini", "--completion", "json", "--json",
                 env=env | GEMINI_ENV)  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["iterations"], data["summary"]) == (1, "finished")
    prompts = tmp_path / "agent-script.json.prompts"
    assert "did not end with the JSON status object" in (prompts / "001.txt").read_text("utf-8")
    argv = json.loads((prompts / "001.argv.json").read_text("utf-8"))
    assert argv[argv.index("--resume") + 1] == sid

    again = tmp_path / "again"
    again.mkdir()
    (again / "task.md").write_text("Do it.\n", encoding="utf-8")
    env = fake_script(again, {"text": "no object", "session_id": sid})
    result = jlg("loop", "task.md", "-b", "gemini", "--completion", "json", cwd=again,
                 env=env | GEMINI_ENV)  # fmt: skip
    assert result.returncode == 65, result.stderr
    assert len(list((again / "agent-script.json.prompts").glob("*.txt"))) == 2  # asked once


REPL = """\
import sys
print("calc repl 1.0")
while True:
    try:
        line = input("> ")
    except EOFError:
        break
    if line == "/exit":
        print("bye, see you soon")
        break
    if "\\x1b" in line:
        print("error: unexpected escape sequence")
        continue
    print("working on: " + line[:20])
    print("DONE")
"""


@pytest.mark.skipif(sys.platform == "win32", reason="a pty program")
def test_an_interactive_line_repl_finishes_a_marker_loop(jlg: Runner, tmp_path: Path) -> None:
    # issue 34: the reply was the whole screen (prompt redraw, exit message after DONE) so
    # DONE was never the last line; and a multi-line prompt reached a line REPL as ESC[200~
    (tmp_path / "repl.py").write_text(REPL, encoding="utf-8")
    (tmp_path / "task.md").write_text("Add two numbers.\nThen say so.\n", encoding="utf-8")
    backend = {
        "argv": [sys.executable, str(tmp_path / "repl.py")],
        "transport": "pty",
        "interactive": {"ready_pattern": "^> ", "done_pattern": "^DONE$",
                        "exit_sequence": "/exit\r", "step_timeout": 30},
    }  # fmt: skip
    config = Path(os.environ["JLGCLI_CONFIG_DIR"]) / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"backends": {"repl": backend}}), encoding="utf-8")
    result = jlg("loop", "task.md", "-b", "repl", "--max-iterations", "2", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["stopCause"], data["iterations"]) == ("done", 1)
    assert data["text"] == "working on: Add two numbers. The\nDONE"


@pytest.mark.parametrize("backend", ["claude", "codex"])
def test_run_starts_the_agent_without_the_login_probe(
    jlg: Runner, tmp_path: Path, backend: str
) -> None:
    # issue 34: every run waited for `claude auth status` (~0.45 s with the real claude);
    # run/loop now read an auth failure from the call itself, `backends` still probes
    (tmp_path / "task.md").write_text("Do it.\n", encoding="utf-8")
    # a call that lasts: the login watch starts once it has run for a second (issue 49)
    env = fake_script(tmp_path, {"text": "ok", "delay_seconds": 2.5})
    checks = tmp_path / "agent-script.json.login-checks"

    def checked() -> int:
        return checks.read_text("utf-8").count(backend) if checks.exists() else 0

    assert jlg("run", "task.md", "-b", backend, env=env).returncode == 0
    # codex with no stored credentials file is checked beside the call, never before it
    # (issue 48: a logged-out codex hangs; test_cli_states shows the call does not wait)
    assert checked() == (1 if backend == "codex" else 0)
    before = checked()
    assert jlg("backends", env=env).returncode == 0
    assert checked() == before + 1
    out = jlg("run", "task.md", "-b", backend, env=env | {"JLGCLI_FAKE_LOGGED_OUT": "1"})
    assert out.returncode == 6 and "log in:" in out.stderr
