"""The ``marker`` completion protocol (RG-009): done iff the last non-empty line is DONE."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jlgcli.ansi import clean_terminal_text
from jlgcli.completion import marker


def reference_last_line(text: str) -> str | None:
    """The definition, line by line: each line cleaned on its own, right-stripped."""
    for raw in reversed(text.split("\n")):
        line = clean_terminal_text(raw).rstrip()
        if line:
            return line
    return None


# RG-009 table: (text, done, near miss reported)
RG_009 = [
    ("DONE", True, False),
    ("DONE\n", True, False),
    ("work\nmore work\nDONE", True, False),
    ("DONE   \t", True, False),
    ("DONE\r\n", True, False),
    ("DONE\r\n\r\n   \n\n", True, False),
    ("\x1b[1;32mDONE\x1b[0m\n", True, False),
    ("\x1b]0;title\x07DONE\x1b[K\r\n", True, False),
    ("progress 10%\rprogress 99%\rDONE\n", True, False),
    ("\x1b]0;unterminated OSC\nDONE", True, False),
    ("DONE.", False, True),
    ("DONE!", False, True),
    ("**DONE**", False, True),
    ("`DONE`", False, True),
    ("done", False, True),
    ("Done", False, True),
    ("  DONE", False, True),
    ("> DONE", False, True),
    ("All tests pass. DONE", False, True),
    ("```\nDONE\n```", False, True),
    ("```text\n**DONE**\n```\n", False, True),
    ("DONE\nOne more thing: the docs.", False, False),
    ("not done yet", False, False),
    ("I am not DONE with it, continuing", False, False),
    ("DONEZO", False, False),
    ("UNDONE", False, False),
    ("```\nsome code\n```", False, False),
    ("", False, False),
    ("   \n\t\n", False, False),
    ("\x1b[0m\x1b[K\n", False, False),
]


@pytest.mark.parametrize(("text", "done", "miss"), RG_009)
def test_rg_009_table(text: str, done: bool, miss: bool) -> None:
    assert marker.is_done(text) is done
    assert (marker.near_miss(text) is not None) is miss


def test_last_line_after_a_long_blank_tail() -> None:
    """The blocks read from the end double until a visible line appears."""
    tail = "\x1b[0m\x1b[K\r\n" * 50_000 + " \n" * 10_000
    assert marker.is_done("x\n" * 1000 + "DONE\n" + tail)
    assert marker.last_line("first\n" + tail) == "first"
    assert marker.last_line(tail) is None


def test_osc_spanning_lines_does_not_hide_later_lines() -> None:
    text = "before\n\x1b]8;;http://example.org\nlink\x1b]8;;\x07\nDONE\n" + "\x1b]0;t\n" * 3000
    assert marker.last_line(text) == "DONE"


def test_last_lines_returns_the_requested_count() -> None:
    assert marker.last_lines("a\n\nb\n c \n", 2) == [" c", "b"]
    assert marker.last_lines("a", 5) == ["a"]


@settings(max_examples=400)
@given(st.text(alphabet=st.sampled_from("DONEdone \t\r\n\x1b[]0;m7\x07\\*`.x✓"), max_size=80))
def test_matches_the_line_by_line_definition(text: str) -> None:
    """RG-009 exactly as defined, on arbitrary text (never raises)."""
    assert marker.last_line(text) == reference_last_line(text)
    assert marker.is_done(text) == (reference_last_line(text) == "DONE")


@settings(max_examples=100)
@given(st.text(max_size=200), st.sampled_from(["", "\n", "\r\n", "  \n\n", "\x1b[0m\n"]))
def test_done_appended_on_its_own_line_is_always_seen(prefix: str, suffix: str) -> None:
    assert marker.is_done(prefix + "\nDONE" + suffix)
