"""``jlgcli watch`` shown with the live renderers (issue 51): a run, a batch, a detach."""

from __future__ import annotations

import io
import json
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jlgcli.batch.follow import Follower
from jlgcli.batch.watch import BatchView, watch
from jlgcli.process.signals import Interrupted
from jlgcli.runner.console import Console
from jlgcli.runner.watch_view import RunView

RUN = "20261128T100000Z-aaaaaa"
BATCH = "batch-20261128T120000Z-cccccc"


def _line(type_: str, owner: str = RUN, **data: Any) -> str:
    key = "batchId" if owner.startswith("batch-") else "runId"
    return (
        json.dumps(
            {
                "schemaVersion": 1,
                "type": type_,
                "time": "2026-11-28T10:00:00.000+00:00",
                key: owner,
                **data,
            }
        )
        + "\n"
    )


STORY = [
    _line("run-started", command="loop", backend="claude", maxIterations=3),
    _line("iteration-started", iteration=1, backend="claude"),
    _line("agent-activity", iteration=1, kind="text", text="looking \x1b]52;c;Zm9v\x07around\n"),
    _line("agent-activity", iteration=1, kind="usage", costUsd=0.01),
    _line("limit-wait", iteration=1, seconds=30, reason="rate limited"),
    _line("backend-switch", to="codex", reason="claude's quota is out; switched to codex"),
    _line("gate-result", iteration=1, command="pytest -q", exitCode=1, ok=False),
    _line(
        "iteration-ended",
        iteration=1,
        completion="continue",
        durationMs=2500,
        costUsd=0.01,
        diffStat={"files": 2, "insertions": 5, "deletions": 1},
    ),
    _line(
        "run-ended",
        status="done",
        stopCause="done",
        exitCode=0,
        iterations=1,
        durationMs=2600,
        costUsd=0.01,
    ),
]


def _run_folder(cwd: Path, lines: list[str]) -> Path:
    folder = cwd / ".jlgcli" / "runs" / RUN
    folder.mkdir(parents=True)
    (folder / "events.ndjson").write_text("".join(lines), "utf-8")
    return folder


def test_an_ended_run_is_told_from_start_to_end(tmp_path: Path) -> None:
    _run_folder(tmp_path, STORY)
    out, err = io.StringIO(), io.StringIO()
    assert watch(RUN, cwd=tmp_path, out=out, err=err) == 0
    text = err.getvalue()
    assert f"loop {RUN} started on claude, at most 3 iterations" in text
    assert "iteration 1/3 · claude" in text and "rate limited: waiting 30s" in text
    assert "switched to codex" in text and "gate failed: pytest -q" in text
    assert "iteration 1 ended: continue · 2.5s · $0.0100 · 2 files changed (+5/-1)" in text
    assert "run ended: done · exit 0 · 1 iteration · 2.6s · $0.0100" in text
    assert out.getvalue() == "looking around\n"  # the agent's text, its escape removed
    assert "watching" not in text  # it has ended: no attach line


def test_json_prints_the_events_as_they_are(tmp_path: Path) -> None:
    _run_folder(tmp_path, STORY)
    out, err = io.StringIO(), io.StringIO()
    assert watch("latest", cwd=tmp_path, json_mode=True, out=out, err=err) == 0
    assert [json.loads(line)["type"] for line in out.getvalue().splitlines()] == [
        json.loads(line)["type"] for line in STORY
    ]
    assert err.getvalue() == ""


def test_a_run_without_events_or_without_an_end_says_so(tmp_path: Path) -> None:
    folder = _run_folder(tmp_path, STORY[:2])
    err = io.StringIO()
    assert watch(RUN, cwd=tmp_path, out=io.StringIO(), err=err) == 0
    assert "is no longer going and wrote no end: see jlgcli runs show" in err.getvalue()
    (folder / "events.ndjson").unlink()
    err = io.StringIO()
    assert watch(RUN, cwd=tmp_path, out=io.StringIO(), err=err) == 0
    assert "kept no events" in err.getvalue()


def test_ctrl_c_detaches_with_130_and_another_signal_with_its_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _run_folder(tmp_path, STORY[:2])
    signals = iter([KeyboardInterrupt(), Interrupted(signal.SIGTERM)])

    def interrupted(self: Follower) -> Iterator[dict[str, Any]]:
        yield json.loads(STORY[0])
        raise next(signals)

    monkeypatch.setattr(Follower, "__iter__", interrupted)
    err = io.StringIO()
    assert watch(RUN, cwd=tmp_path, out=io.StringIO(), err=err) == 130
    assert f"detached from {RUN}; it goes on (jlgcli watch {RUN}" in err.getvalue()
    assert watch(RUN, cwd=tmp_path, out=io.StringIO(), err=io.StringIO()) == 143


