"""Many tasks at once through the installed ``jlgcli`` (issue 37).

Each task's fake claude follows its own script (``fake-script:`` in the task,
``JLGCLI_FAKE_SCRIPT`` a folder: tests/fakes/_fake_engine.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from support.batch import git, make_repo, make_tasks
from support.cli import Runner

GATE = (f"{sys.executable} -c \"import pathlib,sys; "
        "sys.exit(1 if 'BROKEN' in pathlib.Path('shared.txt').read_text() else 0)\"")  # fmt: skip

FOUR = {
    "alpha": [{"text": "did alpha\nDONE", "files": {"shared.txt": "alpha\n", "a.txt": "a\n"}}],
    "beta": [{"text": "did beta\nDONE", "files": {"b.txt": "b\n"}}],
    "gamma": [{"text": "did gamma\nDONE", "files": {"shared.txt": "gamma\n"}}],
    "delta": [{"text": "still working"}],
}


def test_four_tasks_two_merged_one_conflicting_one_out_of_iterations(
    jlg: Runner, tmp_path: Path
) -> None:
    """Issue 37 done-when: -j 2, two merged, one conflict left on its branch, one exit 4."""
    repo = make_repo(tmp_path / "repo")
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", FOUR)
    env = {"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    result = jlg("loop", *tasks, "-j", "2", "--merge", "-b", "claude", "--gate", GATE,
                 "--max-iterations", "2", "--json", "--events", str(tmp_path / "ev.jsonl"),
                 cwd=repo, env=env)  # fmt: skip
    # gamma done but not merged counts 1, more serious than delta's 4 (docs/loop.md)
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    by_id = {task["id"]: task for task in data["tasks"]}
    assert by_id["alpha"]["merged"] and by_id["beta"]["merged"]
    assert (by_id["alpha"]["exitCode"], by_id["beta"]["exitCode"]) == (0, 0)
    assert not by_id["gamma"]["merged"] and "conflicts" in by_id["gamma"]["mergeNote"]
    assert by_id["gamma"]["branch"] == "jlgcli/gamma"
    assert by_id["delta"]["exitCode"] == 4 and by_id["delta"]["summary"]["stopCause"] in (
        "max-iterations",
    )
    assert data["totals"]["merged"] == 2
    # The user's branch got alpha's and beta's work, not gamma's; gamma's branch is kept.
    assert (repo / "shared.txt").read_text("utf-8") == "alpha\n"
    assert (repo / "a.txt").exists() and (repo / "b.txt").exists()
    assert "jlgcli/gamma" in git(repo, "branch", "--list", "jlgcli/*")
    assert (repo / ".jlgcli" / "worktrees" / "gamma").is_dir()
    assert not (repo / ".jlgcli" / "worktrees" / "alpha").exists()
    assert git(repo, "status", "--porcelain") == ""
    events = [json.loads(line) for line in (tmp_path / "ev.jsonl").read_text("utf-8").splitlines()]
    assert events and all(event["task"] in FOUR for event in events)
