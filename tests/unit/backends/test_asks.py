"""A question asked through a CLI's own tool is read as the agent's question (issue 51).

Shapes: claude's ``AskUserQuestion`` tool_use input ``{"questions": [{"question", "header",
"options": [{"label", "description"}], "multiSelect"}]}`` (Claude Agent SDK, "Handle
approvals and user input", code.claude.com/docs/en/agent-sdk/user-input); copilot's
``ask_user`` tool (``tool.execution_start``) ``{"question", "choices"}`` (copilot SDK user
input request; github/copilot-cli#2929).
"""

from __future__ import annotations

import json

import pytest

from jlgcli.backends.asks import tool_question
from jlgcli.backends.claude import ClaudeParser
from jlgcli.backends.copilot import CopilotParser

from .conftest import lines, parse

CLAUDE_ASK = {
    "questions": [
        {
            "question": "Which database?",
            "header": "Database",
            "options": [{"label": "PostgreSQL", "description": "…"}, {"label": "SQLite"}],
            "multiSelect": False,
        },
        {"question": "Keep the old API?", "header": "API", "options": [], "multiSelect": False},
    ]
}


def test_claude_ask_user_question_is_the_question_with_its_options() -> None:
    assert tool_question("AskUserQuestion", CLAUDE_ASK) == (
        "Which database? (options: PostgreSQL; SQLite)\nKeep the old API?"
    )


def test_copilot_ask_user_is_the_question_with_its_choices() -> None:
    asked = {"question": "Deploy now?", "choices": ["yes", "no"], "allow_freeform": True}
    assert tool_question("ask_user", asked) == "Deploy now? (options: yes; no)"


@pytest.mark.parametrize("arguments", [None, "text", {}, {"questions": "x"}, {"question": 3}])
def test_an_ask_shaped_unlike_any_seen_still_asks(arguments: object) -> None:
    assert tool_question("ask_user", arguments) == "(the agent called ask_user without a question)"


def test_other_tools_ask_nothing_and_a_long_question_is_bounded() -> None:
    assert tool_question("Write", {"question": "x"}) is None
    assert tool_question(None, {}) is None
    long = tool_question("ask_user", {"question": "why " * 5000})
    assert long is not None and len(long) == 4000 and long.endswith("…")


def test_the_claude_parser_reads_an_ask_user_question_tool_use() -> None:
    init = {"type": "system", "subtype": "init", "session_id": "s1", "model": "m"}
    block = {"type": "tool_use", "id": "t1", "name": "AskUserQuestion", "input": CLAUDE_ASK}
    ask = {"type": "assistant", "session_id": "s1", "message": {"content": [block]}}
    final = {"type": "result", "subtype": "success", "is_error": False, "result": "Waiting.",
             "session_id": "s1"}  # fmt: skip
    parsed = parse(ClaudeParser(), lines(*(json.dumps(e) for e in (init, ask, final))))
    assert parsed.result.ok and parsed.result.question is not None
    assert parsed.result.question.startswith("Which database?")
    assert "[tool] AskUserQuestion" in parsed.shown


def test_the_copilot_parser_reads_an_ask_user_tool_call() -> None:
    events = [
        {"type": "tool.execution_start", "data": {"toolCallId": "a", "toolName": "ask_user",
                                                  "arguments": {"question": "Deploy now?"}}},
        {"type": "assistant.message", "data": {"messageId": "m", "content": "Waiting.",
                                               "toolRequests": []}},
        {"type": "result", "sessionId": "s", "exitCode": 0},
    ]  # fmt: skip
    parsed = parse(CopilotParser(), lines(*(json.dumps(e) for e in events)))
    assert parsed.result.question == "Deploy now?"


def test_no_ask_no_question() -> None:
    final = {"type": "result", "subtype": "success", "is_error": False, "result": "ok"}
    assert parse(ClaudeParser(), lines(json.dumps(final))).result.question is None


def test_the_codex_parser_reads_a_request_user_input_event() -> None:
    """codex exec --json ``request_user_input{id, call_id, questions}`` (backends.md §5.2)."""
    from jlgcli.backends.codex import CodexParser

    events = [
        {"type": "thread.started", "thread_id": "th"},
        {"type": "request_user_input", "id": "r", "call_id": "c",
         "questions": [{"id": "q", "question": "Which branch?", "options": [{"label": "main"}]}]},
        {"type": "item.completed", "item": {"id": "i", "type": "agent_message", "text": "Wait."}},
        {"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 1}},
    ]  # fmt: skip
    parsed = parse(CodexParser(), lines(*(json.dumps(e) for e in events)))
    assert parsed.result.question == "Which branch? (options: main)"
