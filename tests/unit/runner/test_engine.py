"""The run core in-process: a fake backend (``enqueue``/``history``) and an injected clock.

Guardrails, back-off, failover, budgets, gates and resume state are tested here in
milliseconds (issue 13 item 4; issues 16 and 17). F-004, RG-011..RG-013.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from support.fake_backend import FakeBackend, FakeClock, caller, opener, selector

from jlgcli.process.model import StopReason
from jlgcli.prompts import Prompt
from jlgcli.runner.console import Console
from jlgcli.runner.engine import execute
from jlgcli.runner.spec import RunSpec
from jlgcli.runner.summary import RunSummary


def spec(tmp_path: Path, **fields: Any) -> RunSpec:
    base: dict[str, Any] = dict(
        command="loop", prompt=Prompt("Do the task.", "task.md"), backend="fake", cwd=tmp_path,
        max_iterations=5, timeout_ms=3_600_000, idle_timeout_ms=0,
    )  # fmt: skip
    base.update(fields)
    return RunSpec(**base)


def run(
    tmp_path: Path, backend: FakeBackend, *others: FakeBackend, **fields: Any
) -> tuple[RunSummary, str]:
    clock = backend.clock or FakeClock()
    backend.clock = clock
    for other in others:
        other.clock = clock
    err = io.StringIO()
    summary = execute(spec(tmp_path, **fields), Console(1, out=io.StringIO(), err=err),
                      clock=clock, caller=caller, select=selector(backend),
                      open_fallback=opener(*others))  # fmt: skip
    return summary, err.getvalue()


def test_done_on_the_second_iteration(tmp_path: Path) -> None:
    backend = FakeBackend().enqueue("working on it").enqueue("finished\nDONE")
    summary, _ = run(tmp_path, backend)
    assert (summary.stopCause, summary.exitCode, summary.iterations) == ("done", 0, 2)
    assert "Do the task." in backend.history[1].prompt  # a fresh session gets the task again
    assert "working on it" in backend.history[1].prompt  # and the previous report


def test_each_iteration_line_names_the_runs_total_not_as_the_iterations_time(
    tmp_path: Path,
) -> None:
    """Issue 49: ``iteration 2/20 · claude · 3.7s`` was the run's time, read as the
    iteration's: the first line has none, later ones say ``total``."""
    backend = FakeBackend().enqueue("working on it", duration_s=62).enqueue("finished\nDONE")
    _, err = run(tmp_path, backend)
    lines = [line for line in err.splitlines() if line.startswith("[jlgcli] iteration ")]
    assert lines[0] == "[jlgcli] iteration 1/5 · fake"
    assert lines[1] == "[jlgcli] iteration 2/5 · fake · total 1m02s"


def test_a_stated_rate_limit_is_waited_out_without_burning_an_iteration(tmp_path: Path) -> None:
    clock = FakeClock()
    backend = FakeBackend(clock=clock)
    backend.enqueue(ok=False, rate_limited=True, error_kind="rate-limit",
                    rate_limit_reset=clock.t + 1 + 120)  # fmt: skip
    backend.enqueue("DONE")
    summary, err = run(tmp_path, backend)
    assert (summary.stopCause, summary.iterations) == ("done", 1)
    assert sum(clock.slept) == pytest.approx(120, abs=1)
    assert "rate-limited (resets in 2m00s, at 2027-01-15 08:02 UTC): waiting 2m00s" in err


def test_a_retry_is_never_sooner_than_the_floor(tmp_path: Path) -> None:
    """Issue 16 item 9: "retry in 1s" forever must not call once a second."""
    clock = FakeClock()
    backend = FakeBackend(clock=clock)
    for _ in range(20):
        backend.enqueue(ok=False, rate_limited=True, error_kind="rate-limit",
                        rate_limit_reset=clock.t + 1, duration_s=0.1)  # fmt: skip
    summary, _ = run(tmp_path, backend)
    assert summary.stopCause == "rate-limited" and summary.exitCode == 75
    assert len(backend.history) == 7  # the ceiling: six limited calls in a row, then stop
    assert min(clock.slept) >= 1.0 and sum(clock.slept) >= 5 * 6
    assert "still rate-limited after 6 calls" in (summary.error.message if summary.error else "")


