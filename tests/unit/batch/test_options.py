"""A batch's options: resolved once, handed down typed, recorded for its resume (issue 44)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from support.batch import git, make_tasks

from jlgcli import records
from jlgcli.batch.options import BATCH_FLAGS, given_options, resolve, save_asked
from jlgcli.cli import main
from jlgcli.config import asked
from jlgcli.errors import JlgError
from jlgcli.runner.options import RunOptions


def _loop_parser() -> argparse.ArgumentParser:
    from jlgcli.commands import loop

    parser = argparse.ArgumentParser()
    loop.register(parser.add_subparsers())
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices["loop"]


def test_every_loop_flag_reaches_the_tasks_or_is_the_batchs_own() -> None:
    """Issue 44: a hand-kept list of passed flags dropped --artifacts, -v/-q, --replay…"""
    fields = {item.name for item in records.fields(RunOptions)}
    renamed = {"backend_arg": "backend_args", "gate": "gates"}
    for action in _loop_parser()._actions:
        if action.dest == "help":
            continue
        field = renamed.get(action.dest, action.dest)
        assert field in fields or action.dest in BATCH_FLAGS, action.dest
    assert "verbosity" in fields  # -v/-q are global flags, a field of the options too


def test_a_batch_resolves_its_budget_and_backend_as_a_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JLGCLI_MAX_COST_USD", "0.25")
    args = argparse.Namespace(prompt=["a.md"], backend="claude", replay="rec", ledger_dir="led",
                              gate=["pytest"], verbosity=2, artifacts=True)  # fmt: skip
    settings = resolve(given_options(args), tmp_path)
    assert settings.budget == 0.25 and settings.backend == "claude"
    assert settings.gates == ("pytest",) and settings.runs_root == tmp_path / ".jlgcli" / "runs"
    options = settings.options
    assert options.prompt is None and options.verbosity == 2 and options.artifacts is True
    assert options.replay == str(Path("rec").resolve())
    assert options.ledger_dir == str(Path("led").resolve())
    with pytest.raises(JlgError) as caught:
        resolve(RunOptions(backend="nosuch"), tmp_path)
    assert "--backend" in caught.value.message


def test_a_record_that_cannot_be_written_is_73(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jlgcli.batch.options import write_task_options

    def full(*args: object) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(asked, "save", full)
    settings = resolve(RunOptions(), tmp_path)
    for attempt in (lambda: save_asked("batch-x", settings),
                    lambda: write_task_options("batch-x", "a", RunOptions())):  # fmt: skip
        with pytest.raises(JlgError) as caught:
            attempt()
        assert caught.value.code == 73


def test_a_resumed_batch_applies_what_it_was_started_with(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gate = "git --version"
    paths = make_tasks(tmp_path / "tasks", tmp_path / "scripts",
                       {"a": [{"text": "no"}], "b": [{"text": "no"}]})  # fmt: skip
    assert main(["loop", *paths, "-b", "claude", "-n", "1", "--gate", gate, "--json"]) == 4
    first = json.loads(capsys.readouterr().out)
    recorded = json.loads(asked.path_of(first["batchId"]).read_text("utf-8"))
    assert recorded["gates"] == [gate] and recorded["backend"] == "claude"
    assert "verbosity" not in recorded
    task = json.loads(asked.path_of(f"{first['batchId']}.a").read_text("utf-8"))
    assert task["gates"] == [gate] and task["max_iterations"] == 1 and task["batch_task"] == "a"
    assert task["prompt"] == paths[0] and task["events"] == "-"
    code = main(["loop", "--resume", "latest", "-n", "2", "--json"])  # no -b, no --gate
    err = capsys.readouterr().err
    assert code == 4 and "as you started it: backend claude, gates git --version" in err


def test_a_task_done_whose_commit_was_cut_short_is_committed_on_resume(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from jlgcli.batch.record import load, save

    paths = make_tasks(tmp_path / "tasks", tmp_path / "scripts",
                       {"a": [{"text": "ok\nDONE", "files": {"a.txt": "a"}}],
                        "b": [{"text": "no"}]})  # fmt: skip
    assert main(["loop", *paths, "-b", "claude", "-n", "1", "--json"]) == 4
    batch_id = json.loads(capsys.readouterr().out)["batchId"]
    root = repo / ".jlgcli" / "runs"
    record = load(root, batch_id)
    record.tasks[0].committed = False  # as after a kill -9 before its commit
    save(root, record)
    git(repo, "-C", str(repo / ".jlgcli" / "worktrees" / "a"), "reset", "-q", "--soft", "HEAD~1")
    assert main(["loop", "--resume", batch_id, "--merge", "-n", "1", "--json"]) == 4
    data = json.loads(capsys.readouterr().out)
    assert data["tasks"][0]["merged"] and (repo / "a.txt").read_text("utf-8") == "a"
    said = git(repo, "log", "-1", "--format=%B", "--", "a.txt")
    assert "ok" in said.splitlines()[2:4]  # the agent's summary, read back from its --json output


def test_a_rebase_cut_short_is_undone_before_the_merge_goes_on(repo: Path, tmp_path: Path) -> None:
    from jlgcli.batch.finish import abort_cut_rebase
    from jlgcli.batch.record import TaskRecord

    worktree = repo / ".jlgcli" / "worktrees" / "a"
    git(repo, "worktree", "add", "-q", "-b", "jlgcli/a", str(worktree))
    (worktree / "shared.txt").write_text("task\n", "utf-8")
    git(worktree, "commit", "-qam", "task")
    (repo / "shared.txt").write_text("mine\n", "utf-8")
    git(repo, "commit", "-qam", "mine")
    with pytest.raises(Exception):  # noqa: B017 - git stops on the conflict, mid-rebase
        git(worktree, "rebase", "main")
    task = TaskRecord(name="a", task="a.md", branch="jlgcli/a")
    abort_cut_rebase(repo, task)
    assert git(worktree, "status", "--porcelain") == ""
    assert (worktree / "shared.txt").read_text("utf-8") == "task\n"
    abort_cut_rebase(repo, TaskRecord(name="gone", task="g.md"))  # no worktree: nothing


def test_a_stop_signal_other_than_ctrl_c_labels_the_stopped_tasks_with_it() -> None:
    import signal

    from jlgcli.batch.record import TaskRecord
    from jlgcli.batch.run_tasks import _stopped_by

    tasks = [TaskRecord(name="a", task="a.md", exitCode=130), TaskRecord(name="b", task="b.md")]
    summaries: dict[str, dict[str, object] | None] = {"a": {"exitCode": 130, "signal": "SIGINT"}}
    _stopped_by(signal.SIGINT, tasks, summaries)
    assert tasks[0].exitCode == 130
    _stopped_by(signal.SIGTERM, tasks, summaries)
    assert (tasks[0].exitCode, tasks[1].exitCode) == (143, None)
    assert summaries["a"] == {"exitCode": 143, "signal": "SIGTERM"}


def test_a_task_takes_the_version_its_batch_probed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 44: handed down in the task's options, not in its (and its agent's) environment."""
    import io
    import shutil

    from jlgcli.backends import probing
    from jlgcli.prompts import Prompt
    from jlgcli.runner.console import Console
    from jlgcli.runner.select import select_backend
    from jlgcli.runner.spec import RunSpec

    monkeypatch.setattr(probing, "_KNOWN", {})
    claude = shutil.which("claude")
    assert claude is not None  # the fake, first on PATH
    spec = RunSpec(command="loop", prompt=Prompt(text="x", source="x"), backend="claude",
                   cwd=Path.cwd(), known_versions=((claude, "2.9.99"),))  # fmt: skip
    selected = select_backend(spec, Console(1, out=io.StringIO(), err=io.StringIO()))
    assert selected.availability.version == "2.9.99"


def test_resume_latest_after_a_finished_batch_means_that_batch(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 44: latest is the newest batch or loop started, not one of the batch's task runs."""
    done = {"text": "ok\nDONE"}
    paths = make_tasks(tmp_path / "tasks", tmp_path / "scripts", {"a": [done], "b": [done]})
    assert main(["loop", *paths, "-b", "claude", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(["loop", "--resume", "latest", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["batchId"] == first["batchId"]
    assert [t["runId"] for t in again["tasks"]] == [t["runId"] for t in first["tasks"]]
