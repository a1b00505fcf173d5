"""`jlgcli ledger list|show` through the installed console script (seed 002 REQ_AUTO_050)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import Runner

from jlgcli.rebound.session import ReboundSession

SESSION = "20260131T100000Z-abc123"


@pytest.fixture(autouse=True)
def _wired(jlg: Runner) -> None:
    # Until the lead adds "ledger" to parser.COMMANDS (then these run for real).
    if "ledger" not in jlg("--help").stdout:
        pytest.skip("`jlgcli ledger` is not wired into jlgcli/cli.py yet")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose ledger holds one finished two-step rebound session."""
    root = tmp_path / "project"
    (root / "workbench" / "scripts").mkdir(parents=True)
    session = ReboundSession(root, session_id=SESSION)
    first = session.process_reply(
        "Say hello from a script.",
        json.dumps(
            {
                "thought_process": "A script prints the greeting.",
                "artifacts": [
                    {"path": "workbench/scripts/hello.py", "content": "print('hello ledger')\n"}
                ],
                "next_action": {
                    "type": "exec_and_chain",
                    "target_script": "workbench/scripts/hello.py",
                    "continuation_prompt": "Report what it printed.",
                },
            }
        ),
    )
    assert first.next_prompt is not None
    session.process_reply(
        first.next_prompt, json.dumps({"status": "done", "summary": "It printed hello ledger."})
    )
    return root


def test_list_shows_the_session(jlg: Runner, project: Path) -> None:
    result = jlg("ledger", "list", cwd=project)
    assert result.returncode == 0, result.stderr
    assert SESSION in result.stdout and "done" in result.stdout
    as_json = jlg("ledger", "list", "--json", cwd=project)
    assert as_json.returncode == 0
    [entry] = json.loads(as_json.stdout)["sessions"]
    assert entry["sessionId"] == SESSION and entry["exitCode"] == 0


def test_show_renders_the_chain_one_step_per_block(jlg: Runner, project: Path) -> None:
    result = jlg("ledger", "show", "latest", cwd=project)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    order = [
        "== Step 1 == (prompt from instruction)",
        "Say hello from a script.",
        "A script prints the greeting.",
        "artifact + workbench/scripts/hello.py",
        "next_action: exec_and_chain workbench/scripts/hello.py",
        "execution: exited, return code 0",
        "hello ledger",
        "continuation prompt:",
        "== Step 2 == (prompt from step-1 continuation)",
        "== Final (step 2): done ==",
        "It printed hello ledger.",
    ]
    position = 0
    for needle in order:  # each piece of the chain, in the chain's order
        found = out.find(needle, position)
        assert found >= 0, f"{needle!r} missing after offset {position}:\n{out}"
        position = found + len(needle)


def test_show_json_by_prefix_and_dir(jlg: Runner, project: Path, tmp_path: Path) -> None:
    result = jlg("ledger", "show", "20260131", "--json", "--dir", str(project / "ledger"))
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["index"]["sessionId"] == SESSION
    assert [s["step"] for s in data["steps"]] == [1, 2]
    assert data["steps"][0]["execution"]["stdout"].strip() == "hello ledger"


def test_unknown_session_and_missing_ledger(jlg: Runner, project: Path, tmp_path: Path) -> None:
    missing = jlg("ledger", "show", "nope", cwd=project)
    assert missing.returncode == 66
    assert "no session 'nope'" in missing.stderr and "jlgcli ledger list" in missing.stderr
    empty = jlg("ledger", "show", "latest", cwd=tmp_path)
    assert empty.returncode == 66 and "no rebound ledger" in empty.stderr
    as_json = jlg("ledger", "show", "nope", "--json", cwd=project)
    assert json.loads(as_json.stdout)["exitCode"] == 66
    listing = jlg("ledger", "list", cwd=tmp_path)
    assert listing.returncode == 0 and "no rebound sessions" in listing.stderr


def test_help_has_examples(jlg: Runner) -> None:
    result = jlg("ledger", "--help")
    assert result.returncode == 0
    assert "jlgcli ledger show latest" in result.stdout


def test_the_ledger_is_read_at_the_project_root(jlg: Runner, project: Path) -> None:
    # issue 19 item 9: from a sub-directory, like the config (git root or .jlgcli.json)
    (project / ".git").mkdir()
    sub = project / "workbench" / "scripts"
    listed = jlg("ledger", "list", "--json", cwd=sub)
    assert listed.returncode == 0, listed.stderr
    assert [s["sessionId"] for s in json.loads(listed.stdout)["sessions"]] == [SESSION]
    shown = jlg("ledger", "show", "latest", cwd=sub)
    assert shown.returncode == 0, shown.stderr
