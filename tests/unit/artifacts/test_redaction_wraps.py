"""Issue 43: a key hard-wrapped at a pty's width is masked whole; other lines are left alone."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from jlgcli.artifacts.redact import Redactor

KEY = "sk-ant-api03-Zq7Xw2Lm9Pk4Rt6Vb8Nc3Hd5Jf1Gs0YaZq7Xw2Lm9Pk4Rt6Vb8Nc3Hd5Jf1Gs0YaAA"


def wrapped(text: str, width: int, newline: str = "\r\n") -> bytes:
    lines = []
    for line in text.split("\n"):
        while len(line) > width:
            lines += [line[:width]]
            line = line[width:]
        lines.append(line)
    return newline.join(lines).encode()


def redact(data: bytes, width: int, cuts: list[int] = ()) -> bytes:  # type: ignore[assignment]
    stream = Redactor(environ={}).stream()
    stream.wrapped_at(width)
    bounds = sorted({min(cut, len(data)) for cut in cuts} | {0, len(data)})
    out = b"".join(stream.feed(data[lo:hi]) for lo, hi in itertools.pairwise(bounds))
    return out + stream.flush()


@settings(max_examples=60, deadline=None)
@given(
    width=st.integers(12, 60),
    lead=st.text(alphabet="abc xyz:", max_size=30),
    cuts=st.lists(st.integers(0, 300), max_size=4),
    newline=st.sampled_from(["\r\n", "\n"]),
)
def test_a_wrapped_key_leaves_no_piece_of_its_body(
    width: int, lead: str, cuts: list[int], newline: str
) -> None:
    data = wrapped(f"{lead} key {KEY} trailing words\nDONE\n", width, newline)
    out = redact(data, width, cuts).decode()
    for at in range(13, len(KEY) - 6, 6):
        assert KEY[at : at + 6] not in out, (KEY[at : at + 6], out)
    assert out.endswith(f"{newline}DONE{newline}")
    assert out.count(newline) == data.decode().count(newline)  # no line break is masked


def test_lines_at_the_width_without_a_secret_are_unchanged() -> None:
    data = wrapped("the tests all pass now and the build is green\nDONE\n", 12)
    assert redact(data, 12) == data
    coloured = b"\x1b[32mabcdefghijkl\x1b[0m\r\nmnop\r\nDONE\r\n"
    assert redact(coloured, 12) == coloured


def test_without_a_width_a_line_break_ends_a_key() -> None:
    data = wrapped(f"key {KEY}\n", 40)
    out = Redactor(environ={}).redact(data.decode())
    assert out.startswith("key [REDACTED]") and KEY[36:50] in out  # the tail leaked before
