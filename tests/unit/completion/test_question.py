"""The question forms of the completion protocols (issue 51): marker and json."""

from __future__ import annotations

import pytest

from jlgcli.completion import decide, protocol_instructions
from jlgcli.completion.json_status import STATUS_SCHEMA, parse
from jlgcli.completion.marker import question


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("Looked around.\nQUESTION: Which database?", "Which database?"),
        ("QUESTION:   Tabs or spaces?  \n\n", "Tabs or spaces?"),
        ("\x1b[1mQUESTION: Bold?\x1b[0m", "Bold?"),
        ("QUESTION:", None),  # nothing asked
        ("QUESTION: quoted first\nthen I went on", None),  # only the last line counts
        ("  QUESTION: indented", None),  # exact, like DONE
        ("question: lower case", None),
        ("", None),
    ],
)
def test_a_marker_question_is_the_last_line(text: str, asked: str | None) -> None:
    assert question(text) == asked
    decision = decide("marker", text)
    assert (decision.status == "question") == (asked is not None)
    assert decision.question == asked


def test_done_wins_over_an_earlier_question_line() -> None:
    assert decide("marker", "QUESTION: shall I?\nI did it anyway.\nDONE").status == "done"


def test_json_question_status_carries_the_question() -> None:
    decision = decide(
        "json", 'x\n{"status": "question", "question": "Which port?", "summary": "s"}'
    )
    assert (decision.status, decision.question, decision.summary) == (
        "question",
        "Which port?",
        "s",
    )


@pytest.mark.parametrize(
    ("obj", "asked"),
    [
        ('{"status": "question", "summary": "Need the port number"}', "Need the port number"),
        (
            '{"status": "question", "question": "  ", "next": "ask for the port"}',
            "ask for the port",
        ),
        ('{"status": "question"}', "(the agent asked a question without its text)"),
    ],
)
def test_a_json_question_without_its_text_is_never_lost(obj: str, asked: str) -> None:
    assert parse(obj).question == asked


def test_a_question_field_of_another_type_makes_the_object_invalid() -> None:
    assert parse('{"status": "question", "question": 3}').status is None
    assert parse('{"status": "continue", "question": "why?"}').question is None


def test_the_schema_and_the_instructions_name_the_question() -> None:
    assert "question" in STATUS_SCHEMA["properties"]["status"]["enum"]
    assert "question" in STATUS_SCHEMA["required"]
    assert "QUESTION:" in protocol_instructions("marker")
    assert '"question"' in protocol_instructions("json")
    for mode in ("marker", "json"):  # an echoed prompt is not a question either
        assert decide(mode, protocol_instructions(mode)).status == "continue"  # type: ignore[arg-type]
