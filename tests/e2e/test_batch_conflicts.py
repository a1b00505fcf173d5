"""Conflicts you can act on, through the installed ``jlgcli`` (issue 44): ``--retry-conflicts``
runs a conflicting task again on the merged result; ``jlgcli worktrees`` lists what batches
left and ``prune`` removes the merged and empty ones, never unmerged work unless forced."""

from __future__ import annotations

import json
from pathlib import Path

from support.batch import git, make_repo, make_tasks
from support.cli import Runner


def entries(jlg: Runner, repo: Path) -> dict[str, dict[str, object]]:
    listed = jlg("worktrees", "--json", cwd=repo)
    assert listed.returncode == 0, listed.stderr
    return {entry["name"]: entry for entry in json.loads(listed.stdout)["worktrees"]}


def test_a_conflict_retried_merges_and_prune_keeps_unmerged_work(
    jlg: Runner, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo")
    turns = {
        "alpha": [{"text": "did alpha\nDONE", "files": {"shared.txt": "alpha\n"}}],
        "gamma": [
            {"text": "did gamma\nDONE", "files": {"shared.txt": "gamma\n"}},
            {"text": "gamma on alpha\nDONE", "files": {"shared.txt": "alpha\ngamma\n"}},
        ],
        "beta": [{"text": "did beta\nDONE", "files": {"b.txt": "b\n"}}],
    }
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)
    env = {"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    first = jlg("loop", tasks[0], tasks[1], "-j", "2", "--merge", "-b", "claude", "--json",
                cwd=repo, env=env)  # fmt: skip
    assert first.returncode == 1, first.stderr
    batch = json.loads(first.stdout)["batchId"]
    assert f"jlgcli loop --resume {batch} --retry-conflicts" in jlg("runs", "show", batch,
                                                                     cwd=repo).stdout  # fmt: skip
    # beta: a batch of its own, done, not merged (its branch is unmerged work)
    other = jlg("loop", tasks[2], "-j", "1", "-b", "claude", cwd=repo, env=env)
    assert other.returncode == 0, other.stderr
    listed = entries(jlg, repo)
    assert listed["jlgcli/gamma"]["state"] == "conflict"
    assert listed["jlgcli/beta"]["state"] == "unmerged work"
    assert "jlgcli/alpha" not in listed  # merged: removed by the batch itself
    quiet = jlg("worktrees", "-q", cwd=repo)
    assert quiet.stdout.split() == ["jlgcli/beta", "jlgcli/gamma"]

    kept = jlg("worktrees", "prune", cwd=repo)
    assert kept.returncode == 0, kept.stderr
    assert "kept    jlgcli/gamma  (conflict" in kept.stdout
    assert set(entries(jlg, repo)) == {"jlgcli/beta", "jlgcli/gamma"}

    retried = jlg("loop", "--resume", batch, "--retry-conflicts", "-b", "claude", "--json",
                  cwd=repo, env=env)  # fmt: skip
    assert retried.returncode == 0, retried.stderr
    assert "its earlier work is kept on jlgcli-backup/gamma" in retried.stderr
    data = {task["id"]: task for task in json.loads(retried.stdout)["tasks"]}
    assert data["gamma"]["merged"] and data["alpha"]["merged"]
    assert (repo / "shared.txt").read_text("utf-8") == "alpha\ngamma\n"
    prompts = sorted((tmp_path / "scripts" / "gamma.json.prompts").glob("*.txt"))
    assert len(prompts) == 2  # one new agent call, on the merged result
    assert git(repo, "show", "jlgcli-backup/gamma:shared.txt") == "gamma\n"
    listed = entries(jlg, repo)
    assert listed["jlgcli-backup/gamma"]["state"] == "unmerged work"

    forced = jlg("worktrees", "prune", "--force", "jlgcli-backup/gamma", cwd=repo)
    assert forced.returncode == 0, forced.stderr
    assert "jlgcli-backup/gamma loses commit" in forced.stderr
    assert "removed jlgcli-backup/gamma" in forced.stdout
    assert "kept    jlgcli/beta" in forced.stdout
    assert set(entries(jlg, repo)) == {"jlgcli/beta"}
    assert git(repo, "status", "--porcelain") == ""


def test_retry_conflicts_needs_a_batch(jlg: Runner, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    result = jlg("loop", "--retry-conflicts", cwd=repo)
    assert result.returncode == 64 and "--resume BATCH_ID --retry-conflicts" in result.stderr
    unknown = jlg("worktrees", "prune", "--force", "nope", cwd=repo)
    assert unknown.returncode == 64 and "named 'nope'" in unknown.stderr
