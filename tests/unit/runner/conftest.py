"""Fixtures of the runner's unit tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from jlgcli.runner import worktree


@pytest.fixture
def gits(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The git commands run, in order (still run for real)."""
    ran: list[tuple[str, ...]] = []
    real = worktree._git

    def counting(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str | None:
        ran.append(args)
        return real(cwd, *args, env=env)

    monkeypatch.setattr(worktree, "_git", counting)
    return ran
