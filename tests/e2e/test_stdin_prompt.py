"""``jlgcli run -`` on a terminal says it is reading the prompt (issue 19 item 10), through the
installed console script on a real pseudo-terminal (POSIX; Windows wording: tests/unit)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")


def test_run_dash_on_a_terminal_announces_the_read(jlgcli_exe: str, tmp_path: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(
        jlgcli_exe, ["run", "-", "--backend", "claude", "-q"], cwd=str(tmp_path),
        encoding="utf-8", timeout=60,
    )  # fmt: skip
    try:
        child.expect_exact("reading the prompt from stdin (Ctrl-D to end)")
        child.sendline("Say hello.")
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0, child.before


def test_a_piped_prompt_is_read_silently(jlg, tmp_path: Path) -> None:
    result = jlg("run", "-", "--backend", "claude", "-q", input="Say hello.\n")
    assert result.returncode == 0, result.stderr
    assert "reading the prompt" not in result.stderr
