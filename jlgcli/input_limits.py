"""Numbers and paths as users type them: out of range is a usage error naming the limit.

A number of 400 digits or a path of 5,000 characters is the user's mistake, not
jlgcli's bug: each is refused before it reaches arithmetic or the file system,
with the accepted range (exit 64, or 2 in the dev loop), never an OverflowError
or ``File name too long`` as an internal error. What is echoed back is clipped,
so the message stays one readable line. The file-system limits are in one
function per OS difference (``path_max``).
"""

from __future__ import annotations

import os
import re
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

NAME_MAX = 255  # bytes of one file name: ext4, APFS, NTFS (UTF-16 units) alike
SHOWN = 40  # characters of a rejected value echoed back
_SEPARATORS = re.compile(r"[\\/]")


def clipped(value: object, limit: int = SHOWN) -> str:
    """``value`` as text, cut to ``limit`` characters with the total length said."""
    text = str(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def path_max(platform: str = sys.platform) -> int:
    """Bytes of a whole path the system accepts: Linux 4096, macOS 1024, Windows 32767
    (long paths; a program without them stops at 260, which the error then names)."""
    if platform == "win32":
        return 32_767
    if platform == "darwin":
        return 1024
    return 4096


def path_problem(raw: str, platform: str = sys.platform) -> str | None:
    """Why ``raw`` cannot name a file on this system (too long, a NUL), or None."""
    if "\x00" in raw:
        return "it contains a NUL character"
    longest = max((len(os.fsencode(part)) for part in _SEPARATORS.split(raw)), default=0)
    if longest > NAME_MAX:
        return f"a name in it is {longest:,} bytes long; at most {NAME_MAX} are accepted"
    from pathlib import Path  # only once a path option is given: --help stays fast

    size = len(os.fsencode(Path(raw).absolute()))
    limit = path_max(platform)
    if size > limit:
        return f"it is {size:,} bytes long as a full path; at most {limit:,} are accepted"
    return None


def path_arg(raw: str) -> str:
    """An argparse ``type`` for a path option: ``raw``, or the error naming the limit."""
    problem = path_problem(raw)
    if problem is not None:
        import argparse

        raise argparse.ArgumentTypeError(f"unusable path {clipped(raw)!r}: {problem}")
    return raw


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number from ``low`` to ``high``, else the range."""

    def parse(text: str) -> int:
        import argparse

        digits = text.strip()
        try:
            value = int(digits) if len(digits) <= 30 else None  # 30 digits: far past any limit
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{clipped(text)!r} is not a whole number; accepted: {low} to {high:,}"
            ) from None
        if value is None and not digits.lstrip("+-").isdigit():
            raise argparse.ArgumentTypeError(
                f"{clipped(text)!r} is not a whole number; accepted: {low} to {high:,}"
            )
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{clipped(text)} is out of range; accepted: {low} to {high:,}"
            )
        return value

    return parse
