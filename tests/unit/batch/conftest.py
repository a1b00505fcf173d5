"""Shared fixtures of the batch tests (issues 37, 44)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.batch import make_repo


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with one commit, the working directory; the fake agents' scripts in
    ``tmp_path/scripts`` (``support.batch.make_tasks``)."""
    folder = make_repo(tmp_path / "repo")
    monkeypatch.chdir(folder)
    monkeypatch.setenv("JLGCLI_FAKE_SCRIPT", str(tmp_path / "scripts"))
    return folder
