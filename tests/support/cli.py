"""Running a jlgcli program (console script or frozen exe) the way a user does."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

Runner = Callable[..., subprocess.CompletedProcess[str]]


def command_runner(program: Callable[[], str], default_cwd: Path, *, timeout: float) -> Runner:
    """``run("config", "get", "backend", cwd=..., input=..., env=...)`` → CompletedProcess."""

    def run(
        *args: str,
        cwd: Path | None = None,
        input: str | None = None,
        env: dict[str, str] | None = None,
        timeout: float = timeout,
    ) -> subprocess.CompletedProcess[str]:
        full_env = dict(os.environ)
        full_env.update(env or {})
        return subprocess.run(
            [program(), *args],
            cwd=cwd or default_cwd,
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


def fake_script(
    folder: Path, *turns: dict[str, object], repeat_last: bool = True
) -> dict[str, str]:
    """Write a scripted-fake-agent script in ``folder``; returns the env that selects it."""
    import json

    path = folder / "agent-script.json"
    path.write_text(json.dumps({"turns": list(turns), "repeat_last": repeat_last}), "utf-8")
    return {"JLGCLI_FAKE_SCRIPT": str(path)}


def task_project(tmp_path: Path, task: str) -> Path:
    """``tmp_path/project`` holding ``task.md`` with ``task`` in it."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "task.md").write_text(task, encoding="utf-8")
    return project
