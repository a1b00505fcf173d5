"""What the model and the person get after each rebound step (seed 002 REQ_AUTO_030, 050; issue 13).

* With fresh sessions (the default) the model of step 2+ never saw the first
  prompt: the continuation carries the task (bounded) and the whole protocol.
* At default verbosity a person sees the thought process and the step, not the
  raw JSON (``ReboundOutcome.display``).
* ``payloadRef`` points at the raw exchange in the run's transcript.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jlgcli.rebound.instructions import TASK_LIMIT, task_block
from jlgcli.rebound.ledger import transcript_ref
from jlgcli.rebound.ledger_view import load_session
from jlgcli.rebound.session import ReboundSession

TASK = "Count the words in data.txt and report the number."
COUNT = "print('words:', 3)\n"


def reply(**fields: Any) -> str:
    return "Working on it.\n```json\n" + json.dumps(fields, indent=1) + "\n```\n"


def chain_reply(thought: str = "Write a counting script, then run it.") -> str:
    return reply(
        thought_process=thought,
        artifacts=[{"path": "workbench/scripts/count.py", "content": COUNT}],
        next_action={
            "type": "exec_and_chain",
            "target_script": "workbench/scripts/count.py",
            "continuation_prompt": "Report the count.",
        },
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "workbench" / "scripts").mkdir(parents=True)
    return project


def first_prompt(session: ReboundSession, task: str = TASK) -> str:
    """As the loop builds it (runner.prompting.first_prompt)."""
    return f"{task}\n\n---\n{session.instructions().strip()}\n"


def test_req_auto_030_fresh_continuation_carries_the_task_and_the_protocol(root: Path) -> None:
    session = ReboundSession(root, session_id="s-fresh")
    outcome = session.process_reply(first_prompt(session), chain_reply())
    prompt = outcome.next_prompt
    assert prompt is not None
    assert prompt.startswith("Report the count.")
    assert "words: 3" in prompt  # the step's result
    assert TASK in prompt  # the original task, sent again
    assert "## Reply protocol (jlgcli rebound mode)" in prompt  # the whole contract
    assert prompt.index("words: 3") < prompt.index(TASK)


def test_continued_sessions_get_only_the_reminder(root: Path) -> None:
    session = ReboundSession(root, session_id="s-cont", repeat_task=False)
    prompt = session.process_reply(first_prompt(session), chain_reply()).next_prompt
    assert prompt is not None and "words: 3" in prompt
    assert TASK not in prompt and "## Reply protocol" not in prompt
    assert "Reply with the jlgcli rebound JSON object again" in prompt


def test_the_task_can_be_given_explicitly(root: Path) -> None:
    session = ReboundSession(root, session_id="s-task", task="The real task.")
    prompt = session.process_reply("anything", chain_reply()).next_prompt
    assert prompt is not None and "The real task." in prompt


def test_the_repeated_task_is_bounded() -> None:
    long_task = "begin " + "x" * (TASK_LIMIT * 3) + " the end"
    block = task_block(long_task)
    assert len(block) < TASK_LIMIT + 300
    assert "begin" in block and "the end" in block
    assert "characters left out" in block
    assert task_block("short task").count("short task") == 1


def test_req_auto_050_display_shows_the_thought_and_the_step_not_the_json(root: Path) -> None:
    session = ReboundSession(root, session_id="s-show")
    outcome = session.process_reply(first_prompt(session), chain_reply())
    shown = outcome.display()
    assert shown.splitlines()[0] == "rebound step 1: Write a counting script, then run it."
    assert "  wrote workbench/scripts/count.py" in shown
    assert "  ran workbench/scripts/count.py: exit 0 in" in shown
    assert "{" not in shown and "next_action" not in shown
    final = session.process_reply("p", reply(status="done", summary="3 words"))
    assert final.display().splitlines()[-1] == "  done: 3 words"


def test_display_says_why_a_script_did_not_run_and_cuts_long_thoughts(root: Path) -> None:
    session = ReboundSession(root, session_id="s-refused")
    outcome = session.process_reply(
        "p",
        reply(
            thought_process="word " * 200,
            next_action={
                "type": "exec_and_chain",
                "target_script": "src/evil.py",
                "continuation_prompt": "go",
            },
        ),
    )
    first, *rest = outcome.display().splitlines()
    assert len(first) <= len("rebound step 1: ") + 300 and first.endswith("…")
    assert rest and rest[0].startswith("  did not run src/evil.py: ")


def test_req_auto_050_payload_ref_is_journaled(root: Path) -> None:
    session = ReboundSession(root, session_id="s-ref")
    transcript = root / ".jlgcli" / "runs" / "r-1" / "transcript.ndjson"
    ref = transcript_ref(transcript, 1, root=root)
    assert ref == ".jlgcli/runs/r-1/transcript.ndjson#iteration=1"
    session.process_reply(first_prompt(session), reply(status="done"), payload_ref=ref)
    assert load_session(root / "ledger", "s-ref").steps[0]["payloadRef"] == ref


def test_transcript_ref_outside_the_root_is_absolute(tmp_path: Path) -> None:
    elsewhere = tmp_path / "runs" / "transcript.ndjson"
    assert transcript_ref(elsewhere, 3, root=tmp_path / "project") == f"{elsewhere}#iteration=3"


def test_show_gets_each_step_as_displayed(root: Path) -> None:
    shown: list[str] = []
    session = ReboundSession(root, session_id="s-cb", show=shown.append)
    first = session.process_reply(first_prompt(session), chain_reply())
    last = session.process_reply("p", reply(status="done", summary="3 words"))
    assert shown == [first.display(), last.display()]
