"""What the trail reports is true (issue 31): the summary after a failover, and `jlgcli runs`.

Driven with the scripted fakes (tests/fakes): claude out of credit, codex finishes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.cli import Runner, fake_script

script = fake_script
FAKES = Path(__file__).parents[1] / "fakes"


def fake_version(name: str) -> str:
    """The version a fake's ``--version`` reports (its ``VERSION``, from backends.md)."""
    text = (FAKES / f"{name}.py").read_text(encoding="utf-8")
    match = re.search(r'^VERSION = "([^"]+)"', text, re.MULTILINE)
    assert match is not None
    return match.group(1)


CLAUDE_VERSION, CODEX_VERSION = fake_version("claude"), fake_version("codex")


@pytest.fixture
def task(tmp_path: Path) -> Path:
    path = tmp_path / "task.md"
    path.write_text("Finish the task.\n", encoding="utf-8")
    return path


def test_after_a_failover_the_summary_names_each_backend_with_its_own_version(
    jlg: Runner, task: Path, tmp_path: Path
) -> None:
    # issue 31: the summary said "backend codex <claude's version>", --json "backend": "claude"
    turns = ({"error": "quota"}, {"text": "Finished on codex.\nDONE"})
    env = script(tmp_path, *turns, repeat_last=False)
    result = jlg("loop", str(task), "-b", "claude", "--fallback", "codex", "--json", env=env)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [m["backend"] for m in data["iterationMetrics"]] == ["codex"]
    assert (data["backend"], data["backendVersion"]) == ("codex", CODEX_VERSION)
    assert data["backends"] == [
        {"id": "claude", "version": CLAUDE_VERSION},
        {"id": "codex", "version": CODEX_VERSION},
    ]
    again = tmp_path / "again"
    again.mkdir()
    env = script(again, *turns, repeat_last=False)
    human = jlg("loop", str(task), "-b", "claude", "--fallback", "codex", env=env)
    assert human.returncode == 0, human.stderr
    line = f"backend     claude {CLAUDE_VERSION} → codex {CODEX_VERSION}"
    assert line in human.stderr
