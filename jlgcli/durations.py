"""Durations as users type them: ``500ms``, ``30s``, ``2m``, ``1h30m``, ``1d`` or milliseconds.

A bare integer is milliseconds (seed 000 F-001 ``timeoutMs 120000``). A bare
integer under 1000 is refused as ambiguous: ``--timeout 30`` almost always
means 30 seconds, and silently waiting 30 ms would be a surprise.
"""

from __future__ import annotations

import re

_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
# Patterns, compiled (and cached by ``re``) at the first duration parsed: a command that
# parses none, such as `config get`, does not pay for them at start-up.
_PART = r"(\d+(?:\.\d+)?)(ms|s|m|h|d)"
_WHOLE = r"(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+"
# Far past any limit (ten thousand years), and below 2**53 where floats stop counting whole
# milliseconds: a larger value is refused here, before arithmetic can overflow (issue 49).
LONGEST_MS = 10_000 * 365 * 86_400_000
MAX_FLAG_MS = 7 * 86_400_000  # a flag's own limit where no config key sets one (a week)


class DurationError(ValueError):
    """A duration that cannot be parsed; the message says what is accepted."""


class DurationOutOfRangeError(DurationError):
    """A duration longer than any limit; the caller names its own (a key's, a flag's)."""


EXAMPLES = "500ms, 30s, 2m, 1h30m or an integer of milliseconds (120000)"


def _digits(value: str) -> bool:
    """``[0-9]+``: ASCII digits only."""
    return value.isascii() and value.isdigit()


def _whole(value: str) -> bool:
    return re.fullmatch(_WHOLE, value, re.ASCII) is not None


def parse_duration_ms(text: str | int) -> int:
    """Milliseconds in ``text``; raises ``DurationError`` with the accepted forms."""
    if isinstance(text, bool):
        raise DurationError(f"expected a duration ({EXAMPLES})")
    if isinstance(text, int):
        return _check_bare(text)
    if not isinstance(text, str):  # e.g. {} or a list from a config file (issue 31: was a 70)
        raise DurationError(f"expected a duration ({EXAMPLES}), not {type(text).__name__}")
    value = text.strip().lower().replace(" ", "")
    if value.startswith("-") and (_digits(value[1:]) or _whole(value[1:])):
        raise DurationError(f"a duration cannot be negative ('{text}'); use {EXAMPLES}")
    if _digits(value):
        if len(value) > 30:
            raise DurationOutOfRangeError(f"{_clipped(text)} is out of range")
        return _check_bare(int(value))
    if not value or not _whole(value):
        raise DurationError(f"'{_clipped(text)}' is not a duration; use {EXAMPLES}")
    total = sum(
        float(number) * _UNIT_MS[unit] for number, unit in re.findall(_PART, value, re.ASCII)
    )
    if not total <= LONGEST_MS:  # also inf, from 400 digits
        raise DurationOutOfRangeError(f"{_clipped(text)} is out of range")
    return round(total)


def _clipped(text: object) -> str:
    from jlgcli.input_limits import clipped

    return clipped(text)


def _check_bare(ms: int) -> int:
    if ms > LONGEST_MS:
        raise DurationOutOfRangeError(f"{_clipped(ms)} is out of range")
    if 0 < ms < 1000:
        raise DurationError(
            f"'{ms}' is ambiguous: a bare number is milliseconds; write {ms}s or {ms}ms"
        )
    if ms < 0:
        raise DurationError(f"a duration cannot be negative ({ms})")
    return ms


def parse_duration_flag(
    flag: str, text: str | int, *, allow_zero: bool = False, maximum_ms: int = MAX_FLAG_MS
) -> int:
    """Milliseconds of a command-line duration; JlgError 64 naming ``flag`` when it is wrong.

    For flags such as ``--timeout`` or ``--script-timeout``: ``abc``, ``-1s``, more than
    ``maximum_ms`` and (unless ``allow_zero``) ``0`` are usage errors, with the accepted
    forms or the limit as hint.
    """
    from jlgcli.errors import ExitCode, JlgError

    try:
        ms = parse_duration_ms(text)
    except DurationOutOfRangeError:
        ms = maximum_ms + 1  # said below, with this flag's limit
    except DurationError as exc:
        raise JlgError(
            ExitCode.USAGE, f"invalid value for {flag}: {exc}", hint=f"example: {flag} 30s"
        ) from None
    if ms > maximum_ms:
        raise JlgError(
            ExitCode.USAGE,
            f"invalid value for {flag}: {_clipped(text)} is out of range; "
            f"at most {format_duration_setting(maximum_ms)}",
            hint=f"example: {flag} 30s",
        )
    if ms == 0 and not allow_zero:
        raise JlgError(
            ExitCode.USAGE,
            f"invalid value for {flag}: '{text}' would stop at once; it must be more than 0",
            hint=f"example: {flag} 30s",
        )
    return ms


def format_duration_setting(ms: int) -> str:
    """The exact value as people write it: ``30m``, ``1h30m``, ``1500ms``, ``0``.

    Unlike ``format_duration_ms`` nothing is rounded, so the text parses back
    to the same number of milliseconds.
    """
    if ms == 0:
        return "0"
    parts = []
    rest = ms
    for unit in ("d", "h", "m", "s"):
        count, rest = divmod(rest, _UNIT_MS[unit])
        if count:
            parts.append(f"{count}{unit}")
    if rest:
        parts.append(f"{rest}ms")
    return "".join(parts)


def format_duration_ms(ms: int | float) -> str:
    """A short human form: ``1h30m``, ``2m05s``, ``4.2s``, ``350ms``."""
    ms = int(ms)
    if ms < 1000:
        return f"{ms}ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f}s".replace(".0s", "s")
    seconds = ms // 1000
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s"