def test_a_reset_after_the_deadline_stops_at_once_naming_it(tmp_path: Path) -> None:
    """Issue 16: gemini's "reset after 19h" under --timeout 1h exits 75 at once."""
    clock = FakeClock()
    backend = FakeBackend(clock=clock).enqueue(
        ok=False, rate_limited=True, error_kind="rate-limit", rate_limit_reset=clock.t + 19 * 3600
    )
    summary, _ = run(tmp_path, backend)
    assert (summary.stopCause, summary.exitCode, len(backend.history)) == ("rate-limited", 75, 1)
    assert summary.error is not None and "resets in 18h59m, at 2027-" in summary.error.message
    assert clock.slept == []


def test_failover_to_the_fallback_and_back_to_the_primary(tmp_path: Path) -> None:
    """Issue 16: claude at a weekly limit → codex finishes; once the reset passed, back."""
    clock = FakeClock()
    claude = FakeBackend("claude", clock=clock)
    codex = FakeBackend("codex", clock=clock)
    claude.enqueue(ok=False, rate_limited=True, error_kind="rate-limit",
                   rate_limit_reset=clock.t + 5 * 86400)  # fmt: skip
    codex.enqueue("step one done", duration_s=10).enqueue("finished\nDONE")
    summary, err = run(tmp_path, claude, codex, fallbacks=("codex",))
    assert (summary.stopCause, summary.exitCode) == ("done", 0)
    assert [m.backend for m in summary.iterationMetrics] == ["codex", "codex"]
    assert summary.iterationMetrics[0].switchReason is not None
    assert "switched to codex" in summary.iterationMetrics[0].switchReason
    assert "Do the task." in codex.history[0].prompt and codex.history[0].resume_session is None
    assert "switched to codex" in err

    # A 10-minute wait with a fallback left: switch, then come back once the reset passed.
    clock2 = FakeClock()
    claude2 = FakeBackend("claude", clock=clock2)
    codex2 = FakeBackend("codex", clock=clock2)
    claude2.enqueue(ok=False, rate_limited=True, error_kind="rate-limit",
                    rate_limit_reset=clock2.t + 600)  # fmt: skip
    claude2.enqueue("back on claude\nDONE")
    codex2.enqueue("codex step", duration_s=700)
    summary, _ = run(tmp_path, claude2, codex2, fallbacks=("codex",))
    assert [m.backend for m in summary.iterationMetrics] == ["codex", "claude"]
    assert summary.stopCause == "done"


def test_quota_exhausted_without_fallback_stops_clearly(tmp_path: Path) -> None:
    backend = FakeBackend().enqueue(ok=False, error_kind="quota", error="out of credits")
    summary, _ = run(tmp_path, backend)
    assert (summary.stopCause, summary.exitCode) == ("quota-exhausted", 1)
    assert summary.error is not None and "out of credits" in summary.error.message
    assert "--fallback" in (summary.error.hint or "")


def test_an_unusable_fallback_is_skipped_with_a_note(tmp_path: Path) -> None:
    backend = FakeBackend().enqueue(ok=False, error_kind="quota", error="credit")
    summary, _ = run(tmp_path, backend, fallbacks=("gemini",))
    assert summary.stopCause == "quota-exhausted"
    assert any("fallback gemini skipped" in note for note in summary.diagnosis)


def test_max_cost_stops_after_the_budget_is_spent(tmp_path: Path) -> None:
    """Issue 17: --max-cost 0.02 with $0.01 a call stops after 2 calls, exit 4."""
    backend = FakeBackend("claude")
    for _ in range(5):
        backend.enqueue("still working", cost_usd=0.01)
    summary, _ = run(tmp_path, backend, max_cost_usd=0.02)
    assert (summary.stopCause, summary.exitCode, len(backend.history)) == ("max-cost", 4, 2)
    assert summary.costUsd == pytest.approx(0.02)


