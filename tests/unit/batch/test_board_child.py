"""The task lines and a task child's events (issue 37)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from jlgcli.batch.board import HEARTBEAT_S, Board, Row, table
from jlgcli.batch.child import ChildRun, _EventSink
from jlgcli.process.model import OutputEvent


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


def test_the_child_stdout_is_split_into_events_and_its_summary(tmp_path: Path) -> None:
    # issue 37: events come on the child's stdout ahead of its --json summary, each one
    # passed on as soon as its line is whole (no polling of a file)
    child = ChildRun("a", [], tmp_path, tmp_path / "ev", tmp_path / "out", tmp_path / "err")
    seen: list[dict[str, object]] = []
    child.on_event = seen.append
    lines = [
        {"schemaVersion": 1, "type": "run-started", "runId": "r1", "backend": "claude"},
        {"schemaVersion": 1, "type": "iteration-started", "iteration": 1, "backend": "claude"},
        {"schemaVersion": 1, "type": "agent-activity", "kind": "usage", "costUsd": 0.5},
        {"schemaVersion": 1, "type": "limit-wait", "seconds": 30},
    ]
    events = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
    summary = json.dumps({"command": "loop", "exitCode": 0}, indent=2) + "\n"
    data = (events + '{"schemaVersion":1,"type":"gate-result"}\n' + summary).encode()
    out, err, log = io.BytesIO(), io.BytesIO(), io.BytesIO()
    sink = _EventSink(out, err, log, child.event)
    for cut in range(0, len(data), 7):  # in chunks that cut lines anywhere
        sink(OutputEvent("stdout", data[cut : cut + 7], 0.0))
        if cut == 14:
            assert not seen and not child.wake.is_set()  # half a line: nothing yet
    sink(OutputEvent("stderr", b"[jlgcli] iteration 1/20\n", 0.0))
    sink(OutputEvent("stdout", b'{"schemaVersion":1,"type":"broken', 0.0))
    sink.close()
    assert [event["type"] for event in seen] == [
        "run-started", "iteration-started", "agent-activity", "limit-wait", "gate-result",
    ]  # fmt: skip
    assert child.wake.is_set() and log.getvalue().count(b"\n") == 5
    assert out.getvalue().decode().startswith(summary)
    assert out.getvalue().decode().endswith('"type":"broken')  # not an event: left as text
    assert err.getvalue() == b"[jlgcli] iteration 1/20\n"
    live = child.live
    assert (live.run_id, live.iteration, live.cost, live.cost_known, live.waiting) == (
        "r1", 1, 0.5, True, True,
    )  # fmt: skip
    assert live.activity == "gates" and live.agent_heard


def test_a_task_whose_worktree_cannot_be_made_ends_with_the_reason_in_its_log(
    tmp_path: Path,
) -> None:
    def prepare(child: ChildRun) -> None:
        raise OSError("no room")

    ended: list[str] = []
    files = (tmp_path / "ev", tmp_path / "out", tmp_path / "err")
    child = ChildRun("a", ["never-run"], tmp_path, *files, prepare=prepare,
                     after=lambda c: ended.append(c.name))  # fmt: skip
    child.start()
    child.join(10)
    assert child.exited.is_set() and child.exit_code is None and child.error is None
    assert ended == ["a"] and "cannot prepare the task: no room" in (tmp_path / "err").read_text()


def test_an_error_of_the_after_step_is_kept_for_the_scheduler(tmp_path: Path) -> None:
    def after(child: ChildRun) -> None:
        raise RuntimeError("commit failed")

    child = ChildRun("a", [], tmp_path, tmp_path / "ev", tmp_path / "out", tmp_path / "err",
                     prepare=lambda c: c.cancel.set(), after=after)  # fmt: skip
    child.start()
    child.join(10)
    assert isinstance(child.error, RuntimeError) and child.wake.is_set()


def test_an_ended_tasks_commit_waits_until_the_starting_tasks_agents_speak(
    tmp_path: Path,
) -> None:
    """Issue 37: a round's commits wait for the next round's starts (probe, snapshot,
    agent spawn), not only for their first iteration's event."""
    import threading

    from jlgcli.batch.schedule import Schedule, Slot

    child = ChildRun("t", [], tmp_path, tmp_path / "e", tmp_path / "o", tmp_path / "r")
    release = threading.Event()
    child._thread = threading.Thread(target=release.wait)
    child._thread.start()
    slot = Slot(child, Row("t"), started=True)
    schedule = Schedule([slot], 1, None, Board([slot.row], stream=io.StringIO(), live=False),
                        lambda _slot, _left: None, lambda _slot: None)  # fmt: skip
    try:
        child.event({"type": "iteration-started", "iteration": 1, "backend": "claude"})
        schedule._watch([slot])
        assert not schedule.settled.is_set()
        child.event({"type": "agent-activity", "kind": "text"})
        schedule._watch([slot])
        assert schedule.settled.is_set()
    finally:
        release.set()
        child._thread.join()


def test_a_task_whose_run_ended_frees_its_slot_while_its_process_exits(tmp_path: Path) -> None:
    """Issue 37: the next task starts at the run-ended event (result and state written),
    not after the ended task's process has torn down."""
    import threading

    from jlgcli.batch.schedule import Schedule, Slot

    release = threading.Event()
    children = [ChildRun(name, [], tmp_path, tmp_path / f"{name}.e", tmp_path / f"{name}.o",
                         tmp_path / f"{name}.r") for name in ("a", "b")]  # fmt: skip
    first = children[0]
    first._thread = threading.Thread(target=release.wait)
    first._thread.start()
    slots = [Slot(children[0], Row("a"), started=True), Slot(children[1], Row("b"))]
    started: list[str] = []
    schedule = Schedule(slots, 1, None, Board([s.row for s in slots], stream=io.StringIO(),
                        live=False), lambda slot, _left: started.append(slot.child.name),
                        lambda _slot: None)  # fmt: skip
    schedule._queue = [slots[1]]
    children[1].start = lambda: None  # type: ignore[method-assign]  # no process here
    try:
        schedule._start_more()
        assert started == []  # the one slot is busy
        first.event({"type": "run-ended", "status": "done", "exitCode": 0})
        schedule._start_more()
        assert started == ["b"] and first.running()  # a's process still exiting
    finally:
        release.set()
        first._thread.join()
