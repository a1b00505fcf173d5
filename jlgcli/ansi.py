"""Terminal escape sequences: remove them from text handed to parsers.

One linear regex pass (no backtracking traps): CSI, OSC (BEL or ST
terminated), two-byte ESC sequences and stray C0 controls other than
``\\n``/``\\t``; then carriage-return redraws are resolved per line (the text
after the last ``\\r`` of a line wins, as a terminal would show it).
"""

from __future__ import annotations

import re

from jlgcli.lazy_re import lazy_text

_ESCAPES = lazy_text(
    r"""
    \x1b\[[0-?]*[ -/]*[@-~]                # CSI ... final byte
  | \x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?   # OSC ... BEL or ST (never past a newline)
  | \x1b[PX^_][^\x1b\n]*(?:\x1b\\)?       # DCS / SOS / PM / APC ... ST
  | \x1b[0-~]                             # two-byte sequences (ESC 7, ESC 8, ESC M, ESC = ...)
  | \x1b[ -/][0-~]                         # ESC ( B and friends
  | \x9b[0-?]*[ -/]*[@-~]                  # 8-bit CSI
  | \x1b                                   # a lone ESC
  """,
    re.VERBOSE,
)
# C0 controls other than \t \n \r (ESC is handled above), and DEL: removed by translate().
_CONTROLS = dict.fromkeys(
    [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F]
)


def strip_escapes(text: str) -> str:
    """Remove terminal escape sequences and control characters (keeps ``\\r``)."""
    if "\x1b" in text or "\x9b" in text:  # most agent output has none: skip the regex
        text = _ESCAPES.sub("", text)
    return text.translate(_CONTROLS)


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


# For text shown on a terminal (issue 15): SGR colours (group 1) survive, every other
# control sequence goes — OSC (clipboard writes, titles, hyperlinks), CSI cursor moves and
# screen clears, DCS/SOS/PM/APC strings, two-byte ESC sequences, a lone ESC, C0 controls
# but tab/newline/carriage return (BEL, backspace…), DEL and the C1 controls (U+0080-U+009F).
_TERMINAL_UNSAFE = lazy_text(
    r"""
    (\x1b\[[0-9;:]{0,64}m)                 # SGR colour: kept
  | \x1b\[[0-?]*[ -/]*[@-~]?               # any other CSI (or a cut one)
  | \x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?   # OSC ... BEL or ST
  | \x1b[PX^_][^\x1b\n]*(?:\x1b\\)?        # DCS / SOS / PM / APC ... ST
  | \x1b[ -/]*[0-~]?                       # two-byte sequences, ESC ( B, a lone ESC
  | [\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f]+
  """,
    re.VERBOSE,
)
_UNSAFE_PRESENT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def terminal_safe(text: str) -> str:
    """``text`` with every control sequence removed except SGR colours (safe to print)."""
    if _UNSAFE_PRESENT.search(text) is None:
        return text
    return _TERMINAL_UNSAFE.sub(r"\1", text)