def test_costs_leave_rounded_to_the_hundredth_of_a_cent(tmp_path: Path) -> None:
    """Issue 49: ``costUsd`` 1.2000000000000002 in ``--json``: a float sum, shown as such."""
    backend = FakeBackend("claude")
    for cost in (0.1, 0.2, 0.3, 0.6):  # 0.1 + 0.2 + 0.3 + 0.6 == 1.2000000000000002
        backend.enqueue("still working", cost_usd=cost)
    events = tmp_path / "events.jsonl"
    summary, _ = run(tmp_path, backend, max_iterations=4, events_path=str(events))
    assert summary.costUsd == 0.1 + 0.2 + 0.3 + 0.6 != 1.2  # budgets judge the real sum
    data = summary.to_json()
    assert data["costUsd"] == 1.2
    assert [item["costUsd"] for item in data["iterationMetrics"]] == [0.1, 0.2, 0.3, 0.6]
    ended = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    assert [e["costUsd"] for e in ended if e["type"] == "run-ended"] == [1.2]
    assert json.loads(json.dumps(RunSummary.from_json(data).to_json()))["costUsd"] == 1.2


def test_auth_and_backend_errors_stop_with_their_causes(tmp_path: Path) -> None:
    summary, _ = run(tmp_path, FakeBackend().enqueue(ok=False, error_kind="auth", error="log in"))
    assert (summary.stopCause, summary.exitCode) == ("backend-unauthenticated", 6)
    summary, _ = run(tmp_path, FakeBackend().enqueue(ok=False, error="boom", output_tail="x\ny"))
    assert (summary.stopCause, summary.exitCode) == ("backend-error", 1)
    assert "output tail: x ⏎ y" in summary.diagnosis


@pytest.mark.parametrize(
    ("stop", "remaining_ms", "cause"),
    [(StopReason.TIMEOUT, 500, "timeout"),
     (StopReason.TIMEOUT, 3_600_000, "iteration-timeout"),
     (StopReason.IDLE, 3_600_000, "idle-timeout"),
     (StopReason.CANCELLED, 3_600_000, "interrupted")],
)  # fmt: skip
def test_process_stops_map_to_causes(tmp_path: Path, stop: StopReason, remaining_ms: int,
                                     cause: str) -> None:  # fmt: skip
    duration = remaining_ms / 1000 if cause == "timeout" else 1.0
    backend = FakeBackend().enqueue(stop=stop, ok=False, duration_s=duration)
    summary, _ = run(tmp_path, backend, timeout_ms=remaining_ms)
    assert summary.stopCause == cause


def test_max_iterations_and_no_progress(tmp_path: Path) -> None:
    backend = FakeBackend()
    for k in range(3):
        backend.enqueue(f"working on part {k}")
    summary, _ = run(tmp_path, backend, max_iterations=3)
    assert (summary.stopCause, summary.exitCode, summary.iterations) == ("max-iterations", 4, 3)
    backend = FakeBackend()
    for _ in range(5):
        backend.enqueue("I am stuck on the same thing again.")
    summary, _ = run(tmp_path, backend, no_progress_limit=2)
    assert (summary.stopCause, summary.exitCode, summary.iterations) == ("no-progress", 5, 3)


def test_counters_that_move_are_progress(tmp_path: Path) -> None:
    """Issue 17 done-when: replies that differ only in counters reach their DONE."""
    backend = FakeBackend()
    for k in range(1, 5):
        backend.enqueue(f"Processed file {k} of 5. Next file now.")
    backend.enqueue("Processed file 5 of 5.\nDONE")
    summary, _ = run(tmp_path, backend, no_progress_limit=2, max_iterations=10)
    assert (summary.stopCause, summary.iterations) == ("done", 5)


