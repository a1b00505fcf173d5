"""A git repository with task files whose fake agents follow their own scripts (issue 37)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}  # fmt: skip


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, **IDENTITY})  # fmt: skip
    return done.stdout


def make_repo(folder: Path) -> Path:
    """A repository with one commit on ``main`` holding ``shared.txt``."""
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q", "-b", "main")
    (folder / "shared.txt").write_text("base\n", encoding="utf-8")
    git(folder, "add", "shared.txt")
    git(folder, "commit", "-q", "-m", "init")
    return folder


def make_tasks(folder: Path, scripts: Path, turns: dict[str, list[dict[str, object]]]) -> list[str]:
    """A task file per name that points the fake agent at its own script; their paths."""
    scripts.mkdir(parents=True, exist_ok=True)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, script in turns.items():
        (scripts / f"{name}.json").write_text(json.dumps({"turns": script}), encoding="utf-8")
        task = folder / f"{name}.md"
        task.write_text(f"Do the {name} task.\nfake-script: {name}\n", encoding="utf-8")
        paths.append(str(task))
    return paths
