"""``jlgcli hook`` run directly, as a user trying it by hand (issue 19 item 11)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from support.cli import Runner

from tests.unit.integrations.tools import add_git_on_windows

HINT = ('the model must end its reply with a JSON object like {"status": "done", '
        '"summary": "..."}; or use --completion marker')  # fmt: skip


@pytest.fixture(autouse=True)
def git_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    add_git_on_windows(monkeypatch)


def test_outside_git_the_error_is_plain(jlg: Runner, tmp_path: Path) -> None:
    result = jlg("hook", "--backend", "claude")
    assert result.returncode == 64
    assert result.stderr.startswith("error: not inside a git work tree")
    assert "usage" not in result.stderr and "--output" not in result.stderr


def test_the_json_hint_is_shown_whole(jlg: Runner, tmp_path: Path) -> None:
    identity = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}  # fmt: skip
    for args in (["init", "-q"], ["add", "a.py"]):
        if args[0] == "add":
            (tmp_path / "a.py").write_text("a = 1\n", encoding="utf-8")
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True,
                       env={**os.environ, **identity})  # fmt: skip
    # The fake claude answers "fake reply / DONE": no JSON status object (exit 65).
    result = jlg("hook", "--backend", "claude")
    assert result.returncode == 65, result.stderr
    lines = result.stderr.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("hint: "))
    end = next(n for n, line in enumerate(lines) if line.startswith("reviewed: "))
    assert " ".join(line.strip() for line in lines[start:end]) == f"hint: {HINT}"
