"""Read ``context/review.md``: findings classed BLOCKING / NON-BLOCKING / NITPICK (FR-4.2 step 5).

Two ways of classing a finding are understood, mixed freely:

* sections: a heading naming a class (``## BLOCKING``, ``### Non-blocking issues``,
  ``## Nitpicks``); each list item (or deeper sub-heading) under it is a finding;
* tags: a line or list item starting with ``[BLOCKING]``, ``**NITPICK**``,
  ``BLOCKING:`` or ``(non-blocking)``, or a table row with a class cell.

Items saying "None", "N/A" or "No issues" are not findings. A review with no
class at all is ``recognised=False``: the caller treats it as malformed.
"""

from __future__ import annotations

import re

from jlgcli.records import record

BLOCKING = "BLOCKING"
NON_BLOCKING = "NON-BLOCKING"
NITPICK = "NITPICK"
SEVERITIES: tuple[str, ...] = (BLOCKING, NON_BLOCKING, NITPICK)

_CLASS = r"non[-_ ]?blocking|blocking|nit[-_ ]?picks?|nits?"
_CLASS_WORD_RE = re.compile(rf"(?i)(?<![\w-])({_CLASS})(?![\w-])")
_TAG_RE = re.compile(
    rf"(?i)^(?:\[\s*({_CLASS})\s*\]|\(\s*({_CLASS})\s*\)|(?:\*\*|__)\s*({_CLASS})\s*:?\s*(?:\*\*|__)"
    rf"|({_CLASS})\s*(?::|\s[-—–]\s))\s*:?\s*"
)
_HEADING_RE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_ITEM_RE = re.compile(r"^([ \t]*)(?:[-*+]|\d+[.)])[ \t]+(.*)$")
_NONE_RE = re.compile(
    r"(?i)^[\W_]*(none|n/?a|nothing|no\s+(?:\w+\s+){0,2}(?:issues?|findings?|problems?|comments?))"
    r"\b[\W_]*(?:found|identified|\.)?[\W_]*$"
)


@record
class Finding:
    """One review finding."""

    severity: str
    text: str
    line: int  # 1-based


@record
class Review:
    """The parsed review: its findings, and whether any class was found at all."""

    findings: tuple[Finding, ...]
    recognised: bool

    def of(self, severity: str) -> list[Finding]:
        """The findings of one class."""
        return [f for f in self.findings if f.severity == severity]

    @property
    def blocking(self) -> list[Finding]:
        return self.of(BLOCKING)

    def summary(self) -> str:
        """``2 BLOCKING, 1 NON-BLOCKING, 0 NITPICK``."""
        return ", ".join(f"{len(self.of(s))} {s}" for s in SEVERITIES)


def severity_of(word: str) -> str:
    """The class named by a word: ``Non-blocking`` → NON-BLOCKING, ``nits`` → NITPICK."""
    lowered = re.sub(r"[-_ ]", "", word.lower())
    if lowered.startswith("nonblocking"):
        return NON_BLOCKING
    if lowered.startswith("blocking"):
        return BLOCKING
    return NITPICK


def _tag(text: str) -> tuple[str, str] | None:
    m = _TAG_RE.match(text)
    if m is None:
        return None
    word = next(g for g in m.groups() if g)
    return severity_of(word), text[m.end() :].strip()


def _is_none(text: str) -> bool:
    return bool(_NONE_RE.match(text.strip()))


def parse_review(text: str) -> Review:
    """Parse a review file's text (pure, linear, never raises)."""
    findings: list[Finding] = []
    recognised = False
    section: str | None = None
    section_level = 0
    base_indent: int | None = None
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip()
        heading = _HEADING_RE.match(line)
        if heading:
            level, title = len(heading.group(1)), heading.group(2)
            word = _CLASS_WORD_RE.search(title)
            if word:
                section, section_level, base_indent = severity_of(word.group(1)), level, None
                recognised = True
            elif section is not None and level > section_level:
                findings.append(Finding(section, title.strip(), number))
            else:
                section = None
            continue
        row = _table_finding(line, number)
        if row is not None:
            recognised = True
            findings.extend(row)
            continue
        item = _ITEM_RE.match(line)
        body = (item.group(2) if item else line).strip()
        tagged = _tag(body)
        if tagged is not None:
            recognised = True
            severity, rest = tagged
            if rest and not _is_none(rest):
                findings.append(Finding(severity, rest, number))
            continue
        if item is None or section is None:
            continue
        indent = len(item.group(1).expandtabs(4))
        if base_indent is None or indent <= base_indent:
            base_indent = indent
            if body and not _is_none(body):
                findings.append(Finding(section, body, number))
    return Review(tuple(findings), recognised)


def _table_finding(line: str, number: int) -> list[Finding] | None:
    stripped = line.strip()
    if not (stripped.startswith("|") and stripped.endswith("|") and len(stripped) > 1):
        return None
    cells = [c.strip().strip("*_`[]") for c in stripped[1:-1].split("|")]
    for pos, cell in enumerate(cells):
        if re.fullmatch(rf"(?i){_CLASS}", cell):
            rest = " | ".join(c for i, c in enumerate(cells) if i != pos and c)
            if rest and not _is_none(rest):
                return [Finding(severity_of(cell), rest, number)]
            return []
    return None
