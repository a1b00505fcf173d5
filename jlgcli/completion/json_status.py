"""The ``json`` completion protocol (RG-010, seed 004, PRD §10 B).

The model ends its reply with ``{"status": "continue"|"done"|"error",
"summary"?: str, "next"?: str}``. The answer is the **last top-level** JSON
object of the text that fits that schema: objects nested in a parent that
parses never count, objects that do not fit are skipped, extra fields are
ignored, ``null`` stands for an absent ``summary``/``next`` (the PRD's own
example writes ``"next": null``). No fitting object means ``invalid-json``,
which the loop maps to exit 65 (F-004).
"""

from __future__ import annotations

from typing import Any, Literal

from jlgcli.completion.json_objects import last_matching
from jlgcli.records import record

__all__ = ["STATUSES", "JsonCompletion", "JsonStatus", "from_object", "parse"]

JsonStatus = Literal["continue", "done", "error"]
STATUSES: tuple[JsonStatus, ...] = ("continue", "done", "error")


@record(slots=True)
class JsonCompletion:
    """What a reply said; ``error="invalid-json"`` and ``status=None`` when nothing valid."""

    status: JsonStatus | None
    summary: str | None = None
    next: str | None = None
    error: Literal["invalid-json"] | None = None


INVALID = JsonCompletion(status=None, error="invalid-json")


def from_object(obj: dict[str, Any]) -> JsonCompletion | None:
    """The completion an object states, or ``None`` when it does not fit the schema."""
    status = obj.get("status")
    summary = obj.get("summary")
    next_step = obj.get("next")
    if status not in STATUSES:  # also rejects non-strings: 123, null, [..]
        return None
    if summary is not None and not isinstance(summary, str):
        return None
    if next_step is not None and not isinstance(next_step, str):
        return None
    return JsonCompletion(status=status, summary=summary, next=next_step)


def parse(text: str) -> JsonCompletion:
    """Parse a reply in ``json`` mode: pure, linear, never raises."""
    return last_matching(text, from_object, key="status") or INVALID
