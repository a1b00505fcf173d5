"""Reading the prompt from stdin: a terminal is told how to end it (issue 19 item 10)."""

from __future__ import annotations

import io

from jlgcli import prompts
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
