"""Shared adapter helpers: buffers, versions, rate-limit and auth text (backends.md §7)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jlgcli.backends.common import (
    LineSplitter,
    TailBuffer,
    find_auth_error,
    find_rate_limit,
    format_version,
    parse_version,
    version_at_least,
)


@given(st.lists(st.text(max_size=50), max_size=30), st.integers(min_value=1, max_value=200))
def test_tail_buffer_keeps_exactly_the_last_characters(chunks: list[str], limit: int) -> None:
    tail = TailBuffer(limit)
    for chunk in chunks:
        tail.append(chunk)
    assert tail.text() == "".join(chunks)[-limit:] if "".join(chunks) else tail.text() == ""
    assert len(tail) == len(tail.text())


def test_tail_buffer_chunk_larger_than_limit() -> None:
    tail = TailBuffer(4)
    tail.append("ab")
    tail.append("0123456789")
    assert tail.text() == "6789"


@given(st.text(alphabet="ab\n\r{}", max_size=200), st.lists(st.integers(0, 200), max_size=10))
def test_line_splitter_is_independent_of_chunking(text: str, cuts: list[int]) -> None:
    """RG-005 parsers see the same lines however the pipe splits the bytes."""
    splitter = LineSplitter()
    lines: list[str] = []
    previous = 0
    for cut in sorted(set(cuts)):
        lines += splitter.feed(text[previous:cut])
        previous = max(previous, cut)
    lines += splitter.feed(text[previous:])
    rest = splitter.flush()
    expected = text.split("\n")
    assert lines == expected[:-1]
    assert rest == (expected[-1] or None)


def test_line_splitter_drops_an_endless_line() -> None:
    splitter = LineSplitter(max_line=10)
    assert splitter.feed("x" * 8) == []
    assert splitter.feed("y" * 8) == []
    assert splitter.overflows == 1
    assert splitter.feed("tail\nnext\n") == ["tail", "next"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2.1.197 (Claude Code)", (2, 1, 197)),
        ("codex-cli 0.169.0", (0, 169, 0)),
        ("GitHub Copilot CLI 1.0.102.\nRun 'copilot update' to check for updates.", (1, 0, 102)),
        ("0.61.0", (0, 61, 0)),
        ("aider v0.86", (0, 86, 0)),
        ("no version here", None),
    ],
)
def test_parse_version(text: str, expected: tuple[int, int, int] | None) -> None:
    assert parse_version(text) == expected


def test_version_helpers() -> None:
    assert format_version((2, 1, 197)) == "2.1.197"
    assert version_at_least((2, 1, 41), (2, 1, 41))
    assert not version_at_least((2, 1, 40), (2, 1, 41))


RATE_LIMITED = [
    "You've hit your limit · resets 1pm (Europe/Lisbon)",
    "You’ve hit your session limit · resets 4:20am (Europe/Warsaw)",
    "Claude usage limit reached. Your limit will reset at 9am (America/Chicago).",
    "API Error: Rate limit reached",
    "You’ve hit your usage limit. Upgrade to Plus to continue using Codex "
    "(https://chatgpt.com/explore/plus), or try again at 3:05 PM.",
    "■ You've hit your usage limit. Upgrade to Pro (…) or try again in 5 days 22 hours 11 minutes.",
    "Quota exceeded. Check your plan and billing details.",
    '[API Error: got status: 429 Too Many Requests. {"status": "RESOURCE_EXHAUSTED"}]',
    "You exceeded your current quota, please check your plan",
    "You're out of usage credits",
    "You've hit your monthly spend limit.",
]


@pytest.mark.parametrize("text", RATE_LIMITED)
def test_rate_limit_texts_are_recognised(text: str) -> None:
    assert find_rate_limit("some log line\n" + text + "\nmore") == text.strip()


@pytest.mark.parametrize(
    "text", ["all tests pass", "Not logged in · Please run /login", "error 4290 in line 12"]
)
def test_other_texts_are_not_rate_limits(text: str) -> None:
    assert find_rate_limit(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "Not logged in · Please run /login",
        "Error: No authentication information found.",
        "Please set an Auth method in your /h/.gemini/settings.json or specify …",
        "stream error: exceeded retry limit, last status: 401 Unauthorized",
        "Invalid API key · Please run /login",
    ],
)
def test_auth_texts_are_recognised(text: str) -> None:
    assert find_auth_error(text) is not None


def test_auth_regex_ignores_success() -> None:
    assert find_auth_error("Logged in using ChatGPT") is None
