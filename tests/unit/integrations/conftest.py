"""A RunSummary factory for the door tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from jlgcli.runner.summary import RunSummary, exit_code_for, status_of
from tests.unit.integrations.tools import add_git_on_windows

MakeSummary = Callable[..., RunSummary]


@pytest.fixture(autouse=True)
def git_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook tests use real git: make Git for Windows reachable there too."""
    add_git_on_windows(monkeypatch)


@pytest.fixture
def make_summary() -> MakeSummary:
    """``make_summary(stopCause="error", text="…")`` → a valid RunSummary."""

    def make(**fields: Any) -> RunSummary:
        cause = fields.pop("stopCause", "done")
        base: dict[str, Any] = {
            "command": "loop",
            "status": status_of(cause),
            "stopCause": cause,
            "exitCode": exit_code_for(cause),
            "backend": "claude",
            "completionMode": "json",
            "iterations": 2,
            "maxIterations": 5,
            "durationMs": 4200,
            "startedAt": "2026-01-01T00:00:00.000Z",
            "endedAt": "2026-01-01T00:00:04.200Z",
            "runId": "20260101T000000-abcd",
        }
        base.update(fields)
        return RunSummary(**base)

    return make


@pytest.fixture
def core(monkeypatch, make_summary):
    """Replace ``jlgcli.api.execute``; ``core.cause`` sets the summary, ``core.calls`` records."""

    class Core:
        def __init__(self) -> None:
            self.cause = "done"
            self.calls: list[tuple[str, Any]] = []

        def __call__(self, command, options, **_kw):
            self.calls.append((command, options))
            return make_summary(stopCause=self.cause, command=command)

    recorder = Core()
    monkeypatch.setattr("jlgcli.api.execute", recorder)
    return recorder


@pytest.fixture
def fake_script(tmp_path, monkeypatch) -> Callable[..., Any]:
    """``fake_script({"text": …}, …)`` writes a fake-agent script and selects it."""
    import json

    def write(*turns: dict[str, Any], repeat_last: bool = True) -> Any:
        path = tmp_path / "fake-script.json"
        path.write_text(json.dumps({"turns": list(turns), "repeat_last": repeat_last}),
                        encoding="utf-8")  # fmt: skip
        monkeypatch.setenv("JLGCLI_FAKE_SCRIPT", str(path))
        return path

    return write
