"""Answers to terminal queries under the pty (backends.md §3: ESC[6n, ESC[c stall TUIs)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jlgcli.process.terminal import TerminalResponder, typed_input


def test_cursor_position_and_device_attributes_are_answered() -> None:
    responder = TerminalResponder()
    assert responder.feed("hello\x1b[6n") == b"\x1b[1;1R"
    assert responder.feed("\x1b[c") == b"\x1b[?1;2c"
    assert responder.feed("\x1b[0c\x1b[5n") == b"\x1b[?1;2c\x1b[0n"
    assert responder.feed("plain \x1b[31mred\x1b[0m") == b""


def test_a_query_split_across_chunks_is_answered_once() -> None:
    responder = TerminalResponder()
    assert responder.feed("abc\x1b[") == b""
    assert responder.feed("6nxyz") == b"\x1b[1;1R"
    assert responder.feed("more") == b""


@given(
    st.lists(st.sampled_from(["a", "b\r\n", "\x1b[6n", "\x1b[c", "\x1b[1m", "é"]), max_size=30),
    st.lists(st.integers(min_value=0, max_value=200), max_size=8),
)
def test_any_chunking_gives_one_reply_per_query(pieces: list[str], cuts: list[int]) -> None:
    text = "".join(pieces)
    bounds = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    responder = TerminalResponder()
    replies = b"".join(responder.feed(text[a:b]) for a, b in itertools.pairwise(bounds))
    expected = b"".join(
        b"\x1b[1;1R" if p == "\x1b[6n" else b"\x1b[?1;2c"
        for p in pieces
        if p in ("\x1b[6n", "\x1b[c")
    )
    assert replies == expected


def test_typed_input_ends_with_ctrl_d_on_posix() -> None:
    assert typed_input(b"hi\n", is_windows=False) == b"hi\n\x04"
    assert typed_input(b"hi", is_windows=False) == b"hi\x04\x04"


@pytest.mark.parametrize(
    ("data", "typed"),
    [
        (b"hi\n", b"hi\r\x1a\r"),
        (b"one\r\ntwo", b"one\rtwo\r\x1a\r"),
        (b"", b"\x1a\r"),
    ],
)
def test_typed_input_ends_with_ctrl_z_enter_in_a_windows_console(data: bytes, typed: bytes) -> None:
    # issue 47: a Windows console's end of input is Ctrl+Z at the start of a line, then Enter.
    assert typed_input(data, is_windows=True) == typed
