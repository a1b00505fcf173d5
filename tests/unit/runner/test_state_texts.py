"""state.json's text made once per metrics entry (issue 50): the same text, less redaction.

Between iterations the whole state used to be serialized and redacted again, metrics
and all, so each save cost more than the one before.
"""

from __future__ import annotations

import json
from typing import Any

from jlgcli.artifacts.redact import Redactor
from jlgcli.runner.resume import ResumeState, StateTexts, state_text

KEY = "sk-ant-api03-" + "A1b2C3d4E5f6" * 4


def state(metrics: list[dict[str, Any]], **fields: Any) -> ResumeState:
    base: dict[str, Any] = {
        "run_id": "r1", "task": f"Do it. export ANTHROPIC_API_KEY={KEY}",
        "prompt_source": "task.md", "backend": "claude", "completion_mode": "marker",
        "options": {"maxIterations": 20}, "iterations": len(metrics), "elapsed_ms": 9,
        "last_report": f"used {KEY}", "metrics": metrics, "started_at": "2026-11-28T22:00:00Z",
    }  # fmt: skip
    base.update(fields)
    return ResumeState(**base)


def entry(index: int, text: str = "") -> dict[str, Any]:
    return {"index": index, "durationMs": 5 * index, "summary": text, "filesChanged": ["a.py"]}


class Counting:
    def __init__(self) -> None:
        self.redactor = Redactor()
        self.texts: list[str] = []

    def __call__(self, text: str) -> str:
        self.texts.append(text)
        return self.redactor.redact(text)


def test_each_state_reads_as_state_text_makes_it_and_each_entry_is_redacted_once() -> None:
    redact = Counting()
    texts = StateTexts(redact)
    metrics: list[dict[str, Any]] = []
    for index in range(1, 6):
        metrics.append(entry(index, f"step {index}: token={KEY}" if index % 2 else "ok"))
        one = state(list(metrics))
        made = texts.text(one)
        assert made == state_text(one, Redactor().redact)
        assert KEY not in made and json.loads(made)["metrics"][-1]["index"] == index
    entries = [text for text in redact.texts if text.startswith('{"index":')]
    assert len(entries) == 5  # one per entry, not one per entry per save


def test_entries_that_changed_are_made_again() -> None:
    texts = StateTexts(Redactor().redact)
    first = [entry(1), entry(2)]
    texts.text(state(first))
    other = [first[0], entry(2, f"key={KEY}")]  # a new dict in place of the second
    made = texts.text(state(other))
    assert made == state_text(state(other), Redactor().redact)
    assert texts.text(state([])) == state_text(state([]), Redactor().redact)


def test_without_a_redactor_the_text_is_the_plain_one() -> None:
    one = state([entry(1), entry(2)])
    assert StateTexts().text(one) == state_text(one)


def test_a_slot_the_redactor_touched_gives_the_whole_text_redacted_at_once() -> None:
    def hiding_the_slot(text: str) -> str:
        return text.replace("metrics-slot", "[REDACTED]")

    one = state([entry(1)])
    assert StateTexts(hiding_the_slot).text(one) == state_text(one, hiding_the_slot)
