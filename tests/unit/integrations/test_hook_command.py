"""``jlgcli hook``: one agent call over the staged change; the exit code is the verdict (issue 8).

Driven in-process through the real parser, the real runner and the fake ``claude``
(tests/fakes) first on PATH.
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

import pytest

from jlgcli.commands import add_common_options
from jlgcli.commands import hook as hook_command
from jlgcli.errors import JlgError
from jlgcli.runner.options import RunOptions
from tests.unit.integrations.gha_format import parse_github_output

DONE = '{"status": "done", "summary": "the change looks right"}'
ERROR = '{"status": "error", "summary": "app.py:1 — prints the wrong greeting"}'


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="jlgcli")
    sub = parser.add_subparsers()
    hook_command.register(sub)
    add_common_options(sub.choices["hook"])
    return parser.parse_args(["hook", *argv])


def run_hook(*argv: str) -> int:
    return hook_command.execute(parse(*argv))


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    (root / "app.py").write_text("print('hello')\n", encoding="utf-8")
    git(root, "add", "app.py")
    git(root, "commit", "-qm", "init")
    (root / "app.py").write_text("print('goodbye')\n", encoding="utf-8")
    git(root, "add", "app.py")
    monkeypatch.chdir(root)
    monkeypatch.setenv("JLGCLI_BACKEND", "claude")
    return root


def prompt_sent(script: Path, index: int = 0) -> str:
    return (script.parent / f"{script.name}.prompts" / f"{index:03d}.txt").read_text("utf-8")


def test_done_passes_and_the_agent_saw_the_staged_diff(repo, fake_script, capsys):
    script = fake_script({"text": DONE})
    assert run_hook() == 0
    err = capsys.readouterr().err
    assert err.strip().endswith("— the change looks right")
    assert "jlgcli hook: passed (claude, 1 file(s), diff complete)" in err
    prompt = prompt_sent(script)
    assert "You are reviewing a change" in prompt  # the built-in prompt
    assert "1 file(s) staged for commit:\n- app.py" in prompt
    assert "+print('goodbye')" in prompt
    assert '"status"' in prompt  # the JSON protocol instructions of the loop


def test_error_fails_with_the_models_reason(repo, fake_script, capsys):
    fake_script({"text": ERROR})
    assert run_hook() == 1
    err = capsys.readouterr().err
    assert "jlgcli hook: FAILED (error, exit 1, backend claude)" in err
    assert "app.py:1 — prints the wrong greeting" in err
    assert len(err.splitlines()) <= 20


def test_a_reply_without_json_fails_65(repo, fake_script, capsys):
    fake_script({"text": "I think it is fine.\nDONE"})
    assert run_hook() == 65
    assert "FAILED (invalid-json, exit 65" in capsys.readouterr().err


def test_marker_mode_passes_on_done(repo, fake_script):
    fake_script({"text": "fine\nDONE"})
    assert run_hook("--completion", "marker") == 0


def test_the_hook_enforces_its_own_timeout(repo, fake_script, capsys):
    fake_script({"hang": True})
    assert run_hook("--timeout", "2s") == 75
    assert "FAILED (timeout, exit 75" in capsys.readouterr().err


def test_nothing_staged_passes_without_calling_the_agent(repo, fake_script, capsys):
    git(repo, "commit", "-qm", "staged change committed")
    script = fake_script({"text": ERROR})
    assert run_hook() == 0
    assert "nothing staged" in capsys.readouterr().err
    assert not (script.parent / f"{script.name}.prompts").exists()


def test_nothing_staged_with_json(repo, capsys):
    git(repo, "commit", "-qm", "committed")
    assert run_hook("--json") == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == "nothing staged"


def test_own_prompt_json_summary_and_files_from_pre_commit(repo, fake_script, capsys):
    (repo / "other.py").write_text("x = 1\n", encoding="utf-8")
    git(repo, "add", "other.py")
    (repo / "review.md").write_text("Check the greeting only.\n", encoding="utf-8")
    script = fake_script({"text": DONE})
    assert run_hook("--prompt", "review.md", "--json", "app.py") == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["status"] == "done"
    assert summary["iterations"] == 1
    prompt = prompt_sent(script)
    assert prompt.startswith("Check the greeting only.")
    assert "- app.py" in prompt
    assert "other.py" not in prompt


def test_verbose_streams_the_agents_output(repo, fake_script, capsys):
    fake_script({"text": DONE})
    assert run_hook("-v") == 0
    assert "the change looks right" in capsys.readouterr().out


def test_github_outputs_when_asked(repo, fake_script, tmp_path, monkeypatch):
    fake_script({"text": ERROR})
    out = tmp_path / "gh-out"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "gh-summary.md"))
    assert run_hook("--github") == 1
    outputs = parse_github_output(out.read_text(encoding="utf-8"))
    assert outputs["status"] == "error"
    assert outputs["exit-code"] == "1"


def test_a_prompt_on_stdin_is_refused(repo):
    with pytest.raises(JlgError) as caught:
        run_hook("--prompt", "-")
    assert caught.value.code == 64


def test_a_missing_prompt_file_is_66(repo):
    with pytest.raises(JlgError) as caught:
        run_hook("--prompt", "nope.md")
    assert caught.value.code == 66


def test_outside_git_is_a_usage_error(tmp_path, monkeypatch, fake_script):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(JlgError) as caught:
        run_hook()
    assert caught.value.code == 64


def test_hook_options_map_the_hook_flags():
    args = parse("--backend", "codex", "--model", "m1", "--backend-arg=--x=1",
                 "--no-artifacts", "--max-iterations", "2", "-q")  # fmt: skip
    assert hook_command.hook_options(args, "p.md") == RunOptions(
        prompt="p.md", completion="json", max_iterations="2", timeout="5m",
        permissions="read-only", backend="codex", model="m1", backend_args=("--x=1",),
        artifacts=False, verbosity=0,
    )  # fmt: skip
    options = hook_command.hook_options(parse("--artifacts", "-v"), "p.md")
    assert options.artifacts is True and options.verbosity == 2
