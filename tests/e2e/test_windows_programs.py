"""Windows for real (windows-latest CI): npm's claude.cmd, and a repository's programs (issue 47).

The fake claude (tests/fakes/claude.py, Claude Code as backends.md describes it)
is installed the way npm installs a CLI: a ``.cmd`` shim of npm/cmd-shim's shape
(``lib/index.js``: a ``#!/usr/bin/env python`` script) in a folder whose name has
a space. The loop runs in a folder that holds its own ``claude.cmd``, ``git.cmd``,
``taskkill.cmd``, ``node.cmd`` and ``python.cmd``: none of them may ever run.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from support.cli import Runner, fake_script

pytestmark = pytest.mark.skipif(sys.platform != "win32", reason="cmd.exe and npm shims")

FAKES = Path(__file__).resolve().parents[1] / "fakes"
HOSTILE = ("claude", "git", "taskkill", "node", "python")
SHIM = (
    "@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\n"
    "SETLOCAL\r\nCALL :find_dp0\r\n\r\n"
    'IF EXIST "%dp0%\\python.exe" (\r\n  SET "_prog=%dp0%\\python.exe"\r\n) ELSE (\r\n'
    '  SET "_prog=python"\r\n  SET PATHEXT=%PATHEXT:;.JS;=;%\r\n)\r\n\r\n'
    "endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "
    '"%_prog%"  "%dp0%\\node_modules\\@anthropic-ai\\claude-code\\cli.py" %*\r\n'
)


def _npm_claude(root: Path) -> Path:
    npm = root / "npm global"
    package = npm / "node_modules" / "@anthropic-ai" / "claude-code"
    package.mkdir(parents=True)
    shutil.copy(FAKES / "claude.py", package / "cli.py")
    shutil.copy(FAKES / "_fake_engine.py", package / "_fake_engine.py")
    (npm / "claude.cmd").write_text(SHIM, encoding="utf-8")
    return npm


def _hostile_repository(root: Path) -> Path:
    repo = root / "cloned repo"
    repo.mkdir()
    for name in HOSTILE:
        (repo / f"{name}.cmd").write_text(
            f'@echo ran> "%~dp0ran-{name}.txt"\r\n@exit /b 3\r\n', encoding="utf-8"
        )
    (repo / "task.md").write_text("Do it.\n", encoding="utf-8")
    return repo


def test_json_completion_and_a_bracketed_model_reach_npm_s_claude_cmd(
    jlg: Runner, tmp_path: Path
) -> None:
    npm, repo = _npm_claude(tmp_path), _hostile_repository(tmp_path)
    status = {"status": "done", "summary": "all done", "next": None}
    env = fake_script(tmp_path, {"text": "All done.", "structured": status})
    python_folder = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join([str(npm), python_folder, os.environ["PATH"]])
    result = jlg(
        "loop", "task.md", "-b", "claude", "--completion", "json", "--model", "sonnet[1m]",
        "--json", cwd=repo, env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["summary"] == "all done"
    argv = json.loads((tmp_path / "agent-script.json.prompts" / "000.argv.json").read_text())
    assert argv[argv.index("--model") + 1] == "sonnet[1m]"
    schema = json.loads(argv[argv.index("--json-schema") + 1])
    assert schema["properties"]["status"]["enum"] == ["continue", "done", "error", "question"]
    for command in (("doctor",), ("backends",), ("run", "task.md", "-b", "claude")):
        jlg(*command, cwd=repo, env=env)
    assert sorted(p.name for p in repo.glob("ran-*")) == []
