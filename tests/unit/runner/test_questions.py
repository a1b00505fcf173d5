"""A question parks the run (issue 51): never done, never "no progress"; an answer resumes it.

The engine with a scripted fake backend (tests/support/fake_backend.py) and a fake clock.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from support.fake_backend import FakeBackend, run_loop

from jlgcli.runner.resume import ResumeState
from jlgcli.runner.summary import RunSummary

STUCK = " ".join(["I read the parser and the tests and cannot tell which format is meant."] * 8)


def run(tmp_path: Path, backend: FakeBackend, **fields: Any) -> RunSummary:
    summary: RunSummary = run_loop(tmp_path, backend, **fields)[0]
    return summary


def test_a_question_line_parks_the_run_with_its_own_exit_code(tmp_path: Path) -> None:
    backend = FakeBackend().enqueue("Looked around.\nQUESTION: Which database?")
    summary = run(tmp_path, backend)
    assert (summary.stopCause, summary.status, summary.exitCode) == ("question", "parked", 7)
    assert summary.question == "Which database?" and summary.iterations == 1
    assert summary.iterationMetrics[0].completion == "question"
    assert summary.error is not None and "jlgcli answer" in (summary.error.hint or "")
    state = json.loads(next(tmp_path.glob(".jlgcli/runs/*/state.json")).read_text("utf-8"))
    assert (state["stop_cause"], state["question"]) == ("question", "Which database?")


def test_a_question_is_not_no_progress(tmp_path: Path) -> None:
    """The same long reply twice would be "no progress" (limit 2): the second one asks."""
    backend = FakeBackend().enqueue(STUCK).enqueue(f"{STUCK}\nQUESTION: JSON or YAML?")
    summary = run(tmp_path, backend, no_progress_limit=2)
    assert (summary.stopCause, summary.iterations, summary.question) == (
        "question", 2, "JSON or YAML?",
    )  # fmt: skip
    control = FakeBackend().enqueue(STUCK).enqueue(f"{STUCK}\nStill unsure.")
    assert run(tmp_path, control, no_progress_limit=2).stopCause == "no-progress"


def test_a_question_is_not_done_and_runs_no_gate(tmp_path: Path) -> None:
    gate = f'{sys.executable} -c "import sys; sys.exit(3)"'  # it would fail, had it run
    backend = FakeBackend().enqueue('{"status": "question", "question": "Which port?"}')
    summary = run(tmp_path, backend, completion_mode="json", gates=(gate,))
    assert (summary.stopCause, summary.question) == ("question", "Which port?")
    assert summary.iterationMetrics[0].gates == []


def test_a_question_asked_through_the_cli_tool_parks_a_loop_not_a_done_one(
    tmp_path: Path,
) -> None:
    asked = FakeBackend().enqueue("Let me check with you.", question="Keep the old API?")
    summary = run(tmp_path, asked)
    assert (summary.stopCause, summary.question) == ("question", "Keep the old API?")
    finished = FakeBackend().enqueue("Asked, then decided myself.\nDONE", question="Keep it?")
    assert run(tmp_path, finished).stopCause == "done"
    once = FakeBackend().enqueue("Looked.", question="Keep it?")
    assert run(tmp_path, once, command="run").stopCause == "done"  # run has no protocol


def test_an_answer_goes_to_the_session_that_asked_in_the_next_prompt(tmp_path: Path) -> None:
    """A fresh-session loop answered: the first call continues the session that asked, its
    prompt carries the question and the answer; the next call is fresh again."""
    metrics = [{"index": 1, "durationMs": 1000, "exitCode": 0, "stopReason": "exited",
                "completion": "question", "outputChars": 10, "backend": "fake"}]  # fmt: skip
    state = ResumeState(
        run_id="20261128T220000Z-abcdef", task="Do the task.", prompt_source="task.md",
        backend="fake", completion_mode="marker", options={}, iterations=1,
        session_id="s-asked", session_backend="fake", last_report="QUESTION: Which colour?",
        stop_cause="question", metrics=metrics, question="Which colour?",
    )  # fmt: skip
    backend = FakeBackend().enqueue("painting", session_id="s-asked").enqueue("done\nDONE")
    summary = run(tmp_path, backend, resume=state, answer="Blue")
    assert (summary.stopCause, summary.resumedFrom, summary.iterations) == (
        "done", state.run_id, 3,
    )  # fmt: skip
    first, second = backend.history
    assert first.resume_session == "s-asked"
    assert "The user's answer:\nBlue" in first.prompt and "Which colour?" in first.prompt
    assert second.resume_session is None and "Blue" not in second.prompt


def test_an_answer_to_a_batch_tasks_earlier_run_is_refused_not_run_here(tmp_path: Path) -> None:
    """A batch task's run answered (or resumed) since is no longer the task's run: answering
    it alone would run the agent here, outside the task's worktree."""
    import pytest

    from jlgcli.errors import JlgError
    from jlgcli.runner.options import RunOptions
    from jlgcli.runner.resume_options import resumed_options

    run_id = "20261128T220000Z-abcdef"
    folder = tmp_path / "runs" / run_id
    folder.mkdir(parents=True)
    state = {"version": 1, "run_id": run_id, "task": "t", "prompt_source": "t.md",
             "backend": "claude", "completion_mode": "marker",
             "options": {"cwd": "/r/.jlgcli/worktrees/beta"},
             "stop_cause": "question", "question": "Which?"}  # fmt: skip
    (folder / "state.json").write_text(json.dumps(state), encoding="utf-8")
    with pytest.raises(JlgError, match="no longer its task's run") as caught:
        resumed_options(RunOptions(resume=run_id, answer="yes"), tmp_path / "runs")
    assert caught.value.code == 64
    options, resumed = resumed_options(
        RunOptions(resume=run_id, answer="yes", batch_task="beta"), tmp_path / "runs"
    )
    assert options.answer == "yes" and resumed.state.question == "Which?"
