"""Console output and the human summary (F-005, RG-014)."""

from __future__ import annotations

import io

import pytest

from jlgcli.runner.console import Console
from jlgcli.runner.report import human_summary
from jlgcli.runner.summary import ErrorInfo, RunSummary


def _summary(**fields: object) -> RunSummary:
    base: dict[str, object] = dict(
        command="loop",
        status="incomplete",
        stopCause="max-iterations",
        exitCode=4,
        backend="claude",
        backendVersion="2.1.197",
        completionMode="marker",
        iterations=3,
        maxIterations=3,
        durationMs=4200,
        startedAt="2026-11-22T00:00:00.000Z",
        endedAt="2026-11-22T00:00:04.200Z",
        runId="r1",
    )
    base.update(fields)
    return RunSummary(**base)  # type: ignore[arg-type]


def test_summary_names_stop_cause_backend_iterations_duration() -> None:
    text = human_summary(_summary())
    assert "INCOMPLETE" in text and "max-iterations" in text  # RG-014
    assert "claude 2.1.197" in text and "3/3" in text and "4.2s" in text
    assert "cost        unknown" in text  # never a made-up 0.00


def test_summary_cost_error_and_artifacts() -> None:
    text = human_summary(
        _summary(
            costUsd=0.0123,
            inputTokens=10,
            outputTokens=5,
            runDir="/x/run",
            diagnosis=["note 1"],
            error=ErrorInfo(code=4, message="3 iterations", hint="raise it"),
            summary="did it",
            command="run",
        )
    )
    assert "$0.0123" in text and "tokens in 10, out 5" in text
    assert "/x/run" in text and "note 1" in text and "hint        raise it" in text
    assert "did it" in text


def test_interrupted_by_a_signal_names_it_once() -> None:
    """Issue 19 item 13: not "INTERRUPTED (interrupted: interrupted)"."""
    text = human_summary(_summary(status="interrupted", stopCause="interrupted", exitCode=143,
                                  signal="SIGTERM"))  # fmt: skip
    assert "INTERRUPTED (interrupted by SIGTERM)" in text
    assert "interrupted: interrupted" not in text


def test_multi_line_notes_keep_the_alignment() -> None:
    """Issue 19 item 13: a multi-line tail stays on one summary line."""
    text = human_summary(_summary(diagnosis=["output tail: a\nb\nc"]))
    assert [line for line in text.splitlines() if "note" in line] == [
        "   note        output tail: a ⏎ b ⏎ c"
    ]


def test_console_routes_by_verbosity_and_json() -> None:
    out, err = io.StringIO(), io.StringIO()
    console = Console(1, out=out, err=err)
    console.assistant("hello")
    console.progress("iteration 1/3")
    console.detail("hidden at 1")
    console.warn("careful")
    console.summary("SUMMARY\n")
    assert out.getvalue() == "hello\n"
    assert "[jlgcli] iteration 1/3" in err.getvalue() and "hidden" not in err.getvalue()
    assert "warning: careful" in err.getvalue() and err.getvalue().endswith("SUMMARY\n")

    out, err = io.StringIO(), io.StringIO()
    console = Console(3, json_mode=True, out=out, err=err)
    console.assistant("live")
    console.debug("dbg")
    assert out.getvalue() == ""  # --json: stdout only carries the final object
    assert err.getvalue().startswith("live\n[jlgcli:debug] dbg")

    quiet_out = io.StringIO()
    Console(0, out=quiet_out, err=io.StringIO()).assistant("x")
    assert quiet_out.getvalue() == ""


def test_countdown_shows_time_left_on_the_runs_clock() -> None:
    from support.fake_backend import FakeClock

    from jlgcli.runner.waiting import countdown

    err, clock = io.StringIO(), FakeClock()
    countdown(Console(1, err=err), clock, 3, "rate-limited")
    assert abs(sum(clock.slept) - 3) < 1e-6
    assert "rate-limited: waiting 3s" in err.getvalue()


def test_the_summary_is_coloured_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    from jlgcli.colour import Palette

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")

    plain = human_summary(_summary(error=ErrorInfo(code=4, message="m", hint="h")))
    assert "\x1b[" not in plain
    coloured = human_summary(
        _summary(error=ErrorInfo(code=4, message="m", hint="h")), Palette(io.StringIO())
    )
    assert "\x1b[" in coloured and "INCOMPLETE" in coloured


def test_summary_names_each_backend_used_with_its_own_version() -> None:
    """Issue 31: after a failover the line said "codex <claude's version>"."""
    from jlgcli.runner.summary import BackendUse

    used = [BackendUse("claude", "2.1.197"), BackendUse("codex", None)]
    text = human_summary(_summary(backend="codex", backendVersion=None, backends=used))
    assert "backend     claude 2.1.197 → codex\n" in text


@pytest.mark.parametrize(
    ("verbosity", "json_mode", "shown"),
    [(0, False, "the answer is 42\n"), (1, False, ""), (0, True, "")],
)
def test_the_final_answer_reaches_stdout_only_when_nothing_was_streamed_there(
    verbosity: int, json_mode: bool, shown: str
) -> None:
    """Issue 31: ``run -q`` printed no answer at all; streamed text is not printed twice."""
    out, err = io.StringIO(), io.StringIO()
    console = Console(verbosity, json_mode=json_mode, out=out, err=err)
    console.final("the answer is 42\n\n")
    console.final("   ")
    assert out.getvalue() == shown and err.getvalue() == ""
