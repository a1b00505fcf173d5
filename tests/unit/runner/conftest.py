"""Fixtures of the runner's unit tests."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from jlgcli.process import git


@pytest.fixture
def gits(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The git commands run, in order (still run for real)."""
    ran: list[tuple[str, ...]] = []
    real = git.run

    def counting(
        cwd: Path | str, *args: str, env: Mapping[str, str] | None = None, **rest: object
    ) -> git.CommandResult:
        ran.append(args)
        return real(cwd, *args, env=env, **rest)  # type: ignore[arg-type]

    monkeypatch.setattr(git, "run", counting)
    return ran
