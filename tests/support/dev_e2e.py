"""Helpers for the end-to-end tests of ``jlgcli dev`` / ``aidevloop`` (tests/e2e/test_dev_*.py).

The loop runs as a real process (``python -m jlgcli.commands.dev_program``, the
module behind the ``aidevloop``/``adl`` console scripts) in a temporary git
repository copied from ``examples/devloop``. The agent is the scripted fake
``claude`` (or ``copilot``) from ``tests/fakes`` (first on PATH, see
tests/conftest.py), driven by ``JLGCLI_FAKE_SCRIPT`` turns that really write
code, notes and review files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from support.devproject import CLEAN_REVIEW, GREET, git
from support.environ import SUBPROCESS_COVERAGE, without_coverage

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 120.0

GREET_TEST = (
    "import unittest\n\nfrom greetings.core import greet\n\n\n"
    "class GreetTest(unittest.TestCase):\n"
    "    def test_greet(self) -> None:\n"
    "        self.assertEqual(greet('Ada'), 'Hello, Ada!')\n"
    "        self.assertEqual(greet(''), 'Hello, world!')\n"
)
BROKEN = 'def greet(name: str) -> str:\n    return "Hi"\n'
NOTES = "## Summary\nAdded `greet`.\n\n## Files changed\n- greetings/core.py\n"
BLOCKING_REVIEW = (
    "## BLOCKING\n- `greetings/core.py`: empty names are not handled\n\n"
    "## NON-BLOCKING\n- None\n\n## NITPICK\n- None\n"
)


def dev_argv(*args: str) -> list[str]:
    """The ``aidevloop`` command line (the console script runs the same ``main``)."""
    return [sys.executable, "-m", "jlgcli.commands.dev_program", *args]


def implement(code: str = GREET, notes: str | None = NOTES, **extra: Any) -> dict[str, Any]:
    """A turn of the implement agent: code, tests and (unless None) the notes."""
    files = {"greetings/core.py": code, "tests/test_core.py": GREET_TEST}
    if notes is not None:
        files["context/implementation-notes.md"] = notes
    return {"text": "Implemented the task.", "files": files, **extra}


def review(text: str = CLEAN_REVIEW, **extra: Any) -> dict[str, Any]:
    return {"text": "Review written.", "files": {"context/review.md": text}, **extra}


def fix(code: str = GREET, **extra: Any) -> dict[str, Any]:
    notes = NOTES + "\n## Fixes\n- handled the review\n"
    files = {"greetings/core.py": code, "context/implementation-notes.md": notes}
    return {"text": "Fixed.", "files": files, **extra}


def write_script(path: Path, *turns: dict[str, Any], repeat_last: bool = False) -> Path:
    path.write_text(
        json.dumps({"turns": list(turns), "repeat_last": repeat_last}), encoding="utf-8"
    )
    return path


def env_with(script: Path | None = None, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    if script is not None:
        env["JLGCLI_FAKE_SCRIPT"] = str(script)
    env.update(extra)
    return env


def run_dev(
    root: Path, *args: str, script: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the loop with no terminal on stdin (like CI) and capture its output."""
    return subprocess.run(
        dev_argv(*args, "-C", str(root)),
        cwd=root,
        env=env or env_with(script),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=TIMEOUT,
    )


def prompts_sent(script: Path) -> list[str]:
    """Every prompt the fake agent received, in order."""
    folder = Path(f"{script}.prompts")
    return [p.read_text(encoding="utf-8") for p in sorted(folder.glob("[0-9][0-9][0-9].txt"))]


def plan_status(root: Path, task_id: str) -> str:
    from jlgcli.dev.plan_edit import load_plan

    task = load_plan(root / "docs" / "implementation-plan.md", "plan").find(task_id)
    assert task is not None
    return task.status


def commits(root: Path) -> list[str]:
    return git(root, "log", "--format=%s").splitlines()


_SECRET_PREFIXES = (
    "ANTHROPIC_", "OPENAI_", "CODEX_", "CLAUDE_", "COPILOT_", "GEMINI_", "GOOGLE_",
    "GH_", "GITHUB_", "JLGCLI_", "AZURE_OPENAI", "AWS_", "IS_SANDBOX",
)  # fmt: skip


def isolated_env(home: Path, fake_bin: Path, system_bin: Path) -> dict[str, str]:
    """The isolation of tests/conftest.py ``isolated_env``, for module-scoped fixtures.

    Module-scoped fixtures run before the autouse per-test isolation, so they
    build the same environment explicitly: fakes first on PATH, no secrets,
    a temporary HOME, and coverage's subprocess variables only when the loop
    is to be measured (``JLGCLI_TEST_SUBPROCESS_COVERAGE=1``, see support/environ.py):
    a measured loop and its Python children cost 2-3 times the CPU.
    """
    source = dict(os.environ) if SUBPROCESS_COVERAGE else without_coverage()
    env = {k: v for k, v in source.items() if not k.startswith(_SECRET_PREFIXES)}
    for name in ("CI", "GITHUB_ACTIONS", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
        env.pop(name, None)
    home.mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(home),
        USERPROFILE=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        JLGCLI_CONFIG_DIR=str(home / "jlgcli-config"),
        PATH=os.pathsep.join([str(fake_bin), str(system_bin), *_windows_dirs()]),
        PYTHONIOENCODING="utf-8",
        NO_COLOR="1",
    )
    return env


def _windows_dirs() -> list[str]:
    if os.name != "nt":
        return []
    root = os.environ.get("SYSTEMROOT", r"C:\Windows")  # pragma: no cover - Windows CI
    return [rf"{root}\System32", root]  # pragma: no cover


ENTRY_POINTS = ("jlgcli dev", "aidevloop", "adl")


def entry_argv(entry: str, *args: str) -> list[str]:
    """The command line of one of the dev loop's doors, as installed console scripts."""
    folder = Path(sys.executable).parent
    suffix = ".exe" if os.name == "nt" else ""
    if entry == "jlgcli dev":
        return [str(folder / f"jlgcli{suffix}"), "dev", *args]
    return [str(folder / f"{entry}{suffix}"), *args]


def run_entry(
    entry: str,
    root: Path,
    *args: str,
    script: Path | None = None,
    env: dict[str, str] | None = None,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run the loop through ``entry`` (``jlgcli dev``, ``aidevloop``, ``adl``) in ``root``."""
    return subprocess.run(
        entry_argv(entry, *args),
        cwd=root,
        env=env or env_with(script),
        stdin=subprocess.DEVNULL if input is None else None,
        input=input,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=TIMEOUT,
    )


def committed_files(root: Path, rev: str = "HEAD") -> list[str]:
    """The files a commit changed."""
    return git(root, "show", "--name-only", "--format=", rev).split()
