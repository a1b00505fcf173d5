"""``jlgcli worktrees [prune]`` and ``--retry-conflicts`` in-process (issue 44)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.batch import git, make_tasks

from jlgcli.batch import worktrees
from jlgcli.cli import main

DONE = {"text": "ok\nDONE"}


def conflicting_batch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    turns = {
        "alpha": [{**DONE, "files": {"shared.txt": "alpha\n"}}],
        "gamma": [{**DONE, "files": {"shared.txt": "gamma\n"}},
                  {**DONE, "files": {"shared.txt": "alpha\ngamma\n"}}],
    }  # fmt: skip
    paths = make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)
    assert main(["loop", *paths, "--merge", "-b", "claude", "--json"]) == 1
    return str(json.loads(capsys.readouterr().out)["batchId"])


def listed(capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, object]]:
    assert main(["worktrees", "--json"]) == 0
    return {e["name"]: e for e in json.loads(capsys.readouterr().out)["worktrees"]}


def test_retry_conflicts_runs_the_task_again_on_the_merged_result(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = conflicting_batch(tmp_path, capsys)
    assert listed(capsys)["jlgcli/gamma"]["state"] == "conflict"
    assert main(["runs", "show", batch]) == 0
    assert "--retry-conflicts" in capsys.readouterr().out
    git(repo, "branch", "jlgcli-backup/gamma")  # taken: the backup gets the next name
    assert main(["loop", "--resume", batch, "--retry-conflicts", "-b", "claude"]) == 0
    err = capsys.readouterr().err
    assert "kept on jlgcli-backup/gamma-2" in err and "2 merged" in err
    assert (repo / "shared.txt").read_text("utf-8") == "alpha\ngamma\n"
    assert main(["loop", "--resume", batch, "--retry-conflicts", "-b", "claude"]) == 0
    assert f"no task of {batch} stopped on a conflict" in capsys.readouterr().err


def test_retry_conflicts_never_loses_uncommitted_work(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = conflicting_batch(tmp_path, capsys)
    tree = repo / ".jlgcli" / "worktrees" / "gamma"
    (tree / "notes.txt").write_text("mine", "utf-8")
    assert main(["loop", "--resume", batch, "--retry-conflicts", "-b", "claude"]) == 64
    assert "uncommitted changes (notes.txt)" in capsys.readouterr().err
    assert (tree / "notes.txt").exists() and listed(capsys)["jlgcli/gamma"]["state"] == "conflict"


def test_retry_conflicts_refuses_a_single_loop_and_a_batch_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JLGCLI_FAKE_SCRIPT", str(tmp_path / "scripts"))
    paths = make_tasks(tmp_path / "tasks", tmp_path / "scripts", {"a": [DONE], "b": [DONE]})
    assert main(["loop", *paths, "-j", "1", "-b", "claude", "--json"]) == 0
    batch = json.loads(capsys.readouterr().out)["batchId"]
    assert main(["loop", "--resume", batch, "--retry-conflicts", "-b", "claude"]) == 64
    assert "ran in place" in capsys.readouterr().err
    assert main(["loop", paths[0], "-b", "claude", "--json"]) == 0
    run = json.loads(capsys.readouterr().out)["runId"]
    assert main(["loop", "--resume", run, "--retry-conflicts", "-b", "claude"]) == 64
    assert "is a single loop" in capsys.readouterr().err
    assert main(["worktrees"]) == 64
    assert "not in a git repository" in capsys.readouterr().err


def test_worktrees_states_and_what_prune_does(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["worktrees"]) == 0
    assert "no worktree or branch of jlgcli" in capsys.readouterr().err
    paths = make_tasks(tmp_path / "tasks", tmp_path / "scripts",
                       {"done": [{**DONE, "files": {"d.txt": "d"}}], "idle": [{"text": "no"}],
                        "busy": [DONE]})  # fmt: skip
    assert main(["loop", *paths, "-j", "3", "-b", "claude", "-n", "1"]) == 4
    capsys.readouterr()
    root = repo / ".jlgcli" / "worktrees"
    git(repo, "worktree", "add", "-q", "--detach", str(root / "loose"))
    (root / "busy" / "wip.txt").write_text("work in progress", "utf-8")
    run = repo / ".jlgcli" / "runs" / "20990101T000000Z-abcdef"  # a live run in busy's worktree
    run.mkdir(parents=True)
    (run / "meta.json").write_text(json.dumps({"cwd": str(root / "busy")}), "utf-8")
    holder = subprocess.Popen(  # another process holds the run's lock, as a live loop does
        [sys.executable, "-c", "import sys,time; from pathlib import Path; "
         "from jlgcli.config.started import RunLock; "
         f"assert RunLock(Path({str(run)!r})).acquire(); print('held', flush=True); "
         "time.sleep(60)"], stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        states = {name: entry["state"] for name, entry in listed(capsys).items()}
        assert states == {"jlgcli/busy": "running", "jlgcli/done": "unmerged work",
                          "jlgcli/idle": "empty", "loose": "empty"}  # fmt: skip
        monkeypatch.chdir(root / "done")  # from inside a task's worktree: the same list
        assert main(["worktrees"]) == 0
        assert "1 commit" in capsys.readouterr().out
        monkeypatch.chdir(repo)
        assert main(["worktrees", "prune", "--force", "busy", "--json"]) == 0
        pruned = json.loads(capsys.readouterr().out)
        assert sorted(pruned["removed"]) == ["jlgcli/idle", "loose"]
        assert pruned["kept"]["jlgcli/busy"].startswith("running")
        assert pruned["kept"]["jlgcli/done"].startswith("unmerged work")
    finally:
        holder.kill()
        holder.wait()
    assert main(["worktrees", "prune", "--force", "done", "--force", "jlgcli/busy"]) == 0
    out, err = capsys.readouterr()
    assert "jlgcli/done loses commit" in err and "jlgcli/busy loses uncommitted wip.txt" in err
    assert "removed jlgcli/busy" in out and "removed jlgcli/done" in out
    assert worktrees.survey(repo, repo / ".jlgcli" / "runs") == []
    assert main(["worktrees", "-q"]) == 0 and capsys.readouterr().out == ""
