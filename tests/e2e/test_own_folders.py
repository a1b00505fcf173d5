"""Issue 46: jlgcli writes its records only into folders of its own.

A cloned repository can hold ``.jlgcli`` (or ``ledger``, or
``.jlgcli/worktrees``) as a symlink to anywhere, or a folder another user made:
jlgcli then refuses with exit 73 naming the path, and writes nothing there.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.cli import Runner

needs_symlinks = pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")


def _project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    project = tmp_path / "project"
    project.mkdir()
    (project / "task.md").write_text("Say done.\n", "utf-8")
    script = tmp_path / "agent-script.json"
    script.write_text(json.dumps({"turns": [{"text": "ok\nDONE"}]}), "utf-8")
    return project, {"JLGCLI_FAKE_SCRIPT": str(script)}


@needs_symlinks
@pytest.mark.parametrize("name", [".jlgcli", ".jlgcli/runs"])
def test_a_symlinked_run_folder_is_refused(jlg: Runner, tmp_path: Path, name: str) -> None:
    project, env = _project(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = project / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(elsewhere, target_is_directory=True)
    result = jlg("loop", "task.md", "-b", "claude", "--artifacts", cwd=project, env=env)
    assert result.returncode == 73, result.stderr
    assert str(link) in result.stderr and "symlink" in result.stderr
    assert list(elsewhere.iterdir()) == []


@needs_symlinks
def test_a_symlinked_ledger_is_refused(jlg: Runner, tmp_path: Path) -> None:
    project, env = _project(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / "ledger").symlink_to(elsewhere, target_is_directory=True)
    result = jlg("loop", "task.md", "-b", "claude", "--completion", "rebound", cwd=project, env=env)
    assert result.returncode == 73, result.stderr
    assert str(project / "ledger") in result.stderr
    assert list(elsewhere.iterdir()) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="root: chown")
def test_a_run_folder_of_another_user_is_refused(jlg: Runner, tmp_path: Path) -> None:
    project, env = _project(tmp_path)
    (project / ".jlgcli").mkdir()
    os.chown(project / ".jlgcli", 65534, 65534)
    result = jlg("loop", "task.md", "-b", "claude", "--artifacts", cwd=project, env=env)
    assert result.returncode == 73, result.stderr
    assert str(project / ".jlgcli") in result.stderr and "another user" in result.stderr
