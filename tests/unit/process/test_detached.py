"""``process.detached.start_self``: a jlgcli of its own, its output in a log (issue 52)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from jlgcli._version import __version__
from jlgcli.process.detached import start_self


def _wait_for(path: Path, text: str) -> str:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = path.read_text("utf-8", "replace") if path.exists() else ""
        if text in found:
            return found
        time.sleep(0.1)
    pytest.fail(f"{text!r} never reached {path}")


def test_it_runs_jlgcli_itself_with_its_output_in_the_log(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "out.log"
    pid = start_self(["--version"], cwd=tmp_path, log=log)
    assert pid > 0
    assert __version__ in _wait_for(log, __version__)


def test_what_it_is_given_reaches_its_stdin_never_its_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from support.cli import fake_script

    for name, value in fake_script(tmp_path, {"text": "hello back\nDONE"}).items():
        monkeypatch.setenv(name, value)  # the fake claude keeps every prompt it was given
    log = tmp_path / "out.log"
    text = "Say hello from stdin.\nA second line."
    start_self(["run", "-", "-b", "claude"], cwd=tmp_path, log=log, stdin=text.encode())
    _wait_for(log, "hello back")
    (prompt,) = (tmp_path / "agent-script.json.prompts").glob("*.txt")
    assert text in prompt.read_text("utf-8")
