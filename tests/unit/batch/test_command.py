"""``jlgcli loop TASK...`` in-process: the batch's checks, its run, its resume (issue 37)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.batch import git, make_repo, make_tasks

from jlgcli.cli import main

DONE = {"text": "ok\nDONE"}


def tasks(tmp_path: Path, **turns: list[dict[str, object]]) -> list[str]:
    return make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)


def test_a_batch_runs_merges_and_writes_events_with_task_ids(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = tasks(tmp_path, a=[{**DONE, "files": {"a.txt": "a"}}],
                  b=[{**DONE, "files": {"b.txt": "b"}}])  # fmt: skip
    events = tmp_path / "events.jsonl"
    code = main(["loop", *paths, "--merge", "-b", "claude", "--events", str(events)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "2 merged" in err and "jlgcli: task a" in err  # CI lines: stderr is not a terminal
    assert (repo / "a.txt").exists() and (repo / "b.txt").exists()
    tasks_seen = {json.loads(line)["task"] for line in events.read_text("utf-8").splitlines()}
    assert tasks_seen == {"a", "b"}
    assert git(repo, "branch", "--list", "jlgcli/*") == ""  # merged: branches removed


def test_resume_of_a_finished_batch_runs_nothing_again(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = tasks(tmp_path, a=[{**DONE, "files": {"a.txt": "a"}}], b=[{"text": "no"}])
    assert main(["loop", *paths, "-b", "claude", "-n", "1", "--json"]) == 4
    first = json.loads(capsys.readouterr().out)
    assert main(["loop", "--resume", first["batchId"], "-b", "claude", "-n", "1", "--json"]) == 4
    again = json.loads(capsys.readouterr().out)
    assert [t["runId"] for t in again["tasks"]] == [t["runId"] for t in first["tasks"]]
    assert again["tasks"][0]["status"] == "done" and again["tasks"][0]["branch"] == "jlgcli/a"


@pytest.mark.parametrize(
    ("argv", "code", "words"),
    [
        (["--merge"], 64, "--merge merges the branches"),
        (["--resume", "latest", "TASK"], 64, "give no TASK"),
        (["TASK", "TASK", "--events", "-"], 64, "events to a file"),
        (["TASK", "TASK", "--max-cost", "nan"], 64, "invalid value for --max-cost"),  # as a loop
        (["TASK", "-", "-j", "1"], 64, "cannot all read stdin"),
        (["TASK", "missing.md"], 66, "task file not found"),
        (["TASK", "-j", "0"], 64, "out of range; accepted: 1 to 256"),
        (["--resume", "batch-20261126T000000Z-000000"], 64, "no batch"),
    ],
)
def test_what_a_batch_refuses(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    argv: list[str], code: int, words: str,
) -> None:  # fmt: skip
    (path,) = tasks(tmp_path, a=[DONE])
    argv = [path if arg == "TASK" else arg for arg in argv]
    assert main(["loop", *argv]) == code
    assert words in capsys.readouterr().err


def test_merge_refuses_a_dirty_tree_or_a_detached_head(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (path,) = tasks(tmp_path, a=[DONE])
    (repo / "shared.txt").write_text("my work", "utf-8")
    assert main(["loop", path, "--merge", "-b", "claude"]) == 64
    assert "uncommitted changes (shared.txt)" in capsys.readouterr().err
    git(repo, "checkout", "-q", "shared.txt")
    git(repo, "checkout", "-q", "--detach")
    assert main(["loop", path, "--merge", "-b", "claude"]) == 64
    assert "HEAD is detached" in capsys.readouterr().err


def test_resume_latest_means_the_single_loop_started_after_the_batch(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = tasks(tmp_path, a=[{"text": "no"}], b=[{"text": "no"}], c=[{"text": "still no"}])
    assert main(["loop", *paths[:2], "-b", "claude", "-n", "1", "--json"]) == 4
    capsys.readouterr()
    assert main(["loop", paths[2], "-b", "claude", "-n", "1", "--json"]) == 4
    single = json.loads(capsys.readouterr().out)
    assert main(["loop", "--resume", "latest", "-b", "claude", "-n", "2", "--json"]) == 4
    resumed = json.loads(capsys.readouterr().out)
    assert resumed["resumedFrom"] == single["runId"]  # a run summary, not a batch


def test_the_shared_budget_stops_the_running_tasks(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    slow = {"text": "working", "delay_seconds": 1}
    paths = tasks(tmp_path, a=[slow], b=[slow], c=[slow])
    assert main(["loop", *paths, "-j", "2", "-b", "claude", "--max-cost", "0.02", "--json"]) == 4
    data = json.loads(capsys.readouterr().out)
    assert [t["status"] for t in data["tasks"]] == ["budget spent", "budget spent",
                                                    "not started (budget)"]  # fmt: skip
    listed = main(["runs", "--json"])
    assert listed == 0
    (batch,) = json.loads(capsys.readouterr().out)["batches"]
    assert batch["batchId"] == data["batchId"] and batch["tasks"][2]["runId"] is None
    assert main(["runs"]) == 0
    assert "not started (budget)" in capsys.readouterr().out  # issue 44: on stdout


def test_a_stop_signal_stops_every_task_and_keeps_the_record(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import signal

    from jlgcli.batch.board import Board
    from jlgcli.process.signals import Interrupted

    paths = tasks(tmp_path, a=[{"text": "working", "delay_seconds": 30}], b=[DONE])
    real = Board.update

    def update(self: Board, now: float | None = None) -> None:
        real(self, now)
        if any(row.iteration for row in self.rows) and not getattr(self, "_stopped", False):
            self._stopped = True  # type: ignore[attr-defined]
            raise Interrupted(signal.SIGTERM)

    monkeypatch.setattr(Board, "update", update)
    assert main(["loop", *paths, "-j", "1", "-b", "claude"]) == 143
    err = capsys.readouterr().err
    assert "interrupted" in err and "jlgcli loop --resume batch-" in err
    from jlgcli.batch.record import load

    record = load(repo / ".jlgcli" / "runs", "latest")  # issue 44: TERM, not SIGINT/130
    assert [task.exitCode for task in record.tasks] == [143, None]


def test_the_publish_step_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from jlgcli.integrations.publish import main as publish_main

    folder = make_repo(tmp_path / "repo")
    monkeypatch.chdir(folder)
    monkeypatch.setenv("JLG_BRANCH", "main")
    assert publish_main() == 64
    monkeypatch.setenv("JLG_BRANCH", "jlgcli/a")
    monkeypatch.setenv("JLG_EXIT_CODE", "0")
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    assert publish_main() == 1  # push: there is no origin
    assert "git push" in capsys.readouterr().err
    monkeypatch.setenv("JLG_EXIT_CODE", "4")
    assert publish_main() == 0
    assert "published=false" in (tmp_path / "out").read_text("utf-8")


def test_the_publish_step_runs_inside_the_one_error_boundary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 45: a fourth boundary caught errors itself; a bug was a bare traceback
    from jlgcli.batch import matrix
    from jlgcli.integrations.publish import main as publish_main

    def broken(*_: object) -> dict[str, str]:
        raise RuntimeError("a bug")

    monkeypatch.chdir(make_repo(tmp_path / "repo"))
    monkeypatch.setattr(matrix, "publish", broken)
    assert publish_main() == 70
    assert "internal error" in capsys.readouterr().err

    def interrupted(*_: object) -> dict[str, str]:
        raise KeyboardInterrupt

    monkeypatch.setattr(matrix, "publish", interrupted)
    assert publish_main() == 130


def test_a_task_of_a_batch_cannot_start_a_batch(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = tasks(tmp_path, a=[DONE], b=[DONE])
    monkeypatch.setenv("JLGCLI_BATCH_TASK", "outer")
    assert main(["loop", *paths, "-b", "claude"]) == 64
    assert "inside a batch's task (outer)" in capsys.readouterr().err
    assert not (repo / ".jlgcli" / "worktrees").exists()


def test_only_a_batch_task_may_mix_its_events_and_its_summary_on_stdout(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 37: a task child sends its events to the batch on stdout, ahead of its summary;
    # issue 44: a loop is a batch's task by its options (--task-options), not its environment
    from jlgcli.runner.options import RunOptions
    from jlgcli.runner.options_record import to_json

    (path,) = tasks(tmp_path, a=[DONE])
    monkeypatch.setenv("JLGCLI_BATCH_TASK", "a")  # what the agents get: the loop ignores it
    assert main(["loop", path, "-b", "claude", "--events", "-", "--json"]) == 64
    assert "--events - and --json both want stdout" in capsys.readouterr().err
    record = tmp_path / "a.options.json"
    options = RunOptions(prompt=path, backend="claude", events="-", batch_task="a")
    record.write_text(json.dumps(to_json(options)), "utf-8")
    assert main(["loop", "--task-options", str(record)]) == 0
    out = capsys.readouterr().out
    events, _, summary = out.partition("\n{\n")
    kinds = [json.loads(line)["type"] for line in events.splitlines()]
    assert kinds[0] == "run-started" and kinds[-1] == "run-ended"
    assert json.loads("{\n" + summary)["status"] == "done"


@pytest.mark.parametrize(
    ("content", "code"),
    [(None, 66), ("[1]", 65), ('{"schema": "other"}', 65),
     ('{"schema": "jlgcli.run-options/1", "gates": "rm -rf"}', 65)],
)  # fmt: skip
def test_a_task_options_record_that_cannot_be_read_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, code: int
) -> None:
    record = tmp_path / "options.json"
    if content is not None:
        record.write_text(content, "utf-8")
    assert main(["loop", "--task-options", str(record)]) == code
    assert "the batch again" in capsys.readouterr().err


def test_worktrees_are_made_by_the_task_threads_one_at_a_time(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 37: made by each task's thread or ahead, but never two `git worktree add` at once
    # (git reads the other worktrees' admin folders and fails on a half-written one)
    import threading
    import time

    from jlgcli.batch import setup

    inside, overlaps, threads = [0], [0], set()
    real = setup.make_worktree

    def make_worktree(*args: object) -> None:
        inside[0] += 1
        overlaps[0] += inside[0] > 1
        threads.add(threading.current_thread().name)
        time.sleep(0.05)  # a window for another thread to come in, were it allowed to
        real(*args)  # type: ignore[arg-type]
        inside[0] -= 1

    monkeypatch.setattr(setup, "make_worktree", make_worktree)
    paths = tasks(tmp_path, a=[DONE], b=[DONE], c=[DONE], d=[DONE])
    assert main(["loop", *paths, "-j", "4", "-b", "claude", "--json"]) == 0
    assert overlaps == [0]
    assert threads <= {"task-a", "task-b", "task-c", "task-d", "worktrees-ahead"}
    data = json.loads(capsys.readouterr().out)
    assert all(task["status"] == "done" for task in data["tasks"])
