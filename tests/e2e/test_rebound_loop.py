"""`jlgcli loop --completion rebound` end to end with a scripted fake model (seed 002).

REQ_AUTO_010..050 through the installed console script: the model writes a script,
jlgcli runs it in the sandbox, feeds the output back, the model finishes; escape
attempts run nothing and stop the run after 3 refusals; the ledger tells the chain.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.cli import Runner

COUNT_SCRIPT = (
    "import pathlib\nprint('lines:', len(pathlib.Path('data.txt').read_text().splitlines()))\n"
)


def _reply(obj: dict[str, Any]) -> dict[str, Any]:
    return {"text": "Working on it.\n```json\n" + json.dumps(obj) + "\n```"}


def _script(tmp_path: Path, *replies: dict[str, Any]) -> dict[str, str]:
    path = tmp_path / "agent-script.json"
    path.write_text(json.dumps({"turns": [_reply(r) for r in replies]}), "utf-8")
    return {"JLGCLI_FAKE_SCRIPT": str(path)}


def _prompts(tmp_path: Path) -> list[str]:
    folder = tmp_path / "agent-script.json.prompts"
    return [p.read_text("utf-8") for p in sorted(folder.glob("[0-9][0-9][0-9].txt"))]


def test_write_run_read_finish_chain(jlg: Runner, tmp_path: Path) -> None:
    # REQ_AUTO_010: a next_action does not return to the user; REQ_AUTO_020: the script's
    # output is fed back with the continuation prompt; REQ_AUTO_050: every step in the ledger.
    project = tmp_path / "project"
    project.mkdir()
    (project / "data.txt").write_text("a\nb\nc\n", encoding="utf-8")
    (project / "task.md").write_text("How many lines has data.txt?", encoding="utf-8")
    env = _script(
        tmp_path,
        {
            "thought_process": "Count them with a script.",
            "artifacts": [{"path": "workbench/scripts/count.py", "content": COUNT_SCRIPT}],
            "next_action": {
                "type": "exec_and_chain",
                "target_script": "workbench/scripts/count.py",
                "continuation_prompt": "Report the count.",
            },
        },
        {"status": "done", "summary": "data.txt has 3 lines"},
    )
    result = jlg(
        "loop", "task.md", "-b", "claude", "--completion", "rebound", "--json", cwd=project, env=env
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert (summary["stopCause"], summary["iterations"]) == ("done", 2)
    assert summary["summary"] == "data.txt has 3 lines"
    prompts = _prompts(tmp_path)
    assert "exec_and_chain" in prompts[0]  # the contract was explained
    assert prompts[1].startswith("Report the count.") and "lines: 3" in prompts[1]
    # fresh sessions (the default): the second call never saw the first prompt (issue 13)
    assert "How many lines has data.txt?" in prompts[1]
    assert (project / "workbench" / "scripts" / "count.py").read_text("utf-8") == COUNT_SCRIPT
    sessions = list((project / "ledger").iterdir())
    assert len(sessions) == 1
    steps = sorted(sessions[0].glob("step-*.json"))
    assert len(steps) == 2
    first = json.loads(steps[0].read_text("utf-8"))
    assert "lines: 3" in json.dumps(first)
    shown = jlg("ledger", "show", sessions[0].name, cwd=project)
    assert shown.returncode == 0 and "count.py" in shown.stdout


def test_escape_attempts_run_nothing_and_stop_after_three_refusals(
    jlg: Runner, tmp_path: Path
) -> None:
    # REQ_AUTO_040: only workbench/scripts/*.py runs; refusals are fed back (REQ_AUTO_030)
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    sentinel = tmp_path / "sentinel"
    evil = f"open({str(sentinel)!r}, 'w').write('ran')\n"
    (project / "src" / "evil.py").write_text(evil, encoding="utf-8")
    (project / "task.md").write_text("Do it.", encoding="utf-8")
    outside = tmp_path / "outside.py"
    outside.write_text(evil, encoding="utf-8")
    attempts = ["src/evil.py", str(outside), "workbench/scripts/../../src/evil.py"]
    env = _script(
        tmp_path,
        *[
            {
                "next_action": {
                    "type": "exec_and_chain",
                    "target_script": target,
                    "continuation_prompt": "go on",
                }
            }
            for target in attempts
        ],
    )
    result = jlg(
        "loop", "task.md", "-b", "claude", "--completion", "rebound", "--json", cwd=project, env=env
    )
    assert result.returncode == 1
    summary = json.loads(result.stdout)
    assert summary["stopCause"] == "sandbox-violation"
    assert not sentinel.exists()
    prompts = _prompts(tmp_path)
    assert len(prompts) == 3 and "refused" in prompts[1].lower()


def test_reply_without_a_valid_object_is_65(jlg: Runner, tmp_path: Path) -> None:
    (tmp_path / "task.md").write_text("Do it.", encoding="utf-8")
    path = tmp_path / "agent-script.json"
    path.write_text(json.dumps({"turns": [{"text": "no json at all"}]}), "utf-8")
    result = jlg(
        "loop",
        "task.md",
        "-b",
        "claude",
        "--completion",
        "rebound",
        env={"JLGCLI_FAKE_SCRIPT": str(path)},
    )
    assert result.returncode == 65


def test_a_hanging_script_is_killed_and_the_diagnosis_fed_back(jlg: Runner, tmp_path: Path) -> None:
    # REQ_AUTO_040: a timeout with the whole tree killed; REQ_AUTO_030: the model hears about it
    project = tmp_path / "project"
    project.mkdir()
    (project / "task.md").write_text("Run it.", encoding="utf-8")
    hang = "import time\nprint('started', flush=True)\ntime.sleep(600)\n"
    env = _script(
        tmp_path,
        {
            "artifacts": [{"path": "workbench/scripts/hang.py", "content": hang}],
            "next_action": {
                "type": "exec_and_chain",
                "target_script": "workbench/scripts/hang.py",
                "continuation_prompt": "What happened?",
            },
        },
        {"status": "done", "summary": "the script timed out"},
    )
    result = jlg(
        "loop",
        "task.md",
        "-b",
        "claude",
        "--completion",
        "rebound",
        "--script-timeout",
        "1s",
        "--json",
        cwd=project,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    second_prompt = _prompts(tmp_path)[1]
    assert "What happened?" in second_prompt
    assert "started" in second_prompt and "timeout" in second_prompt.lower()


def _chain_env(tmp_path: Path, project: Path) -> dict[str, str]:
    project.mkdir()
    (project / "data.txt").write_text("a\nb\nc\n", encoding="utf-8")
    (project / "task.md").write_text("How many lines has data.txt?", encoding="utf-8")
    return _script(
        tmp_path,
        {
            "thought_process": "Count them with a script.",
            "artifacts": [{"path": "workbench/scripts/count.py", "content": COUNT_SCRIPT}],
            "next_action": {
                "type": "exec_and_chain",
                "target_script": "workbench/scripts/count.py",
                "continuation_prompt": "Report the count.",
            },
        },
        {"status": "done", "summary": "data.txt has 3 lines"},
    )


def test_req_auto_050_each_step_references_its_raw_exchange(jlg: Runner, tmp_path: Path) -> None:
    project = tmp_path / "project"
    env = _chain_env(tmp_path, project)
    result = jlg(
        "loop", "task.md", "-b", "claude", "--completion", "rebound", "--artifacts", "--json",
        cwd=project, env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    (session,) = (project / "ledger").iterdir()
    refs = [
        json.loads(step.read_text("utf-8"))["payloadRef"]
        for step in sorted(session.glob("step-*.json"))
    ]
    assert refs == [
        f".jlgcli/runs/{session.name}/transcript.ndjson#iteration=1",
        f".jlgcli/runs/{session.name}/transcript.ndjson#iteration=2",
    ]


def test_req_auto_050_default_verbosity_shows_the_steps_not_the_raw_json(
    jlg: Runner, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    env = _chain_env(tmp_path, project)
    result = jlg("loop", "task.md", "-b", "claude", "--completion", "rebound", cwd=project, env=env)
    assert result.returncode == 0, result.stderr
    shown = result.stdout + result.stderr
    assert '"next_action"' not in shown and '"thought_process"' not in shown
    assert "rebound step 1: Count them with a script." in shown
    assert "ran workbench/scripts/count.py: exit 0" in shown
    assert "data.txt has 3 lines" in shown
