"""The rebound reply contract and how a reply is found (REQ_AUTO_010, REQ_AUTO_020)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jlgcli.rebound.schema import NextAction, ReboundReply, find_reply

ACTION = {
    "type": "exec_and_chain",
    "target_script": "workbench/scripts/a.py",
    "continuation_prompt": "look at the output",
}


def _obj(**fields: Any) -> str:
    return json.dumps(fields)


def test_full_reply_is_parsed() -> None:
    """REQ_AUTO_010: next_action sits beside artifacts, thought_process, status, summary."""
    text = (
        "Some prose first.\n```json\n"
        + _obj(
            thought_process="thinking",
            artifacts=[
                {"path": "a.txt", "content": "hi"},
                {"path": "b.bin", "content": "AAE=", "encoding": "base64"},
            ],
            next_action=ACTION,
            status="continue",
            summary="step one",
        )
        + "\n```\ntrailing words"
    )
    parse = find_reply(text)
    assert parse.ok and parse.error is None and parse.next_action_error is None
    reply = parse.reply
    assert reply is not None
    assert reply.thought_process == "thinking"
    assert [a.path for a in reply.artifacts] == ["a.txt", "b.bin"]
    assert reply.artifacts[0].encoding == "utf-8"
    assert reply.artifacts[1].encoding == "base64"
    assert reply.next_action == NextAction(**ACTION)
    assert reply.status == "continue" and reply.summary == "step one"


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ('{"status": "done"}', "done"),
        ('{"summary": "only a summary"}', None),
        ('{"status": "continue"}\n{"status": "done"}', "done"),
        ('{"status": "done"}\nlogs after', "done"),
        ('{"status": "done"}\n{"unrelated": 1}', "done"),  # no contract key: not a candidate
        ('{"status": "done"}\n{"status": "bogus"}', "done"),  # the last that fits wins
        ('{"status": "error", "x-extra": 1}', "error"),
        ('{"outer": {"status": "continue"}, "status": "done"}', "done"),
    ],
)
def test_last_fitting_top_level_object_wins(text: str, status: str | None) -> None:
    parse = find_reply(text)
    assert parse.reply is not None
    assert parse.reply.status == status


def test_nested_objects_never_count() -> None:
    parse = find_reply('{"wrapper": {"status": "done", "next_action": {}}}')
    assert not parse.ok
    assert parse.error == "no JSON reply object found in the reply"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "no JSON reply object"),
        ("   \n\t ", "no JSON reply object"),
        ("just text", "no JSON reply object"),
        ("{status: done}", "no JSON reply object"),
        ('{"status": "unknown"}', "status"),
        ('{"status": 1}', "status"),
        ('{"summary": 42}', "summary"),
        ('{"thought_process": ["a"]}', "thought_process"),
        ('{"artifacts": "a.txt"}', "artifacts"),
        ('{"artifacts": [{"path": "a"}]}', "artifacts.0.content"),
        ('{"artifacts": [{"path": "", "content": "x"}]}', "artifacts.0.path"),
        ('{"artifacts": [{"path": "a", "content": "x", "encoding": "latin-1"}]}', "encoding"),
        ('{"artifacts": [{"path": "a", "content": "x", "mode": "755"}]}', "mode"),
    ],
)
def test_no_fitting_object_is_invalid_json(text: str, fragment: str) -> None:
    parse = find_reply(text)
    assert parse.reply is None and not parse.ok
    assert parse.error is not None and fragment in parse.error


@pytest.mark.parametrize(
    ("action", "fragment"),
    [
        ({k: v for k, v in ACTION.items() if k != "target_script"}, "next_action.target_script"),
        ({k: v for k, v in ACTION.items() if k != "continuation_prompt"}, "continuation_prompt"),
        ({k: v for k, v in ACTION.items() if k != "type"}, "next_action.type"),
        ({**ACTION, "type": "shell"}, "'shell'"),
        ({**ACTION, "args": ["-x"]}, "next_action.args"),
        ({**ACTION, "target_script": 3}, "target_script"),
        ({**ACTION, "target_script": ""}, "target_script"),
        ("run it", "next_action"),
        ([ACTION], "next_action"),
    ],
)
def test_malformed_next_action_is_reported_not_skipped(action: Any, fragment: str) -> None:
    """REQ_AUTO_020: a malformed next_action keeps the reply and says what is wrong."""
    text = _obj(status="done") + "\n" + _obj(summary="s", next_action=action)
    parse = find_reply(text)
    assert parse.reply is not None
    assert parse.reply.summary == "s"  # the last object, not the older valid one
    assert parse.reply.next_action is None
    assert parse.next_action_error is not None and fragment in parse.next_action_error


def test_null_next_action_means_none() -> None:
    parse = find_reply(_obj(next_action=None, status="done"))
    assert parse.reply is not None and parse.reply.next_action is None
    assert parse.next_action_error is None


def test_unknown_keys_are_reported() -> None:
    parse = find_reply(_obj(status="done", files=["a"], next="x"))
    assert parse.unknown_keys == ("files", "next")


def test_error_list_is_bounded() -> None:
    many = [{"path": i} for i in range(10)]
    parse = find_reply(_obj(artifacts=many))
    assert parse.error is not None and "more" in parse.error


@given(st.text(max_size=300))
def test_find_reply_never_raises(text: str) -> None:
    parse = find_reply(text)
    assert parse.ok == (parse.reply is not None)
    assert parse.ok or parse.error


_ARTIFACT = st.fixed_dictionaries(
    {"path": st.text(min_size=1, max_size=20), "content": st.text(max_size=50)},
    optional={"encoding": st.sampled_from(["utf-8", "base64"])},
)
_REPLY = st.fixed_dictionaries(
    {},
    optional={
        "thought_process": st.text(max_size=40),
        "artifacts": st.lists(_ARTIFACT, max_size=3),
        "next_action": st.fixed_dictionaries(
            {
                "type": st.just("exec_and_chain"),
                "target_script": st.text(min_size=1, max_size=30),
                "continuation_prompt": st.text(max_size=40),
            }
        ),
        "status": st.sampled_from(["continue", "done", "error"]),
        "summary": st.text(max_size=40),
    },
).filter(bool)


@given(_REPLY, st.text(max_size=40).filter(lambda s: "{" not in s and "}" not in s))
def test_any_valid_reply_is_found_after_prose(obj: dict[str, Any], prose: str) -> None:
    parse = find_reply(prose + "\n" + json.dumps(obj))
    assert parse.reply == ReboundReply.model_validate(obj)
