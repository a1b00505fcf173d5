"""Fixtures for end-to-end tests that run the installed ``jlgcli`` as a user would."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import Runner, command_runner


@pytest.fixture
def jlg(jlgcli_exe: str, tmp_path: Path) -> Runner:
    """``jlg("config", "get", "backend", cwd=..., env=...)`` → CompletedProcess (text)."""
    return command_runner(lambda: jlgcli_exe, tmp_path, timeout=120)
