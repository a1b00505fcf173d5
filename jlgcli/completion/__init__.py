"""Completion protocols: did the model say it is done? (F-004, RG-009, RG-010).

``decide(mode, text)`` is what the loop calls after each backend call;
``protocol_instructions(mode)`` is what it appends to the prompt so the model
knows how to signal completion. The parsers are pure, linear and never raise:
``marker.is_done`` / ``marker.near_miss``, ``json_status.parse`` and, for
other JSON reply formats (rebound), ``json_objects.iter_objects_from_end`` /
``json_objects.last_matching``.
"""

from __future__ import annotations

from jlgcli.records import record

TYPE_CHECKING = False

__all__ = [
    "MODES",
    "CompletionMode",
    "Decision",
    "DecisionStatus",
    "decide",
    "protocol_instructions",
]

if TYPE_CHECKING:  # types only: a run imports no typing (issue 49)
    from typing import Literal

    CompletionMode = Literal["marker", "json"]
    DecisionStatus = Literal[
        "done", "continue", "error", "invalid-json", "sandbox-violation", "interrupted", "question"
    ]
MODES: tuple[CompletionMode, ...] = ("marker", "json")


@record(slots=True)
class Decision:
    """What the loop does next, and why (the reason goes into the summary/diagnosis)."""

    status: DecisionStatus
    summary: str | None = None
    next: str | None = None
    protocol_violation: bool = False  # the model did not follow the protocol (F-004)
    reason: str = ""
    # rebound: the prompt of the next call (None: the loop's own continuation), the text to
    # show the user when the run ends, and why it failed.
    next_prompt: str | None = None
    final_text: str | None = None
    error: str | None = None
    question: str | None = None  # status "question": what the agent asks the user (issue 51)


def decide(mode: CompletionMode, text: str) -> Decision:
    """Read one reply under ``mode``.

    marker: ``done`` iff RG-009 holds, otherwise ``continue``; an empty reply
    or a near miss (``DONE.``, ``**done**``) is flagged as a protocol
    violation, and the loop goes on up to its guardrails (F-004).
    json: the reply's status (RG-010); no valid object gives ``invalid-json``
    (the loop stops with exit 65).
    """
    if mode == "marker":
        return _decide_marker(text)
    if mode == "json":
        return _decide_json(text)
    raise ValueError(f"unknown completion mode {mode!r} (expected one of {', '.join(MODES)})")


def _decide_marker(text: str) -> Decision:
    from jlgcli.completion import marker  # a one-shot run decides nothing (issue 49)

    if marker.is_done(text):
        return Decision("done", reason="the last line is DONE")
    asked = marker.question(text)
    if asked is not None:
        return Decision("question", question=asked, reason="the last line is a QUESTION:")
    if marker.last_line(text) is None:
        return Decision("continue", protocol_violation=True, reason="empty reply")
    miss = marker.near_miss(text)
    if miss is not None:
        reason = f"the last line {_quote(miss)} is not exactly DONE: not treated as done"
        return Decision("continue", protocol_violation=True, reason=reason)
    return Decision("continue", reason="no DONE line: work continues")


def _decide_json(text: str) -> Decision:
    from jlgcli.completion import json_status  # the JSON scanner: only json mode needs it

    result = json_status.parse(text)
    if result.status is None:
        reason = (
            "empty reply"
            if not text.strip()
            else 'no top-level JSON object with a valid "status" (continue, done or error)'
        )
        return Decision("invalid-json", protocol_violation=True, reason=reason)
    return Decision(
        result.status,
        summary=result.summary,
        next=result.next,
        question=result.question,
        reason=f'the reply\'s JSON says "status": "{result.status}"',
    )


def _quote(line: str, limit: int = 60) -> str:
    return repr(line if len(line) <= limit else line[: limit - 1] + "…")


# Neither text ends with something the parsers would accept: a prompt echoed
# back by a CLI must not read as a finished reply.
_MARKER_INSTRUCTIONS = """\
How to signal completion: when the whole task is complete, make the last line \
of your reply exactly DONE (upper case, alone on its line, no punctuation, no \
formatting, no code fence, nothing after it). If anything is left to do, do \
not write DONE; say what remains instead. If you cannot go on without an \
answer from the user, make your last line QUESTION: followed by the question; \
the work waits for the answer. For example, a finished reply ends:
All tests pass.
DONE
and an unfinished one ends with what remains to be done."""

_JSON_INSTRUCTIONS = """\
How to signal completion: end your reply with one JSON object on its own line, \
not inside any other JSON, for example:
{"status": "continue", "summary": "Parser written, tests not yet", "next": "Write the tests"}
"status" is "done" when the whole task is complete, "continue" when work \
remains, "error" when you cannot go on, "question" when you cannot go on \
without an answer from the user (put it in "question"; the work waits for the \
answer); "summary" (what you did) and "next" (what remains) are optional \
strings. Only the last such object counts."""


def protocol_instructions(mode: CompletionMode) -> str:
    """The text appended to the prompt telling the model how to signal completion in ``mode``."""
    if mode == "marker":
        return _MARKER_INSTRUCTIONS
    if mode == "json":
        return _JSON_INSTRUCTIONS
    raise ValueError(f"unknown completion mode {mode!r} (expected one of {', '.join(MODES)})")
