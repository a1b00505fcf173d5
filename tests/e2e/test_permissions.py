"""Permissions end to end (issue 34, DESIGN "Decisions": permissions): `loop` and `run`
default to `edit`, each backend gets its own edit flags, and the summary says what was allowed.

Without a permission flag the real CLIs cannot edit headless (backends.md §9: claude -p refuses
tools that need approval, codex exec runs read-only, gemini refuses edits outside auto_edit);
the fakes model that, so "the file was written" proves the edit flags reached the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import Runner, fake_script

EDIT_FLAGS = {  # docs/backends.md, "The built-in backends"
    "claude": ["--permission-mode", "acceptEdits"],
    "codex": ["-s", "workspace-write"],
    "gemini": ["--approval-mode", "auto_edit"],
    "copilot": ["--allow-all-tools", "--deny-tool", "shell", "--deny-tool", "url"],
}


def argv_of(tmp_path: Path, call: int = 0) -> list[str]:
    path = tmp_path / "agent-script.json.prompts" / f"{call:03d}.argv.json"
    argv: list[str] = json.loads(path.read_text("utf-8"))
    return argv


def contains(argv: list[str], part: list[str]) -> bool:
    return any(argv[i : i + len(part)] == part for i in range(len(argv)))


@pytest.mark.parametrize("backend", sorted(EDIT_FLAGS))
def test_loop_edits_by_default(jlg: Runner, tmp_path: Path, backend: str) -> None:
    # issue 34: the README's `jlgcli loop task.md --gate …` looped without changing a file
    work = tmp_path / "work"
    work.mkdir()
    (work / "task.md").write_text("Add slug.py\n", encoding="utf-8")
    env = fake_script(tmp_path, {"text": "wrote it\nDONE", "files": {"slug.py": "x\n"}})
    env |= {"GEMINI_API_KEY": "k", "COPILOT_GITHUB_TOKEN": "github_pat_test"}  # dummies
    result = jlg("loop", "task.md", "--backend", backend, "--json", cwd=work, env=env)
    assert result.returncode == 0, result.stderr
    assert (work / "slug.py").read_text("utf-8") == "x\n"  # the agent could edit
    assert contains(argv_of(tmp_path), EDIT_FLAGS[backend])
    assert json.loads(result.stdout)["permissions"] == "edit"
    if backend == "copilot":  # pinned: no self-update during the run
        assert "--no-auto-update" in argv_of(tmp_path)
        assert "--disable-builtin-mcps" in argv_of(tmp_path)


def test_permissions_from_config_and_env(jlg: Runner, tmp_path: Path) -> None:
    # issue 34: `config set permissions edit` was an unknown key (exit 64)
    work = tmp_path / "work"
    work.mkdir()
    (work / "task.md").write_text("Look only.\n", encoding="utf-8")
    assert jlg("config", "set", "permissions", "read-only").returncode == 0
    env = fake_script(tmp_path, {"text": "ok\nDONE", "files": {"a.py": "x\n"}})
    result = jlg("run", "task.md", "-b", "codex", "--json", cwd=work, env=env)
    assert result.returncode == 0, result.stderr
    assert contains(argv_of(tmp_path), ["-s", "read-only"])
    assert not (work / "a.py").exists()
    assert json.loads(result.stdout)["permissions"] == "read-only"
    result = jlg(
        "run", "task.md", "-b", "codex", cwd=work, env=env | {"JLGCLI_PERMISSIONS": "full"}
    )
    assert result.returncode == 0, result.stderr
    assert contains(argv_of(tmp_path, 1), ["-s", "danger-full-access"])
    assert "permissions full" in result.stderr  # the human summary says it too
    bad = jlg("config", "set", "permissions", "all")
    assert bad.returncode == 64 and "read-only | edit | full" in bad.stderr


@pytest.mark.parametrize("backend", ["claude", "codex", "gemini", "copilot"])
def test_denied_writes_end_permission_denied_77(jlg: Runner, tmp_path: Path, backend: str) -> None:
    # issue 34: claude's result.permission_denials (claude-agent-sdk types.py) were ignored and a
    # denied write ended "done"; each CLI's own denial signal now counts (docs/backends.md)
    work = tmp_path / "work"
    work.mkdir()
    (work / "task.md").write_text("Add slug.py\n", encoding="utf-8")
    env = fake_script(tmp_path, {"text": "wrote it\nDONE", "files": {"slug.py": "x\n"}})
    env |= {"GEMINI_API_KEY": "k", "COPILOT_GITHUB_TOKEN": "github_pat_test"}
    events = tmp_path / "events.jsonl"
    args = ("loop", "task.md", "-b", backend, "--permissions", "read-only", "--json")
    result = jlg(*args, "--events", str(events), cwd=work, env=env)
    assert result.returncode == 77, result.stderr
    data = json.loads(result.stdout)
    assert data["stopCause"] == "permission-denied" and data["iterations"] == 2
    first = data["iterationMetrics"][0]
    assert first["completion"] == "denied"  # its DONE was not taken: nothing was written
    assert first["permissionDenials"] and "slug.py" in first["permissionDenials"][0]["target"]
    assert "--permissions edit would allow them" in data["error"]["message"]
    assert "denied" in result.stderr and not (work / "slug.py").exists()
    ended = [json.loads(line) for line in events.read_text("utf-8").splitlines()]
    ended = [e for e in ended if e["type"] == "iteration-ended"]
    assert ended[0]["permissionDenials"] == first["permissionDenials"]
    second = (tmp_path / "agent-script.json.prompts" / "001.txt").read_text("utf-8")
    assert "denied" in second  # the model is told why its work did not happen


def test_a_run_reports_denials_without_stopping_on_them(jlg: Runner, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "task.md").write_text("Review only.\n", encoding="utf-8")
    env = fake_script(tmp_path, {"text": "reviewed", "files": {"notes.md": "x\n"}})
    result = jlg("run", "task.md", "-b", "claude", "--permissions", "read-only", "--json",
                 cwd=work, env=env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    metrics = json.loads(result.stdout)["iterationMetrics"][0]
    assert metrics["permissionDenials"][0]["tool"] == "Write"
    assert "claude denied Write" in result.stderr and "--permissions edit" in result.stderr
