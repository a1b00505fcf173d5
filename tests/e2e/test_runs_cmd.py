"""`jlgcli runs` / `jlgcli runs show` through the installed console script (F-006, US-8)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from support.cli import Runner

from jlgcli.artifacts import RunDirectory
from jlgcli.process.model import OutputEvent


def test_list_and_show_recorded_runs(jlg: Runner, tmp_path: Path) -> None:
    commands = [line.split()[0] for line in jlg("--help").stdout.splitlines() if line[:4] == "    "]
    if "runs" not in commands:
        pytest.skip("`jlgcli runs` is not wired into jlgcli/cli.py yet")
    project = tmp_path / "project"
    project.mkdir()
    root = project / ".jlgcli" / "runs"
    nothing = jlg("runs", cwd=project)
    assert (nothing.returncode, nothing.stdout) == (0, "")
    assert "no runs recorded" in nothing.stderr

    with RunDirectory.create(root, "20260101T000000Z-aaaaaa") as done:
        done.write_meta({"backend": "claude"})
        done.transcript(OutputEvent("stdout", "working\nDONE\n", 0.0))
        done.write_prompt(1, "task")
        done.write_final_message(1, "DONE")
        done.write_result({"status": "done", "exitCode": 0, "backend": "claude",
                           "iterations": 1, "durationMs": 2500})  # fmt: skip
    with RunDirectory.create(root, "20260102T000000Z-bbbbbb") as killed:
        killed.write_meta({"backend": "codex"})  # killed: no result.json
    (root / "20260103T000000Z-cccccc").mkdir()
    (root / "20260103T000000Z-cccccc" / "result.json").write_text("{corrupt", encoding="utf-8")

    table = jlg("runs", cwd=project)
    assert table.returncode == 0, table.stderr
    rows = [line.split() for line in table.stdout.splitlines()]
    assert rows[0] == ["ID", "DATE", "BACKEND", "STATUS", "ITER", "DURATION", "COST"]
    assert [(row[0], row[4] if len(row) > 4 else "") for row in rows[1:]] == [
        ("20260103T000000Z-cccccc", "unreadable"),
        ("20260102T000000Z-bbbbbb", "incomplete"),
        ("20260101T000000Z-aaaaaa", "done"),
    ]

    listed = jlg("runs", "--json", "--limit", "1", cwd=project)
    assert listed.returncode == 0
    assert [r["status"] for r in json.loads(listed.stdout)["runs"]] == ["unreadable"]

    shown = jlg("runs", "show", "20260101", "--json", cwd=project)
    assert shown.returncode == 0, shown.stderr
    detail = json.loads(shown.stdout)
    assert detail["result"]["status"] == "done"
    assert detail["paths"]["transcript"] == str(done.path / "transcript.ndjson")

    human = jlg("runs", "show", "20260101T000000Z-aaaaaa", cwd=project)
    assert "status      done (exit 0)" in human.stdout

    unknown = jlg("runs", "show", "nope", "--json", cwd=project)
    assert unknown.returncode == 64
    assert json.loads(unknown.stdout)["exitCode"] == 64
    assert "recent runs: 20260103T000000Z-cccccc" in unknown.stderr


# --- the project root, from any sub-directory (issue 19 item 9) ----------------------------


def _record(root: Path, run_id: str, status: str = "done") -> None:
    with RunDirectory.create(root, run_id) as run:
        run.write_meta({"backend": "claude"})
        run.write_result({"status": status, "exitCode": 0, "backend": "claude", "iterations": 1})


def test_runs_are_read_at_the_project_root_from_a_sub_directory(
    jlg: Runner, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    sub = project / "src" / "pkg"
    sub.mkdir(parents=True)
    (project / ".jlgcli.json").write_text("{}", encoding="utf-8")
    _record(project / ".jlgcli" / "runs", "20260101T000000Z-aaaaaa")
    _record(project / ".jlgcli" / "runs", "20260102T000000Z-bbbbbb", status="error")

    listed = jlg("runs", "--json", cwd=sub)
    assert listed.returncode == 0, listed.stderr
    data = json.loads(listed.stdout)
    assert Path(data["root"]) == (project / ".jlgcli" / "runs").resolve()
    assert [run["runId"] for run in data["runs"]] == [
        "20260102T000000Z-bbbbbb",
        "20260101T000000Z-aaaaaa",
    ]
    assert not (sub / ".jlgcli").exists()


def test_a_run_from_a_sub_directory_is_written_at_the_project_root(
    jlg: Runner, tmp_path: Path
) -> None:
    """Issue 19 item 9: a run in sub/ does not create sub/.jlgcli/runs; runs lists it."""
    project = tmp_path / "project"
    sub = project / "src"
    sub.mkdir(parents=True)
    (project / ".jlgcli.json").write_text("{}", encoding="utf-8")
    (sub / "task.md").write_text("Do it.\n", encoding="utf-8")
    result = jlg("loop", "task.md", "-b", "claude", "--artifacts", "--json", cwd=sub)
    assert result.returncode == 0, result.stderr
    run_dir = Path(json.loads(result.stdout)["runDir"])
    assert run_dir.parent == (project / ".jlgcli" / "runs").resolve()
    assert not (sub / ".jlgcli").exists()
    listed = jlg("runs", "--json", cwd=sub)
    assert json.loads(listed.stdout)["runs"][0]["runId"] == run_dir.name


def test_runs_show_latest_is_the_newest_run(jlg: Runner, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # a git work tree's root is the project root too
    sub = tmp_path / "docs"
    sub.mkdir()
    root = tmp_path / ".jlgcli" / "runs"
    _record(root, "20260101T000000Z-aaaaaa")
    _record(root, "20260105T000000Z-cccccc", status="error")
    shown = jlg("runs", "show", "latest", "--json", cwd=sub)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["run"]["runId"] == "20260105T000000Z-cccccc"


def test_no_runs_says_which_runs_are_recorded(jlg: Runner, tmp_path: Path) -> None:
    # issue 51: every loop, and every one-shot run keeping its transcript (the default)
    listed = jlg("runs")
    assert listed.returncode == 0
    assert "every loop is recorded" in listed.stderr and "--no-transcript" in listed.stderr
    latest = jlg("runs", "show", "latest")
    assert latest.returncode == 64
    assert "recorded where they ran" in latest.stderr


@pytest.mark.skipif(os.name == "nt", reason="a pipe whose reader is gone: POSIX os.pipe")
def test_a_reader_gone_ends_runs_quietly_with_141(jlgcli_exe: str, tmp_path: Path) -> None:
    """Issue 49: ``$(jlgcli runs -q | head -1)`` printed ``error: interrupted by SIGPIPE``;
    git and ls say nothing when their reader goes away (the code stays 141)."""
    project = tmp_path / "project"
    for number in range(3):
        (project / ".jlgcli" / "runs" / f"2026010{number + 1}T000000Z-aaaaaa").mkdir(parents=True)
    read, write = os.pipe()
    os.close(read)  # `| head -1` that has read its line and left
    try:
        proc = subprocess.run([jlgcli_exe, "runs", "-q"], cwd=project, stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=120)  # fmt: skip
    finally:
        os.close(write)
    assert (proc.returncode, proc.stderr) == (141, "")
