"""When does a usage limit reset? Parse what the CLIs print into epoch seconds.

Shapes seen (backends.md §7 and third-party captures):

- claude: ``resets 1pm (Europe/Lisbon)``, ``resets 4:20am (Europe/Warsaw)``,
  ``resets Oct 3, 9am (America/Chicago)``, ``resets Jan 2, 2027, 9:30am (UTC)``,
  older ``Your limit will reset at 9am (America/Chicago).``
- codex: ``try again in 5 days 22 hours 11 minutes``, ``try again at 3:05 PM.``,
  ``try again at Oct 3rd, 2026 9:05 AM.`` (local time of the machine)
- gemini: ``Please retry in 37.5s``, ``reset after 19h14m47s``

A time without a date means its next occurrence; one that is at most 15
minutes in the past means "now" (the CLI rounds to the minute or the hour).
Unknown time zones fall back to local time (Windows without ``tzdata``).
"""

from __future__ import annotations

import re
import time

from jlgcli.moments import datetime, timedelta, timezone, tzinfo

_UNIT_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
_DURATION_PART = (
    r"\d+(?:\.\d+)?\s*(?:days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)(?![a-z])"
)
# Pattern sources, compiled by re's own cache on first use: only a call that failed reads
# them, and compiling them at import cost every run ~2 ms (issue 18).
_RELATIVE = (
    r"(?i)(?:try again|retry|resets?|available again)\s+(?:in|after)\s+"
    rf"(?P<dur>{_DURATION_PART}(?:(?:\s*,\s*|\s+and\s+|\s*){_DURATION_PART})*)"
)
_PART = r"(?i)(\d+(?:\.\d+)?)\s*([a-z]+)"
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_ABSOLUTE = (
    r"(?i)(?:resets?|try again|retry)(?:\s+at)?\s+"
    r"(?:(?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+"
    r"(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+(?:(?P<year>\d{4}),?\s+)?)?"
    r"(?P<hour>\d{1,2})(?::(?P<min>\d{2}))?\s*(?:(?P<ampm>[ap])\.?m\.?(?![a-z]))?"
    r"(?:\s*\((?P<tz>[^()\s]{1,64})\))?"
)
_PAST_TOLERANCE = 15 * 60


def parse_reset_time(
    text: str, *, now: float | None = None, local_tz: tzinfo | None = None
) -> float | None:
    """Epoch seconds of the reset announced in ``text``, or None when it states none."""
    now = time.time() if now is None else now
    relative = re.search(_RELATIVE, text)
    if relative is not None:
        return now + _duration_seconds(relative.group("dur"))
    for match in re.finditer(_ABSOLUTE, text):
        stamp = _absolute(match, now, local_tz)
        if stamp is not None:
            return stamp
    return None


def epoch_seconds(value: object) -> float | None:
    """A numeric reset stamp (seconds, or milliseconds when it is that large), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    if number <= 0:
        return None
    return number / 1000.0 if number > 1e11 else number


def _duration_seconds(text: str) -> float:
    total = 0.0
    for amount, unit in re.findall(_PART, text):
        total += float(amount) * _UNIT_SECONDS[unit[0].lower()]
    return total


def _absolute(match: re.Match[str], now: float, local_tz: tzinfo | None) -> float | None:
    hour, minute, ampm = int(match.group("hour")), int(match.group("min") or 0), match.group("ampm")
    if ampm is None and match.group("min") is None:
        return None  # a bare number ("resets 5") is not a time
    if ampm is not None:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm.lower() == "p" else 0)
    if hour > 23 or minute > 59:
        return None
    zone = _zone(match.group("tz"), local_tz)
    base = datetime.fromtimestamp(now, zone)
    if match.group("mon"):
        month = _MONTHS.index(match.group("mon")[:3].lower()) + 1
        year = int(match.group("year") or base.year)
        try:
            stamp = datetime(year, month, int(match.group("day")), hour, minute, tzinfo=zone)
        except ValueError:
            return None
        if match.group("year") is None and stamp.timestamp() < now - 86400:
            try:
                stamp = stamp.replace(year=year + 1)
            except ValueError:  # 29 February
                return None
        return stamp.timestamp()
    stamp = base.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if stamp.timestamp() < now - _PAST_TOLERANCE:
        stamp = stamp + timedelta(days=1)
    return stamp.timestamp()


def _zone(name: str | None, local_tz: tzinfo | None) -> tzinfo:
    fallback = local_tz or datetime.now().astimezone().tzinfo or timezone.utc
    if not name:
        return fallback
    if name.upper() in ("UTC", "GMT", "Z"):
        return timezone.utc
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo(name)
    except (ImportError, ValueError, KeyError, OSError):  # ZoneInfoNotFoundError is a KeyError
        return fallback
