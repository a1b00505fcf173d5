"""Parsers never raise, whatever the CLI prints (DESIGN.md: parsers are total)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jlgcli.backends.base import BackendResult
from jlgcli.backends.claude import ClaudeParser
from jlgcli.backends.codex import CodexParser
from jlgcli.backends.copilot import CopilotParser
from jlgcli.backends.gemini import GeminiParser
from jlgcli.backends.stream import JsonStreamParser, clean_line, short
from jlgcli.process.model import StopReason

from .conftest import parse

PARSERS = [ClaudeParser, CodexParser, CopilotParser, GeminiParser]
TYPES = [
    "system",
    "assistant",
    "user",
    "result",
    "rate_limit_event",
    "thread.started",
    "item.started",
    "item.completed",
    "turn.completed",
    "turn.failed",
    "error",
    "assistant.message",
    "assistant.message_delta",
    "tool.execution_start",
    "session.error",
    "session.warning",
    "session.start",
    "init",
    "message",
    "tool_use",
    "tool_result",
]
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20)
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
keys = st.sampled_from(
    [
        "type",
        "subtype",
        "message",
        "content",
        "item",
        "data",
        "error",
        "result",
        "is_error",
        "usage",
        "role",
        "status",
        "text",
        "session_id",
        "rate_limit_info",
        "exitCode",
        "stats",
        "toolRequests",
    ]
)
events = st.builds(
    lambda t, extra: {"type": t, **extra},
    st.sampled_from(TYPES),
    st.dictionaries(keys, values, max_size=5),
)


@pytest.mark.parametrize("parser_class", PARSERS)
@settings(max_examples=30, deadline=None)
@given(stream=st.lists(events, max_size=8), code=st.sampled_from([0, 1, 41, None]))
def test_odd_events_never_raise(
    parser_class: type[JsonStreamParser], stream: list[dict[str, object]], code: int | None
) -> None:
    text = "".join(json.dumps(e) + "\n" for e in stream)
    result = parse(parser_class(), text, code=code).result
    assert isinstance(result, BackendResult)
    assert result.ok is False or result.error is None


@pytest.mark.parametrize("parser_class", PARSERS)
@settings(max_examples=25, deadline=None)
@given(stdout=st.text(max_size=300), stderr=st.text(max_size=100))
def test_any_text_never_raises(
    parser_class: type[JsonStreamParser], stdout: str, stderr: str
) -> None:
    assert isinstance(parse(parser_class(), stdout, stderr, code=1).result, BackendResult)


def test_a_classify_bug_becomes_a_protocol_error() -> None:
    class Broken(ClaudeParser):
        def classify(self, outcome):  # type: ignore[no-untyped-def]
            raise KeyError("oops")

    r = parse(Broken(), '{"type":"result"}\n').result
    assert not r.ok and r.error_kind == "protocol" and "KeyError" in (r.error or "")


def test_newline_free_flood_is_bounded() -> None:
    parser = CodexParser()
    parser._splitters["stdout"].max_line = 1000
    r = parse(parser, "x" * 5000, chunk=100).result
    assert r.error_kind == "protocol" and len(r.output_tail) <= 64 * 1024


def test_idle_timeout_while_rate_limited() -> None:
    stream = '{"type":"error","message":"You’ve hit your usage limit. try again in 2 hours."}\n'
    r = parse(CodexParser(), stream, code=None, reason=StopReason.IDLE).result
    assert r.error_kind == "rate-limit" and r.rate_limited and "rate limited" in (r.error or "")


@pytest.mark.parametrize("parser", [ClaudeParser, CodexParser, CopilotParser, GeminiParser])
def test_a_cli_that_could_not_start_is_a_backend_error_saying_why(parser: type) -> None:
    from jlgcli.process.model import ProcessOutcome

    outcome = ProcessOutcome.not_started("/bin/claude cannot start: No such file or directory")
    r = parser().finish(outcome)
    assert (r.ok, r.error_kind) == (False, "backend")
    assert r.error == "/bin/claude cannot start: No such file or directory"


def test_helpers() -> None:
    assert clean_line("\x1b[31mred\x1b[0m\r") == "red"
    assert clean_line('{"a": 1}') == '{"a": 1}'
    assert short("a\n b   c") == "a b c"
    assert short("x" * 10, 5) == "xxxx…"
