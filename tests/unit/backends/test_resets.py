"""Reset times of usage limits → epoch seconds (backends.md §7)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jlgcli.backends.resets import epoch_seconds, parse_reset_time

UTC = timezone.utc
# 2026-09-26 10:30:00 UTC, a Saturday
NOW = datetime(2026, 9, 26, 10, 30, tzinfo=UTC).timestamp()
LOCAL = timezone(timedelta(hours=-5))  # a fixed "local" zone for the codex wordings


def at(*args: int, tz: timezone = UTC) -> float:
    return datetime(*args, tzinfo=tz).timestamp()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("You've hit your limit · resets 1pm (UTC)", at(2026, 9, 26, 13, 0)),
        ("You’ve hit your session limit · resets 4:20am (UTC)", at(2026, 9, 27, 4, 20)),
        ("You've hit your weekly limit · resets Oct 3, 9am (UTC)", at(2026, 10, 3, 9, 0)),
        ("You've hit your weekly limit · resets Jan 2, 2027, 9:30am (UTC)", at(2027, 1, 2, 9, 30)),
        ("Your limit will reset at 9am (UTC).", at(2026, 9, 27, 9, 0)),
        # the CLI rounds to the minute: a time just past means "now"
        ("resets 10:25am (UTC)", at(2026, 9, 26, 10, 25)),
        ("or try again at 3:05 PM.", at(2026, 9, 26, 15, 5, tz=LOCAL)),
        ("or try again at Oct 3rd, 2026 9:05 AM.", at(2026, 10, 3, 9, 5, tz=LOCAL)),
        ("or try again in 5 days 22 hours 11 minutes.", NOW + 5 * 86400 + 22 * 3600 + 11 * 60),
        ("Try again in 2 hours.", NOW + 7200),
        ("Please try again in 45 seconds.", NOW + 45),
        ("You exceeded your current quota. Please retry in 37.5s.", NOW + 37.5),
        ("Your quota will reset after 19h14m47s.", NOW + 19 * 3600 + 14 * 60 + 47),
        ("rate limited, no time given", None),
        ("resets 5", None),
        ("resets 13pm (UTC)", None),
        ("resets Feb 30, 9am (UTC)", None),
    ],
)
def test_reset_wordings(text: str, expected: float | None) -> None:
    assert parse_reset_time(text, now=NOW, local_tz=LOCAL) == expected


def test_named_zone_is_honoured() -> None:
    pytest.importorskip("zoneinfo")
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        lisbon = ZoneInfo("Europe/Lisbon")
    except ZoneInfoNotFoundError:  # pragma: no cover - Windows without tzdata
        pytest.skip("no time zone database")
    expected = datetime(2026, 9, 26, 13, 0, tzinfo=lisbon).timestamp()
    assert parse_reset_time("resets 1pm (Europe/Lisbon)", now=NOW) == expected


def test_unknown_zone_falls_back_to_local() -> None:
    got = parse_reset_time("resets 1pm (Mars/Olympus)", now=NOW, local_tz=UTC)
    assert got == at(2026, 9, 26, 13, 0)


def test_date_without_year_in_the_past_means_next_year() -> None:
    assert parse_reset_time("resets Jan 2, 9am (UTC)", now=NOW) == at(2027, 1, 2, 9, 0)


def test_24_hour_clock() -> None:
    assert parse_reset_time("resets 14:30 (UTC)", now=NOW) == at(2026, 9, 26, 14, 30)


@given(st.integers(0, 30), st.integers(0, 23), st.integers(0, 59), st.integers(0, 59))
def test_durations_add_up(days: int, hours: int, minutes: int, seconds: int) -> None:
    text = f"try again in {days} days {hours} hours {minutes} minutes {seconds} seconds"
    total = days * 86400 + hours * 3600 + minutes * 60 + seconds
    assert parse_reset_time(text, now=NOW) == NOW + total


@given(st.text(max_size=300))
def test_never_raises(text: str) -> None:
    result = parse_reset_time(text, now=NOW, local_tz=UTC)
    assert result is None or isinstance(result, float)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1790000000, 1790000000.0),
        (1790000000123, 1790000000.123),
        (0, None),
        (True, None),
        ("1790000000", None),
        (-5, None),
    ],
)
def test_epoch_seconds(value: object, expected: float | None) -> None:
    assert (
        epoch_seconds(value) == pytest.approx(expected)
        if expected
        else epoch_seconds(value) is None
    )


# --- the 12-hour clock's edges (issue 45: "12am" read as noon went uncaught) -------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("resets Oct 3, 12am (UTC)", at(2026, 10, 3, 0, 0)),  # midnight starting Oct 3
        ("resets Oct 3, 12pm (UTC)", at(2026, 10, 3, 12, 0)),  # noon
        ("resets Oct 3, 12:30am (UTC)", at(2026, 10, 3, 0, 30)),
        ("resets Oct 3, 12:59pm (UTC)", at(2026, 10, 3, 12, 59)),
        ("resets Oct 3, 11:59pm (UTC)", at(2026, 10, 3, 23, 59)),
        ("resets Oct 3, 1am (UTC)", at(2026, 10, 3, 1, 0)),
        ("resets 12am (UTC)", at(2026, 9, 27, 0, 0)),  # the next midnight, not today's noon
        ("resets 12pm (UTC)", at(2026, 9, 26, 12, 0)),  # today's noon, not the next midnight
        ("or try again at 12:05 AM.", at(2026, 9, 27, 0, 5, tz=LOCAL)),
        ("or try again at 12:05 PM.", at(2026, 9, 26, 12, 5, tz=LOCAL)),
        ("resets 0am (UTC)", None),
        ("resets 0:30pm (UTC)", None),
    ],
)
def test_twelve_hour_clock_edges(text: str, expected: float | None) -> None:
    assert parse_reset_time(text, now=NOW, local_tz=LOCAL) == expected


@given(
    st.integers(1, 12),
    st.one_of(st.none(), st.integers(0, 59)),
    st.sampled_from(["am", "pm", "AM", "PM", "a.m.", "p.m."]),
)
def test_twelve_hour_clock_agrees_with_strptime(hour: int, minute: int | None, ampm: str) -> None:
    """Every hour of the 12-hour clock means what ``datetime.strptime('%I:%M%p')`` says."""
    clock = f"{hour}" if minute is None else f"{hour}:{minute:02d}"
    meant = datetime.strptime(f"{hour}:{minute or 0:02d}{ampm.replace('.', '')}", "%I:%M%p")
    got = parse_reset_time(f"resets Oct 3, 2026, {clock}{ampm} (UTC)", now=NOW)
    assert got == at(2026, 10, 3, meant.hour, meant.minute)
