"""A task file's front matter (issue 44): what jlgcli reads and the agent never sees.

A task file may begin with a block of YAML between two ``---`` lines::

    ---
    depends-on: [schema, api]
    ---
    Add the export button.

The block is jlgcli's when it holds ``depends-on`` (the ids, file stems, of
the tasks of the same batch this one starts after): it is taken off the text
wherever a task file is read, so the agent gets the same task in a batch and
in a single loop (where there is nothing to wait for). A block without
``depends-on`` is the user's own text (a page's title, tags…) and is sent as
written. The values are input: plain ids, at most ``MAX_DEPENDENCIES``.
"""

from __future__ import annotations

from jlgcli.errors import ExitCode, JlgError
from jlgcli.records import record

KEY = "depends-on"
MAX_DEPENDENCIES = 64
_OPEN = "---\n"


@record
class TaskText:
    """A task's text without jlgcli's front matter, and the ids it depends on."""

    body: str
    depends_on: tuple[str, ...] = ()


def split(text: str, origin: str) -> TaskText:
    """``text`` split into its body and its ``depends-on`` ids (64 for a malformed list)."""
    normal = text.replace("\r\n", "\n")
    if not normal.startswith(_OPEN):
        return TaskText(text)
    end = normal.find("\n---\n", len(_OPEN) - 1)
    if end < 0 and normal.endswith("\n---"):
        end = len(normal) - len("\n---")
    if end < 0:
        return TaskText(text)
    block = normal[len(_OPEN) : end + 1]
    if KEY not in block:  # cheap test first: most front matter is not ours
        return TaskText(text)
    import yaml  # type: ignore[import-untyped,unused-ignore]

    try:
        data = yaml.safe_load(block)
    except yaml.YAMLError:
        data = None
    if not isinstance(data, dict) or KEY not in data:
        return TaskText(text)
    body = normal[end + len("\n---\n") :]
    return TaskText(body, _ids(data[KEY], origin))


def _ids(value: object, origin: str) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if value is None:
        items = []
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise JlgError(
            ExitCode.USAGE,
            f"{origin}: {KEY} must be a list of task ids, not {value!r}",
            hint="example: depends-on: [schema, api]  (the ids are the task files' stems)",
        )
    if len(items) > MAX_DEPENDENCIES:
        raise JlgError(ExitCode.USAGE, f"{origin}: more than {MAX_DEPENDENCIES} dependencies")
    found: list[str] = []
    for item in items:
        clean = item.strip()
        if clean and clean not in found:
            found.append(clean)
    return tuple(found)
