"""Users read plain words (issue 19 items 12 and 13), through the installed console script.

The specs' ids (RG-011, F-004, FR-4.2, REQ_AUTO_040, "seed 000") and issue numbers stay in
code comments and tests; --help, summaries, errors and docs never show them (issue 49).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.cli import Runner

from jlgcli.commands.parser import COMMANDS

SPEC_ID = re.compile(r"\b(?:RG-\d|F-\d{3}|FR-\d|NFR-\d|REQ_AUTO|US-\d|AC-\d)|seed 00\d|\bissue \d")


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_has_no_spec_ids(jlg: Runner, command: str) -> None:
    result = jlg(*([command] if command else []), "--help")
    assert result.returncode == 0, result.stderr
    assert not SPEC_ID.search(result.stdout + result.stderr), command


def test_summaries_and_errors_have_no_spec_ids(jlg: Runner, tmp_path: Path) -> None:
    task = tmp_path / "task.md"
    task.write_text("Do it.\n", encoding="utf-8")
    outputs = [
        jlg("loop", str(task), "-b", "claude", "-n", "1"),  # the fake says "fake reply\nDONE"
        jlg("loop", str(task), "-b", "claude", "-n", "1", env={"JLGCLI_FAKE_LOGGED_OUT": "1"}),
        jlg("loop", str(task), "--timeout", "30"),
        jlg("demo", "--max-iterations", "1"),
    ]
    for result in outputs:
        assert not SPEC_ID.search(result.stdout + result.stderr), result.stderr


def test_an_empty_recording_says_there_is_nothing_to_replay(jlg: Runner, tmp_path: Path) -> None:
    """Issue 19 item 13: not "backend replay is not installed: no recorded iterations"."""
    task = tmp_path / "task.md"
    task.write_text("Do it.\n", encoding="utf-8")
    empty = tmp_path / "recording"
    empty.mkdir()
    result = jlg("loop", str(task), "--backend", "replay", "--replay", str(empty))
    assert result.returncode == 2
    assert "nothing to replay: no recorded iterations" in result.stderr
    assert "is not installed" not in result.stderr
