"""A batch task's commit (issue 49 item, done with issue 44): who wrote it and what it says.

The author is the user who asked for the work (their git identity, when git has one),
jlgcli the committer: ``git log`` shows the user's work, and ``--committer=jlgcli`` finds
what a batch committed. The message is the task's title (the first line of its text,
front matter and Markdown heading marks left out), then what the agent said it did (its
JSON summary, else its last message), then trailers naming the batch and the run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

TITLE_MAX = 72
SUMMARY_MAX = 4000


def message(task_file: Path, name: str, batch_id: str, run_id: str | None,
            summary: dict[str, Any] | None) -> str:  # fmt: skip
    """The commit message of a done task."""
    said = _said(summary)
    parts = [title(task_file, name)]
    if said:
        parts.append(said)
    parts.append(f"Jlgcli-Task: {task_file.name}\nJlgcli-Batch: {batch_id}\nJlgcli-Run: {run_id}")
    return "\n\n".join(parts) + "\n"


def title(task_file: Path, fallback: str) -> str:
    """The first line of the task's text, bounded (the task's id when it has none)."""
    from jlgcli.errors import JlgError
    from jlgcli.front_matter import split

    try:
        text = split(task_file.read_text("utf-8-sig"), str(task_file)).body
    except (OSError, UnicodeError, JlgError):  # the title does without the task's text
        text = ""
    for line in text.splitlines():
        clean = _printable(line).lstrip("#").strip()
        if clean:
            return clean if len(clean) <= TITLE_MAX else clean[: TITLE_MAX - 1] + "…"
    return fallback


def _said(summary: dict[str, Any] | None) -> str:
    """What the agent said it did (already redacted by the task's loop), bounded."""
    if not summary:
        return ""
    said = summary.get("summary") or summary.get("text") or ""
    if not isinstance(said, str):
        return ""
    lines = [_printable(line).rstrip() for line in said.strip().splitlines()]
    text = "\n".join(lines).strip()
    return text if len(text) <= SUMMARY_MAX else text[: SUMMARY_MAX - 1] + "…"


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() or c == "\t" else " " for c in text)
