"""A git repository as the working folder, with the fake agents' scripts beside it."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.batch import make_repo


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = make_repo(tmp_path / "repo")
    monkeypatch.chdir(folder)
    monkeypatch.setenv("JLGCLI_FAKE_SCRIPT", str(tmp_path / "scripts"))
    return folder
