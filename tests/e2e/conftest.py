"""Helpers for end-to-end tests that run the installed ``jlgcli`` as a user would."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

Runner = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def jlg(jlgcli_exe: str, tmp_path: Path) -> Runner:
    """``jlg("config", "get", "backend", cwd=..., input=...)`` → CompletedProcess (text)."""

    def run(
        *args: str,
        cwd: Path | None = None,
        input: str | None = None,
        timeout: float = 120,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        import os

        full_env = dict(os.environ)
        full_env.update(env or {})
        return subprocess.run(
            [jlgcli_exe, *args],
            cwd=cwd or tmp_path,
            input=input,
            stdin=None if input is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=timeout,
            env=full_env,
        )

    return run
