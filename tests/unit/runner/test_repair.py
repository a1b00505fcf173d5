"""The one repair prompt of --completion json (issue 34 item 7), in-process."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from support.fake_backend import FakeBackend, FakeClock, caller, opener, selector

from jlgcli.completion.json_status import REPAIR_PROMPT
from jlgcli.prompts import Prompt
from jlgcli.runner.console import Console
from jlgcli.runner.engine import execute
from jlgcli.runner.repair import status_schema
from jlgcli.runner.spec import RunSpec

DONE = '{"status": "done", "summary": "finished", "next": null}'


def run(tmp_path: Path, backend: FakeBackend, **fields: Any) -> Any:
    backend.clock = backend.clock or FakeClock()
    spec = RunSpec(command="loop", prompt=Prompt("Do it.", "task.md"), backend="fake",
                   cwd=tmp_path, completion_mode="json", idle_timeout_ms=0, **fields)  # fmt: skip
    return execute(spec, Console(1, out=io.StringIO(), err=io.StringIO()), clock=backend.clock,
                   caller=caller, select=selector(backend), open_fallback=opener())  # fmt: skip


def test_asked_once_in_the_same_session_and_the_repair_decides(tmp_path: Path) -> None:
    backend = FakeBackend().enqueue("Finished.", session_id="s-1", cost_usd=0.1)
    backend.enqueue(DONE, session_id="s-1", cost_usd=0.01)
    summary = run(tmp_path, backend)
    assert (summary.stopCause, summary.iterations, summary.summary) == ("done", 1, "finished")
    assert backend.history[1].prompt == REPAIR_PROMPT
    assert backend.history[1].resume_session == "s-1"
    assert summary.iterationMetrics[0].costUsd == 0.11  # the repair's cost counts


def test_no_session_or_a_failed_repair_is_invalid_json(tmp_path: Path) -> None:
    no_session = FakeBackend().enqueue("Finished.")
    assert run(tmp_path, no_session).exitCode == 65 and len(no_session.history) == 1
    failed = FakeBackend().enqueue("Finished.", session_id="s").enqueue(ok=False, error="x")
    assert run(tmp_path, failed).exitCode == 65 and len(failed.history) == 2
    again = FakeBackend().enqueue("Finished.", session_id="s").enqueue("still no object")
    assert run(tmp_path, again).exitCode == 65 and len(again.history) == 2


def test_the_schema_only_in_json_mode() -> None:
    assert status_schema("marker") is None
    assert '"required":["status","summary","next","question"]' in (status_schema("json") or "")
