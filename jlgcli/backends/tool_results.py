"""A tool's result in one short line, for ``jlgcli runs log`` (issue 51).

The live display shows what an agent calls (the adapters' ``[tool] …`` lines),
not what the call returned; a transcript read later also says how each call
went. One function per stream format, from research/backends.md:

* claude ``stream-json``: ``user`` events whose content holds
  ``{"type":"tool_result","content":…,"is_error":…}`` blocks;
* codex ``--json``: ``item.completed`` of a ``command_execution``
  (``exit_code``, ``aggregated_output``; exec_events.rs);
* gemini ``stream-json``: ``tool_result{status,output,error}`` (output/types.ts);
  its failures are shown already by the adapter (``[tool] failed: …``);
* copilot ``--output-format json``: ``tool.execution_complete{success,result}``.

Never raises: an event shaped unlike these gives None.
"""

from __future__ import annotations

from typing import Any

from jlgcli.backends.stream import short

_WIDTH = 100


def tool_result_note(event: dict[str, Any]) -> str | None:
    """``↳ ok: first line (+N lines)`` / ``↳ error: …`` for a tool-result event, else None."""
    kind = event.get("type")
    if kind == "user":
        return _claude(event)
    if kind == "item.completed":
        item = event.get("item")
        if isinstance(item, dict) and item.get("type") == "command_execution":
            code = item.get("exit_code")
            return _note(code == 0, _text(item.get("aggregated_output")), f"exit {code}")
        return None
    if kind == "tool_result" and event.get("status") == "success":
        return _note(True, _text(event.get("output")))
    if kind == "tool.execution_complete":
        data = event.get("data")
        if isinstance(data, dict) and data.get("success") is True:
            result = data.get("result")
            content = result.get("content") if isinstance(result, dict) else result
            return _note(True, _text(content))
    return None


def _claude(event: dict[str, Any]) -> str | None:
    message = event.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    notes = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            notes.append(_note(block.get("is_error") is not True, _text(block.get("content"))))
    return "\n".join(notes) if notes else None


def _text(value: Any) -> str:
    """A result's text: a string, or the text parts of a list of content blocks."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(
            str(part.get("text", "")) if isinstance(part, dict) else str(part) for part in value
        )
    return "" if value is None else str(value)


def _note(ok: bool, text: str, status: str = "") -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    word = "ok" if ok else "error"
    if status and not ok:
        word = f"error ({status})"
    if not lines:
        return f"  ↳ {word}"
    more = f" (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
    return f"  ↳ {word}: {short(lines[0], _WIDTH)}{more}"
