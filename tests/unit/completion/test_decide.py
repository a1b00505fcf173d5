"""The completion dispatcher: ``decide`` and ``protocol_instructions`` (F-004, RG-009, RG-010)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jlgcli.completion import MODES, Decision, decide, protocol_instructions


@pytest.mark.parametrize(
    ("text", "status", "violation"),
    [
        ("Implemented the parser.\nDONE\n", "done", False),
        ("Still working on the tests.", "continue", False),
        ("All good.\nDONE.", "continue", True),  # F-004: protocol not followed
        ("**DONE**", "continue", True),
        ("", "continue", True),
        (" \n\x1b[0m\n", "continue", True),
    ],
)
def test_marker_mode(text: str, status: str, violation: bool) -> None:
    decision = decide("marker", text)
    assert (decision.status, decision.protocol_violation) == (status, violation)
    assert decision.summary is None and decision.next is None
    assert decision.reason


def test_marker_near_miss_reason_quotes_the_line() -> None:
    decision = decide("marker", "work\n" + "DONE." + " x" * 100 + " DONE")
    assert "not exactly DONE" in decision.reason
    assert "…" in decision.reason


@pytest.mark.parametrize(
    ("text", "status", "summary", "next_step"),
    [
        ('Done.\n{"status": "done", "summary": "42 pass", "next": null}', "done", "42 pass", None),
        ('{"status": "continue", "next": "write docs"}', "continue", None, "write docs"),
        ('{"status": "error", "summary": "no access"}', "error", "no access", None),
    ],
)
def test_json_mode(text: str, status: str, summary: str | None, next_step: str | None) -> None:
    reason = f'the reply\'s JSON says "status": "{status}"'
    assert decide("json", text) == Decision(status, summary, next_step, False, reason)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty reply"),
        ("  \n", "empty reply"),
        ("DONE", 'no top-level JSON object with a valid "status"'),
        ('{"data": {"status": "done"}}', 'no top-level JSON object with a valid "status"'),
    ],
)
def test_json_mode_invalid(text: str, reason: str) -> None:
    """F-004: no valid object is invalid-json (the loop exits 65)."""
    decision = decide("json", text)
    assert decision.status == "invalid-json"
    assert decision.protocol_violation
    assert decision.reason.startswith(reason)


def test_unknown_mode_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown completion mode"):
        decide("rebound", "x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown completion mode"):
        protocol_instructions("xml")  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", MODES)
def test_instructions_are_short_and_have_an_example(mode: str) -> None:
    text = protocol_instructions(mode)  # type: ignore[arg-type]
    assert "example" in text.lower()
    assert len(text) < 800


def test_instructions_echoed_back_do_not_read_as_done() -> None:
    """A CLI that echoes the prompt must not make an empty reply look finished."""
    assert decide("marker", protocol_instructions("marker")).status == "continue"
    assert decide("json", protocol_instructions("json")).status == "continue"


def test_marker_example_in_the_instructions_follows_the_protocol() -> None:
    text = protocol_instructions("marker")
    example = text[text.index("All tests pass.") : text.index("DONE\n") + 4]
    assert decide("marker", example).status == "done"


def test_decision_is_frozen() -> None:
    with pytest.raises(AttributeError):
        decide("marker", "DONE").status = "continue"  # type: ignore[misc]


@settings(max_examples=300)
@given(st.text())
def test_never_raises_on_any_text(text: str) -> None:
    for mode in MODES:
        assert decide(mode, text).status in ("done", "continue", "error", "invalid-json")