def test_gates_reject_a_false_done_and_feed_the_next_prompt(tmp_path: Path) -> None:
    """Issue 17: a gate failing until a file exists; the next prompt carries its output."""
    import sys

    gate = f'{sys.executable} -c "import pathlib,sys; print(\'need ok.txt\'); ' \
           f'sys.exit(0 if pathlib.Path(\'ok.txt\').exists() else 3)"'  # fmt: skip
    backend = FakeBackend().enqueue("all done\nDONE").enqueue("now really\nDONE")
    original = backend.call

    def call_and_fix(request: Any) -> Any:
        if len(backend.history) == 1:
            (tmp_path / "ok.txt").write_text("ok")
        return original(request)

    backend.call = call_and_fix  # type: ignore[method-assign]
    summary, _ = run(tmp_path, backend, gates=(gate,))
    assert (summary.stopCause, summary.iterations) == ("done", 2)
    first, second = summary.iterationMetrics
    assert first.completion == "gates-failed" and first.gates[0].exitCode == 3
    assert second.gates[0].ok
    assert "need ok.txt" in backend.history[1].prompt and "(exited 3)" in backend.history[1].prompt


def test_every_loop_records_its_resume_state(tmp_path: Path) -> None:
    backend = FakeBackend().enqueue("part one", cost_usd=0.5, session_id="s-1").enqueue("part two")
    summary, _ = run(tmp_path, backend, max_iterations=2)
    state_file = tmp_path / ".jlgcli" / "runs" / summary.runId / "state.json"
    state = json.loads(state_file.read_text(encoding="utf-8"))
    assert (
        state["iterations"] == 2 and state["costUsd" if "costUsd" in state else "cost_usd"] == 0.5
    )
    assert state["task"] == "Do the task." and "part two" in state["last_report"]
    assert (tmp_path / ".jlgcli" / "runs" / ".gitignore").is_file()


