"""Edges of issue 34's readings: text verdicts, odd denial shapes, resume by version."""

from __future__ import annotations

from typing import Any

from jlgcli.backends.base import Availability
from jlgcli.backends.codex import CodexParser
from jlgcli.backends.copilot import _is_denial as copilot_denial
from jlgcli.backends.gemini import GeminiBackend, _target
from jlgcli.backends.limits import classify_error_text, structured_verdict
from jlgcli.runner.failover import BackendChain


def test_text_verdicts_for_permanent_states_and_overload() -> None:
    permanent = classify_error_text("API Error\nYour org is out of usage · add funds to continue")
    assert permanent is not None and permanent.kind == "quota"
    assert permanent.line.startswith("Your org is out of usage")
    overloaded = classify_error_text("stream error: exceeded retry limit, last status: 503")
    assert overloaded is not None and overloaded.kind == "overloaded"
    assert classify_error_text("something else broke") is None
    assert structured_verdict("overloaded", "Repeated 529 Overloaded errors").kind == "overloaded"


def test_odd_denial_shapes_are_tolerated() -> None:
    assert _target(None) == "" and _target({"other": 1}) == ""
    assert copilot_denial({"error": "Permission denied: write"})
    assert not copilot_denial({"error": None})
    parser = CodexParser()
    parser._denial({"type": "file_change", "status": "failed", "changes": "?"})
    parser._denial({"type": "command_execution", "status": "completed", "command": "ls"})
    assert parser.denials == [{"tool": "edit", "target": ""}]


def chain(backend: Any, version: str | None) -> BackendChain:
    availability = Availability(backend.id, "available", version=version)
    return BackendChain(backend, availability, (), lambda _name: "unused")


def test_resume_by_id_depends_on_the_version() -> None:
    gemini = GeminiBackend()
    assert chain(gemini, "0.61.0").resumes_sessions
    assert not chain(gemini, "0.60.1").resumes_sessions
    assert chain(gemini, None).resumes_sessions  # unknown version: assume it can