def test_the_status_line_of_the_call_in_progress_is_the_live_runs(tmp_path: Path) -> None:
    """A watcher on a terminal redraws the same LiveStatus line as the run's own terminal."""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Terminal()
    view = RunView(Console(1, out=io.StringIO(), err=err))
    for line in STORY[:2]:
        view.show(json.loads(line))
    view.tick()  # the iteration started long ago: the agent is silent
    assert "\r\x1b[K[jlgcli] iteration 1/3 · claude · " in err.getvalue()
    assert "waiting for the agent's first output" in err.getvalue()
    view.show(json.loads(STORY[2]))
    view.tick()
    view.close()
    assert "last: looking around" not in err.getvalue()  # just heard from: no redraw yet


def _batch_lines() -> list[str]:
    return [
        _line("batch-started", BATCH, tasks=["alpha", "beta\x1b[2J"], jobs=2, merge=False),
        _line("task-started", BATCH, task="alpha"),
        _line(
            "task-line",
            BATCH,
            task="alpha",
            state="running",
            backend="claude",
            iteration=2,
            costUsd=0.5,
            activity="text",
        ),
        _line("task-line", BATCH, task="ghost", state="running"),
        _line("task-line", BATCH, task=7, state="running"),
        _line("task-ended", BATCH, task="alpha", exitCode=0, state="done", iterations=2),
        _line("batch-ended", BATCH, exitCode=0),
    ]


def test_a_batch_is_shown_as_its_board() -> None:
    err = io.StringIO()
    view = BatchView(err, live=False)
    for line in _batch_lines()[:3]:
        view.show(json.loads(line))
    view.tick()
    shown = err.getvalue()
    assert "jlgcli: task alpha" in shown and "claude" in shown and "iter 2" in shown
    assert "$0.5000" in shown and "running (text)" in shown
    for line in _batch_lines()[3:]:
        view.show(json.loads(line))
    view.tick()
    assert [row.name for row in view.rows] == ["alpha", "beta", "ghost"]  # flattened names
    assert view.rows[0].state == "done" and view.ended is not None
    assert "\x1b" not in err.getvalue()


def test_an_ended_batch_ends_with_its_table(tmp_path: Path) -> None:
    from jlgcli.batch.record import BatchRecord, TaskRecord, save

    root = tmp_path / ".jlgcli" / "runs"
    record = BatchRecord(
        BATCH,
        None,
        None,
        merge=False,
        isolated=False,
        tasks=[
            TaskRecord("alpha", "/t/alpha.md", exitCode=0, iterations=2),
            TaskRecord("beta", "/t/beta.md"),
        ],
    )
    folder = save(root, record).parent
    (folder / "events.ndjson").write_text("".join(_batch_lines()), "utf-8")
    err = io.StringIO()
    assert watch(BATCH, cwd=tmp_path, out=io.StringIO(), err=err) == 0
    assert "jlgcli: task alpha" in err.getvalue()
    assert "2 tasks, 1 done" in err.getvalue()  # batch.report's table


def test_tab_offers_the_runs_and_batches_to_watch(tmp_path: Path) -> None:
    from jlgcli.commands.complete_words import complete

    _run_folder(tmp_path, STORY)
    offers = complete(["watch"], "", cwd=tmp_path).offers
    assert (RUN, "run") in offers and offers[-1][0] == "latest"


def test_a_stopped_watch_of_a_batch_prints_no_table(tmp_path: Path) -> None:
    import threading

    folder = tmp_path / ".jlgcli" / "runs" / ".batches" / BATCH
    folder.mkdir(parents=True)
    (folder / "batch.json").write_text("{}", "utf-8")
    (folder / "events.ndjson").write_text("".join(_batch_lines()[:2]), "utf-8")
    stop = threading.Event()
    stop.set()
    err = io.StringIO()
    assert watch(BATCH, cwd=tmp_path, out=io.StringIO(), err=err, stop=stop) == 0
    assert "damaged" not in err.getvalue() and "tasks," not in err.getvalue()


def test_a_parked_runs_question_is_shown_with_how_to_answer_it() -> None:
    """Issue 51: a run that parks on a question (its ``question`` event) is told as such by
    ``watch``, with the command that answers it; the question's control sequences stripped."""
    out, err = io.StringIO(), io.StringIO()
    view = RunView(Console(1, out=out, err=err))
    for line in [
        STORY[0],
        STORY[1],
        _line("question", iteration=1, question="Which \x1b[2Jdatabase?"),
        _line("run-ended", status="parked", stopCause="question", exitCode=7, iterations=1),
    ]:
        view.show(json.loads(line))
    view.close()
    shown = out.getvalue() + err.getvalue()
    assert "question: Which database?" in shown
    assert f'jlgcli answer {RUN} "your answer"' in shown
    assert "\x1b[2J" not in shown
    assert "run ended: parked (question) · exit 7" in shown
