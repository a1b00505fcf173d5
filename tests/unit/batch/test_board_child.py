"""The task lines and a task child's events (issue 37)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from types import SimpleNamespace

from jlgcli.batch.board import HEARTBEAT_S, Board, Row, table
from jlgcli.batch.child import ChildRun, passed_flags


def test_a_terminal_gets_the_task_lines_redrawn_in_place() -> None:
    stream = io.StringIO()
    rows = [Row("alpha", "running", "claude", 2, 0.25, started=0.0, activity="gates"), Row("beta")]
    board = Board(rows, stream=stream, live=True)
    board.update(now=65.0)
    board.update(now=66.0)
    out = stream.getvalue()
    assert out.count("\x1b[2F") == 1 and "alpha" in out and "1m05s" in out and "$0.2500" in out
    assert "cost ?" in out and "queued" in out and "running (gates)" in out


def test_ci_gets_a_line_per_change_and_a_heartbeat() -> None:
    stream = io.StringIO()
    row = Row("alpha", "running", started=0.0)
    board = Board([row, Row("beta")], stream=stream, live=False)
    board.update(now=1.0)
    board.update(now=2.0)  # nothing changed: nothing said
    board.update(now=2.0 + HEARTBEAT_S)  # a heartbeat
    row.state, row.ended = "done", 3700.0
    board.update(now=4000.0)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 3 and all(line.startswith("jlgcli: task alpha") for line in lines)
    assert "1h01m" in lines[-1] and "beta" not in stream.getvalue()


def test_quiet_says_nothing() -> None:
    stream = io.StringIO()
    Board([Row("a", "running")], stream=stream, live=True, quiet=True).update()
    assert stream.getvalue() == ""


def test_table_pads_columns() -> None:
    assert table([["a", "bb"]], ["x", "y"]) == "x  y\na  bb\n"


def test_each_task_gets_the_loop_flags_but_not_the_budget() -> None:
    args = SimpleNamespace(
        backend="claude", max_iterations="3", model=None, max_cost="2",
        fallback=[["codex", "gemini"]], gate=["pytest -q"], backend_arg=[],
    )  # fmt: skip
    flags = passed_flags(args)
    assert flags == ["--backend", "claude", "--max-iterations", "3",
                     "--fallback", "codex,gemini", "--gate=pytest -q"]  # fmt: skip


def test_events_are_read_by_whole_lines_and_update_what_is_shown(tmp_path: Path) -> None:
    child = ChildRun("a", [], tmp_path, tmp_path / "ev", tmp_path / "out", tmp_path / "err")
    assert child.read_events() == []  # no file yet
    lines = [
        {"type": "run-started", "runId": "r1", "backend": "claude"},
        {"type": "iteration-started", "iteration": 1, "backend": "claude"},
        {"type": "agent-activity", "kind": "usage", "costUsd": 0.5},
        {"type": "limit-wait", "seconds": 30},
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines) + "not json\n" + '{"type": "gate'
    (tmp_path / "ev").write_text(text, "utf-8")
    assert len(child.read_events()) == 4
    live = child.live
    assert (live.run_id, live.iteration, live.cost, live.cost_known, live.waiting) == (
        "r1", 1, 0.5, True, True,
    )  # fmt: skip
    with (tmp_path / "ev").open("a", encoding="utf-8") as stream:
        stream.write('-result"}\n')
    assert child.read_events() == [{"type": "gate-result"}] and live.activity == "gates"
