"""A transcript read as a person reads it, for every backend's stream format (issue 51).

The streams follow research/backends.md §5: claude ``stream-json`` (§5.1), codex
``exec --json`` (§5.2), gemini ``-o stream-json`` (§5.3), copilot
``--output-format json`` (§5.4); a command backend's output is plain text.
"""

from __future__ import annotations

import json
from typing import Any

from jlgcli.artifacts.transcript_bound import CUT_TYPE
from jlgcli.backends.tool_results import tool_result_note
from jlgcli.runner.readable import readable_entries, readable_lines

CANARY = "ghp_" + "Cn7Xw2Lm9Pk4Rt6Vb8Nc3Hd5Jf1Gs0YaAbCd"


def _stream(backend: str, *events: dict[str, Any] | str, end: dict[str, Any] | None = None,
            number: int = 1) -> list[dict[str, Any]]:  # fmt: skip
    """One iteration's records, the events cut into uneven chunks as a pipe delivers them."""
    text = "".join((e if isinstance(e, str) else json.dumps(e)) + "\n" for e in events)
    chunks = [text[i : i + 37] for i in range(0, len(text), 37)]
    return [
        {"type": "iteration-start", "iteration": number, "backend": backend},
        *({"type": "stdout", "text": chunk} for chunk in chunks),
        end or {"type": "iteration-end", "iteration": number, "exitCode": 0},
    ]


def test_claude_text_tool_calls_and_their_results() -> None:
    records = _stream(
        "claude",
        {"type": "system", "subtype": "init", "session_id": "s1", "model": "m"},
        {"type": "assistant", "message": {"content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls -la"}},
        ]}},
        {"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "a.py\nb.py\nc.py"},
        ]}},
        {"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t2", "content": [{"type": "text",
             "text": "no such file"}], "is_error": True},
        ]}},
        {"type": "assistant", "message": {"content": [{"type": "text", "text": "Done.\nDONE"}]}},
        {"type": "result", "subtype": "success", "total_cost_usd": 0.5, "usage": {}},
        end={"type": "iteration-end", "iteration": 1, "exitCode": 0, "stopReason": "exited",
             "costUsd": 0.0123, "inputTokens": 824, "outputTokens": 14},
    )  # fmt: skip
    assert list(readable_lines(records)) == [
        "── iteration 1 · claude ────────────────",
        "Let me look.",
        "[tool] Bash ls -la",
        "  ↳ ok: a.py (+2 lines)",
        "  ↳ error: no such file",
        "Done.",
        "DONE",
        "· exit 0 · 824 in / 14 out tokens · $0.0123",
    ]


def test_codex_messages_commands_and_edits() -> None:
    records = _stream(
        "codex",
        {"type": "thread.started", "thread_id": "th"},
        {"type": "item.started", "item": {"type": "command_execution", "command": "pytest -q"}},
        {"type": "item.completed", "item": {"type": "command_execution", "command": "pytest -q",
         "exit_code": 1, "aggregated_output": "1 failed"}},
        {"type": "item.completed", "item": {"type": "file_change",
         "changes": [{"path": "src/a.py", "kind": "update"}], "status": "completed"}},
        {"type": "item.completed", "item": {"type": "agent_message", "text": "Fixed it.\nDONE"}},
        {"type": "turn.completed", "usage": {"input_tokens": 1200, "output_tokens": 34}},
    )  # fmt: skip
    assert list(readable_lines(records))[1:-1] == [
        "[run] pytest -q",
        "  ↳ error (exit 1): 1 failed",
        "[edit] src/a.py",
        "Fixed it.",
        "DONE",
    ]


def test_gemini_streamed_deltas_become_whole_lines() -> None:
    records = _stream(
        "gemini",
        {"type": "init", "session_id": "s", "model": "auto"},
        {"type": "message", "role": "assistant", "content": "I will ", "delta": True},
        {"type": "message", "role": "assistant", "content": "write it.", "delta": True},
        {"type": "tool_use", "tool_name": "write_file", "tool_id": "w1",
         "parameters": {"file_path": "notes.txt"}},
        {"type": "tool_result", "tool_id": "w1", "status": "success", "output": "ok"},
        {"type": "message", "role": "assistant", "content": "Done.\nDO", "delta": True},
        {"type": "message", "role": "assistant", "content": "NE", "delta": True},
        {"type": "result", "status": "success", "stats": {}},
    )  # fmt: skip
    assert list(readable_lines(records))[1:-1] == [
        "I will write it.",
        "[tool] write_file notes.txt",
        "  ↳ ok: ok",
        "Done.",
        "DONE",
    ]


