"""``jlgcli watch`` from a second terminal (issue 51 done-when), through the installed
``jlgcli`` on a real pseudo-terminal (POSIX; the follower itself: tests/unit/batch)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.batch import make_repo, make_tasks
from support.cli import Runner, fake_script, task_project

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")

SCHEMAS = Path(__file__).parents[2] / "docs" / "schemas"


def _wait_for(predicate, what: str, timeout: float = 120.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def _batch_events(repo: Path) -> list[dict[str, object]]:
    found = list((repo / ".jlgcli" / "runs" / ".batches").glob("batch-*/events.ndjson"))
    if not found:
        return []
    return [json.loads(line) for line in found[0].read_text("utf-8").splitlines() if line]


def test_watch_in_a_second_terminal_shows_a_running_batch_and_ctrl_c_leaves_it_running(
    jlgcli_exe: str, tmp_path: Path
) -> None:
    pexpect = pytest.importorskip("pexpect")
    repo = make_repo(tmp_path / "repo")
    slow = [{"text": "working on it\nDONE", "delay_seconds": 35, "files": {"x.txt": "x"}}]
    turns = {"alpha": slow, "beta": [{**slow[0], "files": {"y.txt": "y"}}]}
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)
    env = {**os.environ, "JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    with subprocess.Popen(
        [jlgcli_exe, "loop", *tasks, "-j", "2", "-b", "claude", "--json"],
        cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    ) as batch:  # fmt: skip
        try:
            _wait_for(lambda: any(e["type"] == "task-started" for e in _batch_events(repo)),
                      "the batch's first task")  # fmt: skip
            first = pexpect.spawn(jlgcli_exe, ["watch"], cwd=str(repo), env=env,
                                  encoding="utf-8", timeout=120)  # fmt: skip
            try:
                first.expect_exact("watching batch batch-")
                first.expect_exact("alpha")
                first.expect_exact("running")
                first.sendintr()  # Ctrl-C in the watching terminal
                first.expect_exact("detached from batch-")
                first.expect(pexpect.EOF)
            finally:
                first.close(force=True)
            assert first.exitstatus == 130, first.before
            assert batch.poll() is None  # the batch goes on
            second = pexpect.spawn(jlgcli_exe, ["watch", "latest"], cwd=str(repo), env=env,
                                   encoding="utf-8", timeout=180)  # fmt: skip
            try:
                second.expect_exact("beta")
                second.expect_exact("2 done")  # the batch's own table at its end
                second.expect(pexpect.EOF)
            finally:
                second.close(force=True)
            assert second.exitstatus == 0, second.before
            out, err = batch.communicate(timeout=180)
        finally:
            if batch.poll() is None:
                batch.kill()
    assert batch.returncode == 0, err
    assert [task["exitCode"] for task in json.loads(out)["tasks"]] == [0, 0]
    events = _batch_events(repo)
    types = [event["type"] for event in events]
    assert types[0] == "batch-started" and types[-1] == "batch-ended"
    assert types.count("task-started") == 2 and types.count("task-ended") == 2
    assert {e["exitCode"] for e in events if e["type"] == "task-ended"} == {0}
    import jsonschema

    schema = json.loads((SCHEMAS / "events.schema.json").read_text("utf-8"))
    for event in events:
        jsonschema.validate(event, schema)


def test_watch_of_an_ended_loop_tells_its_story_and_json_streams_its_events(
    jlg: Runner, tmp_path: Path
) -> None:
    project = task_project(tmp_path, "Fix it.\n")
    env = fake_script(tmp_path, {"text": "looking\n"}, {"text": "fixed\nDONE", "files": {"a": "1"}})
    done = jlg("loop", "task.md", "-b", "claude", "--events", str(tmp_path / "given.jsonl"),
               cwd=project, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (folder,) = (project / ".jlgcli" / "runs").glob("2*")
    kept = (folder / "events.ndjson").read_text("utf-8")
    assert kept == (tmp_path / "given.jsonl").read_text("utf-8")  # the same lines
    text = jlg("watch", cwd=project)
    assert text.returncode == 0, text.stderr
    assert "iteration 1/" in text.stderr and "iteration 2 ended: done" in text.stderr
    assert "run ended: done" in text.stderr and "fixed" in text.stdout
    as_json = jlg("watch", folder.name[:12], "--json", cwd=project)
    assert as_json.returncode == 0, as_json.stderr
    events = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert events[0]["type"] == "run-started" and events[-1]["type"] == "run-ended"
    assert events[-1]["exitCode"] == 0


def test_watch_errors_say_what_to_do(jlg: Runner, tmp_path: Path) -> None:
    project = task_project(tmp_path, "Fix it.\n")
    nothing = jlg("watch", cwd=project)
    assert nothing.returncode == 64 and "no run or batch yet" in nothing.stderr
    assert "jlgcli loop task.md" in nothing.stderr
    env = fake_script(tmp_path, {"text": "fixed\nDONE"})
    for _ in range(2):
        assert jlg("loop", "task.md", "-b", "claude", cwd=project, env=env).returncode == 0
    ambiguous = jlg("watch", "2", cwd=project)
    assert ambiguous.returncode == 64 and "ambiguous" in ambiguous.stderr
    unknown = jlg("watch", "1999", cwd=project)
    assert unknown.returncode == 64 and "recent ones:" in unknown.stderr


def test_a_one_shot_run_with_a_folder_keeps_its_events_too(jlg: Runner, tmp_path: Path) -> None:
    project = task_project(tmp_path, "Say hi.\n")
    done = jlg("run", "task.md", "-b", "claude", "--artifacts", "-q", cwd=project)
    assert done.returncode == 0, done.stderr
    (folder,) = (project / ".jlgcli" / "runs").glob("2*")
    kept = (folder / "events.ndjson").read_text("utf-8").splitlines()
    types = [json.loads(line)["type"] for line in kept]
    assert types[0] == "run-started" and types[-1] == "run-ended"
    shown = jlg("watch", folder.name, cwd=project)
    assert shown.returncode == 0 and "run ended: done" in shown.stderr
