"""The fields of a task in ``implementation-plan.md`` and how a line names one.

Pure helpers over single lines, used by ``plan.py``. Field names are matched
tolerantly (FR-2.3, NFR-1): bold or plain, any case, extra spaces, in a
bullet, a numbered item, a plain line, or a table row.
"""

from __future__ import annotations

import re

from jlgcli.records import record

# Canonical key -> label shown in messages and docs, in the documented order.
FIELD_LABELS: dict[str, str] = {
    "id": "ID",
    "milestone": "Milestone",
    "status": "Status",
    "complexity": "Complexity",
    "dependencies": "Dependencies",
    "what_to_build": "What to build",
    "files_in_scope": "Files in scope",
    "constraints": "Constraints",
    "validation_criteria": "Validation criteria",
    "context_references": "Context references",
}
# FR-2.3 lists every field but Dependencies as mandatory; no Dependencies means none.
REQUIRED_FIELDS: tuple[str, ...] = tuple(k for k in FIELD_LABELS if k != "dependencies")

_ALIASES: dict[str, str] = {
    **{label.lower(): key for key, label in FIELD_LABELS.items()},
    "task id": "id",
    "depends on": "dependencies",
    "dependency": "dependencies",
    "deps": "dependencies",
    "context refs": "context_references",
    "references": "context_references",
}

STATUSES: tuple[str, ...] = ("pending", "in-progress", "done", "blocked", "skipped")
STATUS_RE = re.compile(r"(?i)(?<![\w-])(pending|in[-_ ]progress|done|blocked|skipped)(?![\w-])")

# A task id: letters/digits, at least one hyphen, and a digit after it (TASK-001, T-7, AUTH-3b).
ID_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*-[A-Za-z0-9_]*\d[A-Za-z0-9_]*")
_ID_FIELD_RE = re.compile(r"[A-Za-z0-9][\w.-]*")

HEADING_RE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_FIELD_LINE_RE = re.compile(
    r"^(?P<indent>[ \t]*)(?:(?:[-*+]|\d+[.)])[ \t]+)?"
    r"(?P<name>(?:\*\*|__)?[A-Za-z][A-Za-z \t]{0,40}?(?:\*\*|__)?)[ \t]*:"
    r"[ \t]*(?:(?:\*\*|__)(?![\w]))?[ \t]*(?P<value>.*?)[ \t\r]*$"
)
_DECORATION = "*_`[]"


def field_key(name: str) -> str | None:
    """The canonical key of a field name (``**What To  Build**`` → ``what_to_build``), or None."""
    cleaned = " ".join(name.strip().strip(_DECORATION).strip().split()).lower()
    return _ALIASES.get(cleaned)


@record
class FieldMatch:
    """A field found on one line: its key, value text and the value's column span in the line."""

    key: str
    value: str
    start: int  # column of the value in the line
    indent: int


def match_field_line(line: str) -> FieldMatch | None:
    """A ``Name: value`` line (bullet, numbered, bold or plain) naming a known field, else None."""
    m = _FIELD_LINE_RE.match(line)
    if m is None:
        return None
    key = field_key(m.group("name"))
    if key is None:
        return None
    indent = len(m.group("indent").expandtabs(4))
    return FieldMatch(key, m.group("value"), m.start("value"), indent)


def table_cells(line: str) -> list[tuple[str, int]] | None:
    """The cells of a ``| a | b |`` row with each cell's start column, or None if not a row."""
    stripped = line.rstrip("\r\n")
    if not stripped.lstrip().startswith("|"):
        return None
    cells: list[tuple[str, int]] = []
    start = stripped.index("|") + 1
    i = start
    while i < len(stripped):
        if stripped[i] == "\\":
            i += 2
            continue
        if stripped[i] == "|":
            cells.append((stripped[start:i], start))
            start = i + 1
        i += 1
    if stripped[start:].strip():
        cells.append((stripped[start:], start))
    return cells or None


def is_separator_row(cells: list[tuple[str, int]]) -> bool:
    """``|---|:--:|`` rows between a table's header and body."""
    return all(re.fullmatch(r"\s*:?-+:?\s*", text) for text, _ in cells)


def normalise_status(word: str) -> str:
    """``In Progress`` / ``in_progress`` → ``in-progress``; other statuses lower-cased."""
    return re.sub(r"[-_ ]", "-", word.lower())


def find_status(value: str) -> tuple[str, int, int] | None:
    """The status word in a field value: (normalised status, start, end) within ``value``."""
    m = STATUS_RE.search(value)
    if m is None:
        return None
    return normalise_status(m.group(1)), m.start(1), m.end(1)


def heading_task_id(title: str) -> tuple[str | None, str]:
    """Split a heading title into (task id, rest): ``TASK-001: Greeting`` → (TASK-001, Greeting).

    Accepts an optional ``Task`` prefix and markdown decoration around the id.
    """
    text = title.strip()
    m = re.match(r"(?i)^task(?:[ \t]*[:#][ \t]*|[ \t]+)", text)
    rest = text[m.end() :] if m else text
    rest = rest.lstrip(_DECORATION + " ")
    idm = ID_RE.match(rest)
    if idm is None:
        return None, title.strip()
    after = rest[idm.end() :].lstrip(_DECORATION).strip().lstrip(":-—–|)").strip()
    return idm.group(0), after


def id_field_value(value: str) -> str | None:
    """The task id written in an ``ID`` field (first token, decoration stripped)."""
    m = _ID_FIELD_RE.search(value.strip().strip(_DECORATION))
    return m.group(0).rstrip(".") if m else None


_NONE_WORDS = {"none", "n/a", "na", "-", "—", "–", "nothing", "no", ""}


def is_none_value(value: str) -> bool:
    """Does a field say "nothing" (``none``, ``N/A``, ``-``, empty)?"""
    return value.strip().strip(_DECORATION + ".").strip().lower() in _NONE_WORDS


def dependency_tokens(value: str) -> list[str]:
    """Every word of a Dependencies value that could name a task (the parser checks which do)."""
    if is_none_value(value):
        return []
    return _ID_FIELD_RE.findall(value)


_LINK_RE = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_CODE_RE = re.compile(r"`([^`\n]+)`")


def reference_paths(value: str) -> list[str]:
    """File paths named in a Context references value: links, `code` spans, or plain items."""
    if is_none_value(value):
        return []
    found = _LINK_RE.findall(value) + _CODE_RE.findall(value)
    if not found:
        for item in re.split(r"[,;\n]", value):
            word = item.strip().lstrip("-*+ ").strip().strip(_DECORATION).strip()
            if word and " " not in word and ("/" in word or "." in word):
                found.append(word)
    seen: dict[str, None] = {}
    for path in found:
        seen.setdefault(path.split("#", 1)[0].strip(), None)
    return [p for p in seen if p]
