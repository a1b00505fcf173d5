"""Terminal escapes removed from the text parsers see (DESIGN "Transport", RG-009)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jlgcli.ansi import clean_terminal_text, resolve_carriage_returns, strip_escapes


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("\x1b[31mred\x1b[0m", "red"),
        ("\x1b[?1006l\x1b[?25hDONE", "DONE"),
        ("\x1b]0;title\x07text", "text"),
        ("\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\", "link"),
        ("a\x1b7b\x1b8c", "abc"),
        ("\x1b(Bplain", "plain"),
        ("bell\x07 and nul\x00 and del\x7f", "bell and nul and del"),
        ("tab\tkept\nnewline kept", "tab\tkept\nnewline kept"),
        ("lone escape at the end\x1b", "lone escape at the end"),
        ("\x9b1mC1 CSI", "C1 CSI"),
        ("no escapes at all", "no escapes at all"),
    ],
)
def test_strip_escapes(raw: str, clean: str) -> None:
    assert strip_escapes(raw) == clean


def test_an_unterminated_osc_does_not_swallow_later_lines() -> None:
    assert strip_escapes("\x1b]0;title without end\nDONE\n") == "\nDONE\n"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("line\r\nnext\r\n", "line\nnext\n"),
        ("loading 10%\rloading 99%\rdone", "done"),
        ("text\r\n", "text\n"),
        ("kept\r", "kept"),
        ("\r\r", ""),
    ],
)
def test_carriage_returns(raw: str, shown: str) -> None:
    assert resolve_carriage_returns(raw) == shown


def test_clean_terminal_text_combines_both() -> None:
    assert clean_terminal_text("\x1b[2K\rspinner |\r\x1b[2Kresult\r\nDONE\x1b[0m\r\n") == (
        "result\nDONE\n"
    )


@given(st.text())
def test_never_leaves_an_escape_or_control_behind(text: str) -> None:
    cleaned = clean_terminal_text(text)
    assert "\x1b" not in cleaned and "\r" not in cleaned
    assert all(ch in "\t\n" or ord(ch) >= 0x20 for ch in cleaned if ord(ch) < 0x80)
