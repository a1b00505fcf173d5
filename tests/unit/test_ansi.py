"""Terminal escapes removed from the text parsers see (DESIGN "Transport", RG-009)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jlgcli.ansi import (
    clean_terminal_text,
    resolve_carriage_returns,
    strip_escapes,
    terminal_safe,
)


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


# --- terminal_safe: what reaches the user's terminal (issue 15) --------------------------


_SGR = re.compile(r"\x1b\[[0-9;:]*m")


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b]52;c;ZWNobyBwd25lZA==\x07after", "after"),  # OSC 52 clipboard write
        ("\x1b]52;c;ZWNobw==\x1b\\after", "after"),
        ("\x1b]0;evil title\x07x", "x"),
        ("\x1b[2J\x1b[Hcleared", "cleared"),
        ("\x1b[10;20Hmoved\x1b[3A", "moved"),
        ("\x1bPq#0;2;0;0;0\x1b\\dcs", "dcs"),
        ("\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\z", "z"),
        ("bell\x07 back\x08space\x00", "bell backspace"),
        ("\x9b2J C1 \x9d0;t\x07", "2J C1 0;t"),
        ("lone \x1b", "lone "),
        ("\x1b[31mred\x1b[0m \x1b[1;32mbold\x1b[m", "\x1b[31mred\x1b[0m \x1b[1;32mbold\x1b[m"),
        ("tab\tnewline\ncr\r", "tab\tnewline\ncr\r"),
        ("plain é ✓", "plain é ✓"),
    ],
)
def test_terminal_safe_keeps_only_colours(raw: str, shown: str) -> None:
    assert terminal_safe(raw) == shown


_pieces = st.sampled_from(
    ["\x1b", "[", "]", "52;c;", "31", ";", "m", "\x07", "\x1b\\", "P", "_", "\x9b", "\x9d",
     "\x08", "\n", "\r", "a", "é", "0", "H", "?25l", "(", "B"]
)  # fmt: skip


@given(st.one_of(st.text(), st.lists(_pieces).map("".join)))
def test_terminal_safe_leaves_no_escape_outside_a_complete_sgr(text: str) -> None:
    shown = _SGR.sub("", terminal_safe(text))
    assert "\x1b" not in shown
    assert not any(ord(ch) < 0x20 and ch not in "\t\n\r" for ch in shown)
    assert not any(0x7F <= ord(ch) <= 0x9F for ch in shown)
