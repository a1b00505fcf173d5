"""The ``marker`` completion protocol (RG-009, PRD §10 A).

Done **iff** the last non-empty line, after removing terminal escapes
(``jlgcli.ansi.clean_terminal_text``) and trailing whitespace/CR, is exactly
``DONE``: ``DONE.``, ``**DONE**``, ``done``, `` `DONE` ``, an indented
``  DONE``, or ``DONE`` followed by a closing code fence are not. Those near
misses are reported (``near_miss``) so the loop can diagnose a model that does
not follow the protocol (F-004) instead of looping silently.

Lines are cleaned one at a time, so an escape sequence left open on one line
never hides the lines after it. Only the tail of the text is read: blocks of
lines are taken from the end, doubling in size, until a non-blank line is
found, so the cost is linear in the blank tail and independent of the rest.
"""

from __future__ import annotations

from jlgcli.ansi import clean_terminal_text
from jlgcli.lazy_re import lazy_text

__all__ = ["MARKER", "QUESTION", "is_done", "last_line", "last_lines", "near_miss", "question"]

MARKER = "DONE"
QUESTION = "QUESTION:"  # a reply ending ``QUESTION: …`` parks the run on it (issue 51)

_FIRST_BLOCK = 4096
# Sequences that may run past a newline (OSC, DCS, SOS, PM, APC): clean line by line.
_MULTILINE_ESCAPE = lazy_text(r"\x1b[\]PX^_]")
# Decoration a model puts around the word: emphasis, code, quotes, brackets, punctuation.
_DECORATION = lazy_text(r"[\s*_`'\"~#>()\[\]{}<>.,;:!?-]+")


def last_lines(text: str, count: int = 1) -> list[str]:
    """The last ``count`` non-empty lines as a person reads them, right-stripped, last first."""
    found: list[str] = []
    end = len(text)
    size = _FIRST_BLOCK
    while end > 0 and len(found) < count:
        # Blocks start at a line start, so a block never splits a line.
        start = 0 if end <= size else text.rfind("\n", 0, end - size) + 1
        found += _nonblank_from_end(text[start:end], count - len(found))
        end = start
        size *= 2
    return found


def _nonblank_from_end(block: str, limit: int) -> list[str]:
    if _MULTILINE_ESCAPE.search(block) is None:
        # No escape can span a newline here: cleaning the block = cleaning each line.
        lines = clean_terminal_text(block).rstrip().split("\n")
        clean = True
    else:
        lines = block.split("\n")
        clean = False
    found: list[str] = []
    for line in reversed(lines):
        line = (line if clean else clean_terminal_text(line)).rstrip()
        if line:
            found.append(line)
            if len(found) == limit:
                break
    return found


def last_line(text: str) -> str | None:
    """The last non-empty line as a person would read it, right-stripped; ``None`` if blank."""
    lines = last_lines(text)
    return lines[0] if lines else None


def is_done(text: str) -> bool:
    """RG-009: the last non-empty line is exactly ``DONE``."""
    return last_line(text) == MARKER


def question(text: str) -> str | None:
    """The question of a reply whose last line is ``QUESTION: …`` (its text), else ``None``.

    Only the last line counts, as for DONE: a question quoted earlier in the reply (or a
    prompt echoed back) is not one. ``QUESTION:`` with nothing after it is not a question.
    """
    line = last_line(text)
    if line is None or not line.startswith(QUESTION):
        return None
    asked = line[len(QUESTION) :].strip()
    return asked or None


def near_miss(text: str) -> str | None:
    """The last line when it looks like a mistyped marker (``DONE.``, ``**done**``), else ``None``.

    Also catches ``DONE`` as the last word of the line (``All good. DONE``) and
    ``DONE`` alone just before a closing code fence: the model meant to finish
    but broke RG-009.
    """
    lines = last_lines(text, 2)
    if not lines or lines[0] == MARKER:
        return None
    words = _DECORATION.sub(" ", lines[0]).split()
    # "done" alone in any case, or an upper-case DONE ending the line ("not done" is prose).
    if words and (words[-1] == MARKER or (len(words) == 1 and words[0].upper() == MARKER)):
        return lines[0]
    fenced = lines[0].lstrip().startswith("```") and len(lines) == 2
    if fenced and _DECORATION.sub("", lines[1]).upper() == MARKER:
        return lines[0]
    return None
