"""Reading the prompt: a terminal is told how to end it (issue 19 item 10); bounded, UTF-8
(issue 31)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from jlgcli import prompts
from jlgcli.errors import ExitCode, JlgError
from jlgcli.prompts import end_of_input_keys, read_prompt


class _Terminal(io.BytesIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_is_told_how_to_end_the_prompt(monkeypatch) -> None:
    monkeypatch.setattr(prompts.os, "name", "posix")
    err = io.StringIO()
    prompt = read_prompt("-", stdin=_Terminal(b"fix the bug\n"), stderr=err)
    assert prompt.text == "fix the bug\n"
    assert err.getvalue() == "reading the prompt from stdin (Ctrl-D to end)\n"


def test_a_pipe_is_read_silently() -> None:
    err = io.StringIO()
    assert read_prompt("-", stdin=io.BytesIO(b"task\n"), stderr=err).text == "task\n"
    assert err.getvalue() == ""


def test_the_keys_follow_the_os() -> None:
    assert end_of_input_keys(windows=False) == "Ctrl-D"
    assert end_of_input_keys(windows=True) == "Ctrl-Z then Enter"


def test_windows_wording_on_a_terminal(monkeypatch) -> None:
    monkeypatch.setattr(prompts.os, "name", "nt")
    err = io.StringIO()
    read_prompt("-", stdin=_Terminal(b"task\n"), stderr=err)
    assert "(Ctrl-Z then Enter to end)" in err.getvalue()


# -- bounds and encoding (issue 31) -------------------------------------------------------------
class _Endless(io.RawIOBase):
    """A stream that never ends, like /dev/zero, counting what was asked of it."""

    def __init__(self) -> None:
        self.given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        size = len(buffer)
        buffer[:size] = b"a" * size
        self.given += size
        return size


def test_an_endless_stream_is_read_only_past_the_limit() -> None:
    endless = _Endless()
    with pytest.raises(JlgError) as caught:
        read_prompt("-", stdin=io.BufferedReader(endless), max_bytes=100_000)
    assert caught.value.code == ExitCode.NO_INPUT and "maxPromptBytes" in caught.value.message
    assert 100_000 < endless.given <= 100_000 + 2 * 64 * 1024  # bounded, never read whole


def test_a_prompt_of_exactly_the_limit_is_read() -> None:
    prompt = read_prompt("-", stdin=io.BytesIO(b"x" * 2048), max_bytes=2048)
    assert len(prompt.text) == 2048


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"caf\xe9\n", "byte 0xe9, which is not UTF-8 at byte 3"),
        (b"\xef\xbb\xbfok \xff", "byte 0xff, which is not UTF-8 at byte 6"),  # after a BOM
        (b"\xff\xfeh\x00i\x00", "byte 0xff, which is not UTF-8 at byte 0"),  # UTF-16
        (b"ok\x00\x00", "a NUL byte (binary data) at byte 2"),
    ],
)
def test_a_prompt_that_is_not_utf8_text_names_the_offset(
    tmp_path: Path, data: bytes, message: str
) -> None:
    path = tmp_path / "prompt.md"
    path.write_bytes(data)
    for source, stdin in ((str(path), None), ("-", io.BytesIO(data))):
        with pytest.raises(JlgError) as caught:
            read_prompt(source, stdin=stdin)
        assert caught.value.code == ExitCode.NO_INPUT and message in caught.value.message


def test_a_bom_and_crlf_are_still_tolerated() -> None:
    prompt = read_prompt("-", stdin=io.BytesIO(b"\xef\xbb\xbfcaf\xc3\xa9\r\nok\r\n"))
    assert prompt.text == "café\nok\n"