def test_copilot_events() -> None:
    records = _stream(
        "copilot",
        {"type": "assistant.message_delta", "data": {"messageId": "m1", "deltaContent": "Hi "}},
        {"type": "assistant.message_delta", "data": {"messageId": "m1", "deltaContent": "there\n"}},
        {"type": "assistant.message", "data": {"messageId": "m1", "content": "Hi there\n"}},
        {"type": "tool.execution_start", "data": {"toolCallId": "c1", "toolName": "bash",
         "arguments": {"command": "make"}}},
        {"type": "tool.execution_complete", "data": {"toolCallId": "c1", "success": True,
         "result": {"content": "built"}}},
    )  # fmt: skip
    lines = list(readable_lines(records))
    assert lines[1] == "Hi there"
    assert "  ↳ ok: built" in lines and any(line.startswith("[tool] bash") for line in lines)


def test_a_command_backend_prints_its_text_without_control_sequences() -> None:
    records = _stream("mine", "\x1b]52;c;ZXZpbA==\x07plain \x1b[1mbold\x1b[0m\x1b[2J text\u0085",
                      "progress 10%\rprogress 100%", "DONE")  # fmt: skip
    lines = list(readable_lines(records))
    assert lines[1:-1] == ["plain bold text", "progress 100%", "DONE"]
    assert not any(c in "".join(lines) for c in "\x1b\x07\x85")


def test_the_iteration_filter_and_the_iteration_of_each_line() -> None:
    records = _stream("claude", {"type": "assistant", "message": {"content": [
        {"type": "text", "text": "one"}]}}) + _stream("claude", {"type": "assistant", "message": {
            "content": [{"type": "text", "text": "two"}]}}, number=2)  # fmt: skip
    assert [line for line in readable_lines(records, iteration=2)][1:2] == ["two"]
    assert "two" not in readable_lines(records, iteration=1)
    entries = list(readable_entries(records))
    assert (1, "one") in entries and (2, "two") in entries


def test_a_cut_transcript_starts_with_its_note_and_the_run_s_backend() -> None:
    records = [
        {"type": CUT_TYPE, "droppedBytes": 3 * 1024 * 1024, "limitBytes": 20 * 1024 * 1024},
        {"type": "stdout", "text": json.dumps({"type": "assistant", "message": {"content": [
            {"type": "text", "text": "late words"}]}}) + "\n"},
        {"type": CUT_TYPE, "droppedBytes": 4096, "whileFollowing": True},
        {"type": "stdout", "text": "no newline at the end"},
        {"type": "exit", "code": 0},
    ]  # fmt: skip
    assert list(readable_entries(records, backend="claude")) == [
        (None, "[… 3.0 MB of older output were dropped: the transcript keeps the newest part]"),
        (None, "late words"),
        (None, "[… 0.0 MB of output were cut before they could be shown]"),
        (None, "no newline at the end"),
    ]


def test_secrets_are_masked_once_more_and_an_unknown_header_is_shown() -> None:
    records = [
        {"type": "iteration-start", "iteration": "x"},
        {"type": "stdout", "text": f"token {CANARY}\n"},
        {"type": "iteration-end", "stopReason": "timeout"},
    ]
    lines = list(readable_lines(records, backend="nope"))
    assert lines[0] == "── iteration ? · nope ────────────────"
    assert CANARY[4:] not in "".join(lines) and "[REDACTED]" in lines[1]
    assert lines[-1] == "· timeout"
    assert list(readable_lines([{"type": "iteration-end"}])) == ["·"]


def test_tool_results_of_unknown_shapes_give_nothing() -> None:
    assert tool_result_note({"type": "user", "message": "x"}) is None
    assert tool_result_note({"type": "item.completed", "item": {"type": "agent_message"}}) is None
    assert tool_result_note({"type": "tool.execution_complete", "data": {"success": False}}) is None
    assert tool_result_note({"type": "tool_result", "status": "success"}) == "  ↳ ok"
    assert tool_result_note({"type": "tool_result", "status": "success",
                             "output": ["x", {"text": "y"}]}) == "  ↳ ok: x (+1 lines)"  # fmt: skip