def test_events_stream_from_start_to_end(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    backend = FakeBackend().enqueue("step").enqueue("DONE")
    summary, _ = run(tmp_path, backend, events_path=str(events))
    lines = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "run-started" and kinds[-1] == "run-ended"
    assert kinds.count("iteration-started") == 2 and kinds.count("iteration-ended") == 2
    assert lines[-1]["exitCode"] == summary.exitCode == 0
    assert all(line["schemaVersion"] == 1 and line["runId"] == summary.runId for line in lines)


def test_every_event_validates_against_the_committed_schema(tmp_path: Path) -> None:
    """Issue 17: docs/schemas/events.schema.json exists and every event validates."""
    import jsonschema

    schema_path = Path(__file__).parents[3] / "docs" / "schemas" / "events.schema.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    events = tmp_path / "events.jsonl"
    clock = FakeClock()
    claude = FakeBackend("claude", clock=clock)
    codex = FakeBackend("codex", clock=clock)
    claude.enqueue(ok=False, rate_limited=True, error_kind="rate-limit",
                   rate_limit_reset=clock.t + 30)  # fmt: skip
    claude.enqueue(ok=False, error_kind="quota", error="no credit")
    codex.enqueue("half", cost_usd=0.01, input_tokens=5, output_tokens=7).enqueue("DONE")
    run(tmp_path, claude, codex, fallbacks=("codex",), events_path=str(events),
        gates=("git --version",))  # fmt: skip
    lines = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    kinds = {line["type"] for line in lines}
    assert {"limit-wait", "backend-switch", "gate-result", "agent-activity"} <= kinds
    for line in lines:
        jsonschema.validate(line, schema)


def test_max_cost_with_a_backend_that_reports_no_cost_is_refused_up_front(tmp_path: Path) -> None:
    from jlgcli.errors import JlgError

    with pytest.raises(JlgError) as caught:
        run(tmp_path, FakeBackend("codex").enqueue("x"), max_cost_usd=1.0)
    assert caught.value.code == 64 and "codex reports none" in caught.value.message


def test_the_resume_state_costs_one_fsync_per_iteration_and_is_durable_at_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 18: state.json after each iteration skips the directory sync (one fsync, see
    test_atomic_write); the run's end syncs the directory, so the last state survives a crash."""
    from jlgcli.artifacts import atomic

    writes: list[str] = []
    real_write, real_sync_dir = atomic.atomic_write_bytes, atomic._fsync_dir

    def write(path: Any, data: bytes, *, sync_directory: bool = True, **kw: Any) -> None:
        writes.append(f"{Path(path).name} {'+dir' if sync_directory else 'data only'}")
        real_write(path, data, sync_directory=sync_directory, **kw)

    def sync_dir(path: Path, **kw: Any) -> None:
        writes.append(f"dir {path.name}")
        real_sync_dir(path, **kw)

    monkeypatch.setattr(atomic, "atomic_write_bytes", write)
    monkeypatch.setattr(atomic, "_fsync_dir", sync_dir)
    backend = FakeBackend().enqueue("one").enqueue("two").enqueue("three")
    summary, _ = run(tmp_path, backend, max_iterations=3)
    assert summary.iterations == 3
    state = [entry for entry in writes if "state.json" in entry or summary.runId in entry]
    assert state == ["state.json data only"] * 3 + [f"dir {summary.runId}"]
    saved = json.loads((tmp_path / ".jlgcli/runs" / summary.runId / "state.json").read_text())
    assert saved["iterations"] == 3 and [m["index"] for m in saved["metrics"]] == [1, 2, 3]


def test_a_run_that_stops_writes_its_last_state_durably(tmp_path: Path) -> None:
    backend = FakeBackend().enqueue("step").enqueue("finished\nDONE")
    summary, _ = run(tmp_path, backend)
    saved = json.loads((tmp_path / ".jlgcli/runs" / summary.runId / "state.json").read_text())
    assert (saved["iterations"], saved["stop_cause"]) == (2, "done")


@pytest.mark.parametrize("events", [False, True])
def test_live_agent_text_is_redacted_once_before_the_event_stream(
    tmp_path: Path, events: bool
) -> None:
    """Issue 18: without --events the live text goes nowhere. Issue 32: the text comes
    Redacted (call_backend redacts it where the parser makes it): not redacted again."""
    from jlgcli.artifacts.redact import Redacted
    from jlgcli.runner.engine import new_record
    from jlgcli.runner.recorder import Recorder

    path = tmp_path / "events.jsonl"
    fields = {"events_path": str(path)} if events else {}
    record = new_record(spec(tmp_path, **fields), FakeClock())
    recorder = Recorder(record, Console(1, out=io.StringIO(), err=io.StringIO()))
    recorder.open()
    recorder.activity(1, Redacted("export GITHUB_TOKEN=[REDACTED]\n"))
    recorder.events.close()
    assert recorder.redactor.count == 0  # no second pass
    if events:
        shown = [json.loads(line) for line in path.read_text().splitlines()]
        texts = [event["text"] for event in shown if event["type"] == "agent-activity"]
        assert texts == ["export GITHUB_TOKEN=[REDACTED]\n"]


def test_a_long_wait_with_an_unusable_fallback_is_waited_out(tmp_path: Path) -> None:
    """Issue 16: a 10-minute limit would switch, but the fallback cannot run: wait instead."""
    clock = FakeClock()
    backend = FakeBackend("claude", clock=clock)
    backend.enqueue(ok=False, rate_limited=True, error_kind="rate-limit",
                    rate_limit_reset=clock.t + 1 + 600)  # fmt: skip
    backend.enqueue("DONE")
    summary, _ = run(tmp_path, backend, fallbacks=("gemini",))  # gemini: not openable here
    assert (summary.stopCause, summary.iterations) == ("done", 1)
    assert sum(clock.slept) == pytest.approx(600, abs=1)
    assert any("fallback gemini skipped" in note for note in summary.diagnosis)


def test_after_a_failover_the_summary_lists_the_backends_called_in_order(tmp_path: Path) -> None:
    """Issue 31: ``backend`` is who ran the last iteration; ``backends`` every one called."""
    clock = FakeClock()
    claude, codex = FakeBackend("claude", clock=clock), FakeBackend("codex", clock=clock)
    claude.enqueue(ok=False, error_kind="quota", error="no credit")
    codex.enqueue("half").enqueue("DONE")
    summary, _ = run(tmp_path, claude, codex, fallbacks=("codex",))
    assert [m.backend for m in summary.iterationMetrics] == ["codex", "codex"]
    assert (summary.backend, summary.backendVersion) == ("codex", "1.0")
    assert [(b.id, b.version) for b in summary.backends] == [("claude", "1.0"), ("codex", "1.0")]
    again = summary.from_json(json.loads(json.dumps(summary.to_json())))
    assert again.backends == summary.backends


def test_overload_backs_off_then_finishes(tmp_path: Path) -> None:
    """Issue 34: claude "Repeated 529" / codex "at capacity" after the CLI's own retries wait."""
    clock = FakeClock()
    backend = FakeBackend(clock=clock)
    backend.enqueue(ok=False, error_kind="overloaded", error="API Error: Repeated 529 Overloaded")
    backend.enqueue(
        ok=False, error_kind="overloaded", error="API Error: Repeated 529 Overloaded", cost_usd=0.01
    )
    backend.enqueue("DONE")
    summary, err = run(tmp_path, backend)
    assert (summary.stopCause, summary.iterations) == ("done", 1)
    assert sum(clock.slept) == pytest.approx(45, abs=1)  # 15s then 30s, not an exit 1 at once
    assert "overloaded, retry in 15s" in err


def test_overload_that_stays_fails_over_or_stops_overloaded(tmp_path: Path) -> None:
    clock = FakeClock()
    claude = FakeBackend("claude", clock=clock)
    codex = FakeBackend("codex", clock=clock)
    for _ in range(5):
        claude.enqueue(ok=False, error_kind="overloaded", error="503 Service Unavailable")
    codex.enqueue("DONE")
    summary, _ = run(tmp_path, claude, codex, fallbacks=("codex",))
    assert summary.stopCause == "done" and len(claude.history) == 5
    assert [m.backend for m in summary.iterationMetrics] == ["codex"]
    assert "claude: overloaded" in (summary.iterationMetrics[0].switchReason or "")

    alone = FakeBackend(clock=FakeClock())
    for _ in range(5):
        alone.enqueue(ok=False, error_kind="overloaded", error="at capacity")
    summary, _ = run(tmp_path, alone)
    assert (summary.stopCause, summary.exitCode) == ("overloaded", 75)
    assert summary.error is not None and "at capacity" in summary.error.message


def test_overload_never_waits_past_the_deadline(tmp_path: Path) -> None:
    clock = FakeClock()
    backend = FakeBackend(clock=clock).enqueue(ok=False, error_kind="overloaded", error="503")
    summary, _ = run(tmp_path, backend, timeout_ms=10_000)
    assert summary.stopCause == "overloaded" and clock.slept == []


def test_each_call_is_capped_with_what_is_left_of_max_cost(tmp_path: Path) -> None:
    """Issue 34: the cap is passed per call; a call stopped at it ends max-cost (exit 4)."""
    backend = FakeBackend("claude").enqueue("step", cost_usd=0.75)
    backend.enqueue(ok=False, error_kind="budget", error="cap", cost_usd=0.3)
    summary, _ = run(tmp_path, backend, max_cost_usd=1.0)
    assert [r.max_budget_usd for r in backend.history] == [1.0, 0.25]
    assert (summary.stopCause, summary.exitCode) == ("max-cost", 4)
    assert summary.error is not None and "$1.0500 spent" in summary.error.message
    plain = FakeBackend().enqueue("DONE")
    run(tmp_path, plain)
    assert plain.history[0].max_budget_usd is None


def test_denied_tool_uses_are_not_done_and_repeats_stop_77(tmp_path: Path) -> None:
    """Issue 34: a done whose writes were denied goes on, told why; twice in a row is 77."""
    write = ({"tool": "Write", "target": "a.py"},)
    backend = FakeBackend().enqueue("wrote it\nDONE", denials=write)
    backend.enqueue("wrote it again\nDONE", denials=write)
    summary, err = run(tmp_path, backend, permissions="read-only")
    assert (summary.stopCause, summary.exitCode, summary.iterations) == ("permission-denied", 77, 2)
    assert summary.iterationMetrics[0].completion == "denied"
    assert summary.iterationMetrics[0].permissionDenials == list(write)
    assert "denied Write a.py; --permissions edit would allow them" in err
    assert "were denied by the permissions of this run" in backend.history[1].prompt

    once = FakeBackend().enqueue("tried\nDONE", denials=write).enqueue("done now\nDONE")
    summary, _ = run(tmp_path, once, permissions="read-only")
    assert (summary.stopCause, summary.iterations) == ("done", 2)
