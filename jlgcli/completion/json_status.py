"""The ``json`` completion protocol (RG-010, seed 004, PRD §10 B).

The model ends its reply with ``{"status": "continue"|"done"|"error"|"question",
"summary"?: str, "next"?: str, "question"?: str}`` (status ``question``: the agent
cannot go on without the user; the run parks on it, issue 51). The answer is the
**last top-level** JSON object of the text that fits that schema: objects nested in a parent that
parses never count, objects that do not fit are skipped, extra fields are
ignored, ``null`` stands for an absent ``summary``/``next`` (the PRD's own
example writes ``"next": null``). No fitting object means ``invalid-json``,
which the loop maps to exit 65 (F-004).
"""

from __future__ import annotations

from typing import Any, Literal

from jlgcli.completion.json_objects import last_matching
from jlgcli.records import record

__all__ = [
    "REPAIR_PROMPT",
    "STATUSES",
    "STATUS_SCHEMA",
    "JsonCompletion",
    "JsonStatus",
    "from_object",
    "parse",
]

JsonStatus = Literal["continue", "done", "error", "question"]
STATUSES: tuple[JsonStatus, ...] = ("continue", "done", "error", "question")


@record(slots=True)
class JsonCompletion:
    """What a reply said; ``error="invalid-json"`` and ``status=None`` when nothing valid."""

    status: JsonStatus | None
    summary: str | None = None
    next: str | None = None
    error: Literal["invalid-json"] | None = None
    question: str | None = None  # status "question": what the agent asks the user


INVALID = JsonCompletion(status=None, error="invalid-json")
# The status object as a JSON Schema, for CLIs that can make their final message conform
# (claude --json-schema, codex exec --output-schema: backends.md §9). Every property is
# required and nothing else allowed, as OpenAI's structured outputs demand; null stands
# for an absent summary/next.
STATUS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "status": {"type": "string", "enum": list(STATUSES)},
        "summary": {"type": ["string", "null"]},
        "next": {"type": ["string", "null"]},
        "question": {"type": ["string", "null"]},
    },
    "required": ["status", "summary", "next", "question"],
    "additionalProperties": False,
}
# Asked once, in the same session, when a reply has no valid status object (issue 34).
REPAIR_PROMPT = (
    "[jlgcli] Your last reply did not end with the JSON status object. Reply with that object "
    'only, for the work as it stands: {"status": "continue" | "done" | "error" | "question", '
    '"summary": "...", "next": "..." or null, "question": "..." or null}'
)


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
    asked = obj.get("question")
    if asked is not None and not isinstance(asked, str):
        return None
    if status != "question":
        return JsonCompletion(status=status, summary=summary, next=next_step)
    # the question itself, else what the model put in summary/next: a question is never lost
    asked = next((t.strip() for t in (asked, summary, next_step) if t and t.strip()), None)
    return JsonCompletion(
        status=status,
        summary=summary,
        next=next_step,
        question=asked or "(the agent asked a question without its text)",
    )


def parse(text: str) -> JsonCompletion:
    """Parse a reply in ``json`` mode: pure, linear, never raises."""
    return last_matching(text, from_object, key="status") or INVALID
