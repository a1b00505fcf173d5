"""A dev-loop sample project in a fresh git repository, for unit and end-to-end tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "devloop"
GREET = "def greet(name: str) -> str:\n    return f\"Hello, {name or 'world'}!\"\n"
CLEAN_REVIEW = "## BLOCKING\n- None\n\n## NON-BLOCKING\n- add a docstring\n\n## NITPICK\n- None\n"


def git(root: Path, *args: str) -> str:
    """Run git in ``root``; its stdout."""
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def make_project(
    root: Path, config: dict[str, Any] | None = None, *, trust_dir: Path | None = None
) -> Path:
    """``examples/devloop`` copied to ``root`` and committed in a new git repository.

    Its ``.aidevloop.json`` is trusted (``jlgcli config trust``) in ``trust_dir``,
    by default the test's ``JLGCLI_CONFIG_DIR``, so its validation commands may run.
    """
    shutil.copytree(EXAMPLE, root)
    if config is not None:
        (root / ".aidevloop.json").write_text(json.dumps(config), encoding="utf-8")
    folder = trust_dir or os.environ.get("JLGCLI_CONFIG_DIR")
    if folder:
        from jlgcli.config.write import trust_files

        trust_files([root / ".aidevloop.json"], env={"JLGCLI_CONFIG_DIR": str(folder)})
    git(root, "init", "-q")
    git(root, "config", "user.name", "Dev Loop Test")
    git(root, "config", "user.email", "devloop@example.invalid")
    git(root, "config", "commit.gpgsign", "false")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root
