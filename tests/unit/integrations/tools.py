"""Finding git and bash for the door tests, on Windows too.

The root conftest's PATH keeps only the fakes and a few system tools; on Windows it
has no git (Git for Windows lives in ``...\\Git\\cmd``), and ``bash`` there may be
WSL's launcher in System32. The door tests need Git for Windows' git and bash, as
pre-commit and the Action's ``shell: bash`` do.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ORIGINAL_PATH = os.environ.get("PATH", "")  # read at import (collection), before any monkeypatch


def git_for_windows_dirs(original_path: str = ORIGINAL_PATH) -> list[str]:
    """``...\\Git\\cmd`` and ``...\\Git\\bin`` when git is on the original PATH."""
    git = shutil.which("git", path=original_path)
    if not git:
        return []
    root = Path(git).resolve().parent.parent
    return [str(Path(git).parent), str(root / "bin")]


def add_git_on_windows(
    monkeypatch: pytest.MonkeyPatch, *, is_windows: bool = os.name == "nt"
) -> None:
    """Append Git for Windows' directories to the test PATH (no-op elsewhere)."""
    if is_windows:
        extra = git_for_windows_dirs()
        monkeypatch.setenv("PATH", os.pathsep.join([os.environ.get("PATH", ""), *extra]))


def find_bash(*, is_windows: bool = os.name == "nt") -> str | None:
    """Git Bash on Windows (never WSL's System32 launcher), else bash on PATH."""
    if is_windows:
        for directory in git_for_windows_dirs():
            candidate = Path(directory) / "bash.exe"
            if candidate.exists():
                return str(candidate)
        return None
    return shutil.which("bash")
