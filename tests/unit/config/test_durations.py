"""Durations accepted by --timeout and *Ms keys (F-001, RG-012)."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jlgcli.durations import (
    DurationError,
    format_duration_ms,
    format_duration_setting,
    parse_duration_flag,
    parse_duration_ms,
)
from jlgcli.errors import ExitCode, JlgError


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("500ms", 500),
        ("30s", 30_000),
        ("2m", 120_000),
        ("1h30m", 5_400_000),
        ("1d", 86_400_000),
        ("1.5s", 1500),
        ("120000", 120_000),  # F-001: `config set timeoutMs 120000`
        (" 2M ", 120_000),
        ("0", 0),
        (120000, 120_000),
    ],
)
def test_parses_accepted_forms(text: str | int, ms: int) -> None:
    assert parse_duration_ms(text) == ms


@pytest.mark.parametrize(
    "text", ["", "abc", "5 minutes", "1x", "m", "-5s", "30", 30, True, "-1000", {}, [], 1.5]
)
def test_rejects_with_accepted_forms(text: str | int) -> None:  # {}: a 70 before issue 31
    with pytest.raises(DurationError) as info:
        parse_duration_ms(text)
    assert "ms" in str(info.value) or "duration" in str(info.value)


def test_bare_small_number_is_ambiguous() -> None:
    with pytest.raises(DurationError, match="30s or 30ms"):
        parse_duration_ms("30")


@given(st.integers(min_value=0, max_value=10**6), st.sampled_from(["ms", "s", "m", "h"]))
def test_unit_arithmetic(number: int, unit: str) -> None:
    factor = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}[unit]
    assert parse_duration_ms(f"{number}{unit}") == number * factor


@given(st.text(max_size=30))
def test_never_raises_anything_but_duration_error(text: str) -> None:
    with contextlib.suppress(DurationError):
        assert parse_duration_ms(text) >= 0


@pytest.mark.parametrize(
    ("ms", "text"),
    [(350, "350ms"), (4200, "4.2s"), (5000, "5s"), (125_000, "2m05s"), (5_400_000, "1h30m")],
)
def test_format(ms: int, text: str) -> None:
    assert format_duration_ms(ms) == text


@pytest.mark.parametrize(
    ("text", "words"),
    [("abc", "not a duration"), ("-1s", "negative"), ("-1", "negative"), ("0", "more than 0")],
)
def test_parse_duration_flag_names_the_flag(text: str, words: str) -> None:
    # issue 15 / issue 19 item 15: `--script-timeout abc|-1|0` is a usage error naming the flag
    with pytest.raises(JlgError) as info:
        parse_duration_flag("--script-timeout", text)
    assert info.value.code == ExitCode.USAGE
    assert info.value.message.startswith("invalid value for --script-timeout: ")
    assert words in info.value.message and "--script-timeout" in (info.value.hint or "")


def test_parse_duration_flag_accepts_and_may_allow_zero() -> None:
    assert parse_duration_flag("--script-timeout", "90s") == 90_000
    assert parse_duration_flag("--idle-timeout", "0", allow_zero=True) == 0


@pytest.mark.parametrize(
    ("ms", "text"),
    [(0, "0"), (1_800_000, "30m"), (5_400_000, "1h30m"), (1500, "1s500ms"), (604_800_000, "7d")],
)
def test_format_duration_setting(ms: int, text: str) -> None:
    assert format_duration_setting(ms) == text


@given(st.integers(min_value=0, max_value=30 * 86_400_000))
def test_format_duration_setting_parses_back(ms: int) -> None:
    assert parse_duration_ms(format_duration_setting(ms)) == ms
