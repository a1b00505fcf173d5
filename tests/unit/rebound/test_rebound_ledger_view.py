"""Reading the ledger back (REQ_AUTO_050): listing, lookup by prefix, rendering, damaged files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jlgcli.errors import JlgError
from jlgcli.rebound.ledger import new_session_id
from jlgcli.rebound.ledger_view import list_sessions, load_session, render_list, render_session
from jlgcli.rebound.session import ReboundSession


def _reply(**fields: object) -> str:
    return json.dumps(fields)


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "workbench" / "scripts").mkdir(parents=True)
    first = ReboundSession(root, session_id="20260101T000000Z-aaaaaa")
    first.process_reply(
        "Instruction line\n" + "more\n" * 30,
        _reply(
            thought_process="t" * 500,
            artifacts=[
                {"path": "workbench/scripts/a.py", "content": "print('out')\n" * 20},
                {"path": "/abs", "content": "x"},
            ],
            next_action={
                "type": "exec_and_chain",
                "target_script": "workbench/scripts/a.py",
                "continuation_prompt": "next",
            },
        ),
    )
    first.process_reply("p", _reply(summary="first done", next_action={"type": "bad"}))
    first.process_reply("p", _reply(status="done", summary="all good"))
    second = ReboundSession(root, session_id="20260102T000000Z-bbbbbb")
    second.process_reply("p", "no json at all")
    return root / "ledger"


def test_list_sessions_oldest_first(ledger: Path) -> None:
    sessions = list_sessions(ledger)
    assert [s["sessionId"] for s in sessions] == [
        "20260101T000000Z-aaaaaa",
        "20260102T000000Z-bbbbbb",
    ]
    rows = render_list(sessions)
    assert rows[0][:3] == ["20260101T000000Z-aaaaaa", "done", "3"]
    assert rows[0][4] == "all good"
    assert rows[1][1] == "invalid-json" and "no JSON" in rows[1][4]


def test_lookup_by_id_prefix_and_latest(ledger: Path) -> None:
    assert load_session(ledger, "20260101T000000Z-aaaaaa").session_id.endswith("aaaaaa")
    assert load_session(ledger, "20260101").session_id.endswith("aaaaaa")
    assert load_session(ledger, "latest").session_id.endswith("bbbbbb")
    with pytest.raises(JlgError) as ambiguous:
        load_session(ledger, "2026")
    assert ambiguous.value.code == 64
    with pytest.raises(JlgError) as missing:
        load_session(ledger, "1999")
    assert missing.value.code == 66
    with pytest.raises(JlgError) as no_ledger:
        load_session(ledger / "nope", "latest")
    assert no_ledger.value.code == 66
    assert list_sessions(ledger / "nope") == []


def test_render_shows_every_step_shortened_unless_full(ledger: Path) -> None:
    session = load_session(ledger, "20260101")
    short = render_session(session)
    for needle in (
        "Session 20260101T000000Z-aaaaaa: done (exit 0)",
        "== Step 1 == (prompt from instruction)",
        "artifact + workbench/scripts/a.py",
        "artifact x '/abs' refused: unsafe path: absolute path",
        "next_action: exec_and_chain workbench/scripts/a.py",
        "not run (artifacts-not-written)",
        "next_action: INVALID (next_action.",
        "--full shows everything",
        "== Final (step 3): done ==",
        "all good",
    ):
        assert needle in short, needle
    full = render_session(session, full=True)
    assert "t" * 500 in full and "--full shows" not in full
    assert session.to_json()["index"]["sessionId"] == session.session_id


def test_render_invalid_json_and_incomplete_steps(ledger: Path) -> None:
    session = load_session(ledger, "20260102")
    text = render_session(session)
    assert "reply: no valid reply object (no JSON reply object found in the reply)" in text
    assert "no json at all" in text
    step = session.directory / "step-001.json"
    record = json.loads(step.read_text(encoding="utf-8"))
    record["phase"] = "executing"
    record["execution"] = {
        "stopReason": "timeout",
        "returnCode": None,
        "durationSeconds": 1.0,
        "argv": ["python", "x.py"],
        "stdout": "",
        "stdoutBytes": 0,
        "stderr": "boom",
        "stderrBytes": 4,
        "stderrTruncated": True,
    }
    step.write_text(json.dumps(record), encoding="utf-8")
    text = render_session(load_session(ledger, "20260102"))
    assert "[incomplete: stopped at executing]" in text
    assert "execution: timeout, return code None" in text
    assert "stderr (4 bytes truncated)" in text


def test_damaged_files(ledger: Path) -> None:
    broken = ledger / "20260103T000000Z-cccccc"
    broken.mkdir()
    (broken / "index.json").write_text("{not json", encoding="utf-8")
    listed = list_sessions(ledger)[-1]
    assert listed["sessionId"] == broken.name and "not valid JSON" in listed["error"]
    with pytest.raises(JlgError) as err:
        load_session(ledger, "20260103")
    assert err.value.code == 65
    (broken / "index.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(JlgError) as err:
        load_session(ledger, "20260103")
    assert "JSON object" in err.value.message


def test_session_ids_sort_by_time_and_have_no_colon() -> None:
    session_id = new_session_id()
    assert ":" not in session_id and len(session_id) == len("20260101T000000Z-abcdef")
