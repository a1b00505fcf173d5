"""`jlgcli runs` / `jlgcli runs show` through the installed console script (F-006, US-8)."""

from __future__ import annotations

import json
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
    assert rows[0] == ["ID", "DATE", "BACKEND", "STATUS", "ITER", "DURATION"]
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
