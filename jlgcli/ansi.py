"""Terminal escape sequences: remove them from text handed to parsers.

One linear regex pass (no backtracking traps): CSI, OSC (BEL or ST
terminated), two-byte ESC sequences and stray C0 controls other than
``\\n``/``\\t``; then carriage-return redraws are resolved per line (the text
after the last ``\\r`` of a line wins, as a terminal would show it).
"""

from __future__ import annotations

import re

_ESCAPES = re.compile(
    r"""
    \x1b\[[0-?]*[ -/]*[@-~]          # CSI ... final byte
  | \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?  # OSC ... BEL or ST
  | \x1b[PX^_][^\x1b]*(?:\x1b\\)?    # DCS / SOS / PM / APC ... ST
  | \x1b[@-Z\\-_]                    # two-byte sequences (ESC 7, ESC 8, ESC M ...)
  | \x1b[ -/][0-~]                   # ESC ( B and friends
  | \x9b[0-?]*[ -/]*[@-~]            # 8-bit CSI
  | [\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]  # other C0 controls (not \t \n \r ESC)
  """,
    re.VERBOSE,
)
_LONE_ESC = re.compile(r"\x1b")


def strip_escapes(text: str) -> str:
    """Remove terminal escape sequences and control characters (keeps ``\\r``)."""
    return _LONE_ESC.sub("", _ESCAPES.sub("", text))


def resolve_carriage_returns(text: str) -> str:
    """Turn ``\\r\\n`` into ``\\n`` and keep what follows the last ``\\r`` of each line."""
    if "\r" not in text:
        return text
    text = text.replace("\r\n", "\n")
    if "\r" not in text:
        return text
    return "\n".join(_last_drawn(line) for line in text.split("\n"))


def _last_drawn(line: str) -> str:
    # A trailing "\r" before the newline redraws nothing: keep the last non-empty segment.
    for segment in reversed(line.split("\r")):
        if segment:
            return segment
    return ""


def clean_terminal_text(text: str) -> str:
    """What a person would read: escapes removed, CR redraws resolved."""
    return resolve_carriage_returns(strip_escapes(text))
