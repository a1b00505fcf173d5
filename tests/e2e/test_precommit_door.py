"""The pre-commit door end to end: the real ``pre-commit`` installs this repository's hook
(``language: python``: it pip-installs jlgcli into its own venv) and runs ``jlgcli hook``
over the staged files of a temp repo, with the fake ``claude`` first on PATH (issue 8).
The runs use a ``.pre-commit-config.yaml`` naming the repository at a commit, as users do,
so the hook's venv is built once per session (``try-repo`` rebuilds it for every run: ~15 s
each, issue 18).

The hook repository is a copy of the working tree, committed in a temp dir, so the test does
not depend on what is committed here. Installing needs the package index (or pip's cache) for
jlgcli's dependencies, like any ``pre-commit install``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.environ import tool_environ

from jlgcli.commands.parser import COMMANDS
from tests.unit.integrations.tools import add_git_on_windows

pytest.importorskip("pre_commit", reason="pip install pre-commit (test extra)")

REPO_ROOT = Path(__file__).resolve().parents[2]
HOOK_FILES = ("pyproject.toml", "README.md", "LICENSE", ".pre-commit-hooks.yaml")
GIT_IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}  # fmt: skip


@pytest.fixture(autouse=True)
def git_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    add_git_on_windows(monkeypatch)


needs_hook_command = pytest.mark.skipif(
    "hook" not in COMMANDS,
    reason="'hook' is not wired into jlgcli/commands/parser.py COMMANDS yet",
)


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, **GIT_IDENTITY})  # fmt: skip


def pre_commit(cwd: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args], cwd=cwd, capture_output=True, text=True,
        encoding="utf-8", errors="replace", timeout=600, stdin=subprocess.DEVNULL,
        env=tool_environ(**GIT_IDENTITY, **env),
    )  # fmt: skip


def test_the_manifest_is_valid():
    result = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-manifest",
         str(REPO_ROOT / ".pre-commit-hooks.yaml")],
        capture_output=True, text=True, timeout=120, env=tool_environ(),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_hook_defaults_suit_an_ai_call():
    import yaml

    (hook,) = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "jlgcli-run"
    assert hook["entry"] == "jlgcli hook"
    assert hook["language"] == "python"
    assert hook["require_serial"] is True
    assert hook["pass_filenames"] is False  # one agent call, never one per batch of names
    assert hook["stages"] == ["manual"]  # never on every commit unless the user says so
    assert hook["minimum_pre_commit_version"] == "3.2.0"


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A committed copy of this working tree: what ``repo:`` would point at."""
    root = tmp_path_factory.mktemp("hook-repo")
    for name in HOOK_FILES:
        if (REPO_ROOT / name).exists():
            shutil.copy2(REPO_ROOT / name, root / name)
    if not (root / "README.md").exists():  # pyproject's readme; written by the lead
        (root / "README.md").write_text("# jlgcli\n", encoding="utf-8")
    shutil.copytree(REPO_ROOT / "jlgcli", root / "jlgcli",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))  # fmt: skip
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "hook repo")
    return root


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit cache for the session: the hook's venv is built once."""
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def consumer(tmp_path: Path) -> Path:
    root = tmp_path / "consumer"
    root.mkdir()
    git(root, "init", "-q")
    (root / "greet.py").write_text("print('hello')\n", encoding="utf-8")
    git(root, "add", "greet.py")
    git(root, "commit", "-qm", "init")
    (root / "greet.py").write_text("print('hello, world')\n", encoding="utf-8")
    (root / "notes.md").write_text("# notes\n", encoding="utf-8")
    git(root, "add", "greet.py", "notes.md")
    return root


def fake_reply(tmp_path: Path, text: str) -> dict[str, str]:
    script = tmp_path / "fake.json"
    script.write_text(json.dumps({"turns": [{"text": text}]}), encoding="utf-8")
    return {"JLGCLI_FAKE_SCRIPT": str(script), "JLGCLI_BACKEND": "claude"}


def run_hook(consumer: Path, hook_repo: Path, home: Path, env: dict[str, str]):
    """``pre-commit run`` of the manual hook, the repository pinned at its commit."""
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=hook_repo, check=True,
                         capture_output=True, text=True).stdout.strip()  # fmt: skip
    config = f"repos:\n  - repo: {hook_repo.as_posix()}\n    rev: {rev}\n    hooks:\n"
    (consumer / ".pre-commit-config.yaml").write_text(
        config + "      - id: jlgcli-run\n", encoding="utf-8"
    )  # untracked: neither staged for the hook nor "unstaged config" for pre-commit
    return pre_commit(consumer, "run", "jlgcli-run", "--hook-stage", "manual", "--verbose",
                      env={**env, "PRE_COMMIT_HOME": str(home)})  # fmt: skip


@pytest.mark.slow
@needs_hook_command
def test_the_hook_passes_when_the_agent_says_done(consumer, hook_repo, pre_commit_home,
                                                  tmp_path):  # fmt: skip
    env = fake_reply(tmp_path, '{"status": "done", "summary": "greeting change is fine"}')
    result = run_hook(consumer, hook_repo, pre_commit_home, env)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "Passed" in output
    assert "jlgcli hook: passed (claude, 2 file(s)" in output
    prompt = (tmp_path / "fake.json.prompts" / "000.txt").read_text(encoding="utf-8")
    assert "- greet.py\n- notes.md" in prompt
    assert "+print('hello, world')" in prompt


@pytest.mark.slow
@needs_hook_command
def test_the_hook_fails_the_commit_on_error(consumer, hook_repo, pre_commit_home, tmp_path):
    env = fake_reply(tmp_path, '{"status": "error", "summary": "greet.py:1 — wrong greeting"}')
    result = run_hook(consumer, hook_repo, pre_commit_home, env)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "Failed" in output
    assert "- exit code: 1" in output
    assert "jlgcli hook: FAILED (error, exit 1, backend claude)" in output
    assert "greet.py:1 — wrong greeting" in output


@pytest.mark.slow
@needs_hook_command
def test_a_manual_hook_does_not_fire_in_the_commit_stage(consumer, hook_repo, pre_commit_home,
                                                         tmp_path):  # fmt: skip
    env = fake_reply(tmp_path, '{"status": "error", "summary": "must not run"}')
    result = pre_commit(consumer, "try-repo", str(hook_repo), "jlgcli-run",
                        env={**env, "PRE_COMMIT_HOME": str(pre_commit_home)})  # fmt: skip
    assert not (tmp_path / "fake.json.prompts").exists()
    assert "No hook with id `jlgcli-run` in stage `pre-commit`" in result.stdout + result.stderr
