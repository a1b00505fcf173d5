"""A question an agent CLI asks the user through its own tool (issue 51).

Headless, nobody answers such a tool: jlgcli reads the call as the agent's
question and parks the run on it, as it does for a ``QUESTION:`` line or a
``{"status": "question"}`` reply. One row per CLI:

- claude's ``AskUserQuestion`` tool_use: ``{"questions": [{"question", "header",
  "options": [{"label", "description"}], "multiSelect"}]}`` (Claude Agent SDK,
  "Handle approvals and user input": code.claude.com/docs/en/agent-sdk/user-input).
- copilot's ``ask_user`` tool (``tool.execution_start`` with ``toolName`` and
  ``arguments``): ``{"question", "choices"?, "allow_freeform"?}`` (the copilot SDK's
  user input request: question, choices, allowFreeform; github/copilot-cli#2929 says
  ``-p`` never shows it).
- codex's ``request_user_input{id, call_id, questions}`` event of ``exec --json``
  (backends.md §5.2, ``codex-rs/exec/src/exec_events.rs``): each question's
  ``question`` (and ``options`` labels, where given) is read.
"""

from __future__ import annotations

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any


# the tool name each CLI asks through
ASK_TOOLS = {"AskUserQuestion": "claude", "ask_user": "copilot", "request_user_input": "codex"}
_MAX_CHARS = 4000


def tool_question(name: object, arguments: object) -> str | None:
    """The question a tool call asks, as one text (options listed), or None when ``name``
    is not an asking tool. Never raises: a call shaped unlike any seen still asks."""
    if not isinstance(name, str) or name not in ASK_TOOLS:
        return None
    data: dict[str, Any] = arguments if isinstance(arguments, dict) else {}
    items = data.get("questions")
    asked = [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []
    if not asked:
        asked = [data]
    lines = [_one(item) for item in asked]
    text = "\n".join(line for line in lines if line).strip()
    if not text:
        text = f"(the agent called {name} without a question)"
    return text if len(text) <= _MAX_CHARS else text[: _MAX_CHARS - 1] + "…"


def _one(item: dict[str, Any]) -> str:
    question = item.get("question")
    if not isinstance(question, str) or not question.strip():
        return ""
    choices = item.get("options", item.get("choices"))
    labels = []
    for choice in choices if isinstance(choices, list) else []:
        label = choice.get("label") if isinstance(choice, dict) else choice
        if isinstance(label, str) and label.strip():
            labels.append(label.strip())
    return question.strip() + (f" (options: {'; '.join(labels)})" if labels else "")
