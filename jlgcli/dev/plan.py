"""Parse ``implementation-plan.md`` into tasks (FR-2.3, FR-4.1, NFR-1).

A task is an ATX heading (``#``..``######``) followed directly by its fields
(see ``docs/devloop.md``). A heading is a task when its fields include ``ID``,
or when its title starts with a task id and at least one field follows. The
task's block runs to the next heading of the same or a higher level, or to the
next task. One linear pass; fenced code is never read as headings or fields.
A malformed plan raises ``JlgError`` (exit 2) naming each line and what is
missing.
"""

from __future__ import annotations

from collections.abc import Mapping

from jlgcli.dev import plan_fields as pf
from jlgcli.errors import DevExitCode, JlgError
from jlgcli.records import field, record

FORMAT_HINT = "the task format is described in docs/devloop.md (jlgcli dev run --help)"


@record
class Task:
    """One task of the plan, with where its status text sits in the file."""

    id: str
    title: str
    line: int  # 1-based line of the heading
    status: str  # normalised: pending | in-progress | done | blocked | skipped
    status_line: int
    status_span: tuple[int, int]  # character offsets of the status word in the plan text
    dependencies: tuple[str, ...]
    references: tuple[str, ...]
    block: str  # the task's markdown, verbatim
    fields: Mapping[str, str] = field(default_factory=dict, compare=False)


@record
class Plan:
    """The tasks of a plan, in document order."""

    label: str
    tasks: tuple[Task, ...]

    def find(self, task_id: str) -> Task | None:
        """The task with this id (case-insensitive), or None."""
        wanted = task_id.strip().upper()
        return next((t for t in self.tasks if t.id.upper() == wanted), None)


@record(frozen=False)
class _Heading:
    index: int  # 0-based line index
    level: int
    title: str
    values: dict[str, list[str]] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)  # key -> 0-based line index
    status_at: tuple[int, int, str] | None = None  # absolute span + normalised status
    status_text: str = ""
    problems: list[tuple[int, str]] = field(default_factory=list)
    heading_id: str | None = None
    is_task: bool = False


def parse_plan(text: str, label: str = "implementation-plan.md") -> Plan:
    """Parse the plan text; raise ``JlgError`` (exit 2) listing every problem with its line."""
    lines, starts, headings = _read_headings(text)
    for head in headings:
        head.heading_id, _ = pf.heading_task_id(head.title)
        head.is_task = "id" in head.values or (head.heading_id is not None and bool(head.values))
    problems: list[tuple[int, str]] = []
    tasks = _build_tasks(headings, lines, starts, text, problems)
    if not tasks and not problems:
        problems.append((1, "no task found: a task is a heading followed by its fields (ID: ...)"))
    if problems:
        problems.sort()
        shown = [f"{label}:{line}: {msg}" for line, msg in problems[:20]]
        if len(problems) > 20:
            shown.append(f"... and {len(problems) - 20} more problems")
        raise JlgError(DevExitCode.CONFIGURATION, "invalid plan:\n" + "\n".join(shown), FORMAT_HINT)
    return Plan(label, tuple(tasks))


def _read_headings(text: str) -> tuple[list[str], list[int], list[_Heading]]:
    """The text's lines, each line's start offset, and its headings with their fields read."""
    # Lines end at "\n" only, as in editors (str.splitlines also splits at \x85, \u2028, ...).
    lines = text.split("\n")
    lines = [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    headings = _find_headings(lines)
    for pos, head in enumerate(headings):
        end = headings[pos + 1].index if pos + 1 < len(headings) else len(lines)
        _read_fields(head, lines, starts, end)
    return lines, starts, headings


def block_task_id(text: str) -> str | None:
    """The id of the first task in a task block (``context/current-task.md``), or None.

    Only the id is read: a block copied out of its plan is not a plan (its
    dependencies point to tasks that are not in it), so it is never validated as one.
    """
    for head in _read_headings(text)[2]:
        field_id = pf.id_field_value(head.values["id"][0]) if head.values.get("id") else None
        heading_id, _ = pf.heading_task_id(head.title)
        if field_id or (heading_id and head.values):
            return field_id or heading_id
    return None


def _find_headings(lines: list[str]) -> list[_Heading]:
    headings: list[_Heading] = []
    fence: str | None = None
    for index, line in enumerate(lines):
        fm = pf.FENCE_RE.match(line)
        if fm:
            marker = fm.group(1)
            if fence is None:
                fence = marker[0] * 3
            elif marker.startswith(fence):
                fence = None
            continue
        if fence is None:
            hm = pf.HEADING_RE.match(line.rstrip("\r\n"))
            if hm:
                headings.append(_Heading(index, len(hm.group(1)), hm.group(2)))
    return headings


def _read_fields(head: _Heading, lines: list[str], starts: list[int], end: int) -> None:
    """Collect the fields in the lines right under a heading (up to the next heading)."""
    base_indent: int | None = None
    current: str | None = None
    fence: str | None = None
    header: dict[int, str] | None = None  # column -> key, for a one-row horizontal table
    for index in range(head.index + 1, end):
        line = lines[index].rstrip("\r\n")
        fm = pf.FENCE_RE.match(line)
        if fm or fence is not None:
            if fm and fence is None:
                fence = fm.group(1)[0] * 3
            elif fm and fm.group(1).startswith(fence or "\0"):
                fence = None
            if current is not None:
                head.values[current].append(line)
            continue
        cells = pf.table_cells(line)
        if cells is not None:
            current = None
            header = _read_table_row(head, cells, index, starts, header)
            continue
        match = pf.match_field_line(line)
        if match is not None and (base_indent is None or match.indent <= base_indent):
            base_indent = match.indent if base_indent is None else base_indent
            current = match.key
            _record(head, match.key, match.value, index, starts[index] + match.start)
        elif current is not None:
            head.values[current].append(line)


def _read_table_row(
    head: _Heading,
    cells: list[tuple[str, int]],
    index: int,
    starts: list[int],
    header: dict[int, str] | None,
) -> dict[int, str] | None:
    if pf.is_separator_row(cells):
        return header
    if header is not None:
        for col, (text, start) in enumerate(cells):
            if col in header:
                value = text.strip()
                _record(head, header[col], value, index, starts[index] + start + text.find(value))
        return None
    keys = {col: pf.field_key(text) for col, (text, _) in enumerate(cells)}
    named = {col: key for col, key in keys.items() if key is not None}
    if len(named) >= 2:
        return named
    if len(cells) >= 2 and keys[0] is not None:
        text, start = cells[1]
        value = text.strip()
        _record(head, str(keys[0]), value, index, starts[index] + start + text.find(value))
    return None


def _record(head: _Heading, key: str, value: str, index: int, offset: int) -> None:
    if key in head.values:
        label = pf.FIELD_LABELS[key]
        first = head.lines[key] + 1
        head.problems.append((index + 1, f"field {label} repeated (first at line {first})"))
        return
    head.values[key] = [value]
    head.lines[key] = index
    if key == "status":
        head.status_text = value
        found = pf.find_status(value)
        if found is not None:
            status, start, end = found
            head.status_at = (offset + start, offset + end, status)


def _build_tasks(
    headings: list[_Heading],
    lines: list[str],
    starts: list[int],
    text: str,
    problems: list[tuple[int, str]],
) -> list[Task]:
    task_heads = [h for h in headings if h.is_task]
    ids: dict[str, _Heading] = {}
    for head in task_heads:
        field_id = pf.id_field_value(head.values["id"][0]) if "id" in head.values else None
        task_id = field_id or head.heading_id or ""
        if not task_id:
            problems.append((head.index + 1, "task has an empty ID field"))
        if field_id and head.heading_id and field_id.upper() != head.heading_id.upper():
            problems.append(
                (head.index + 1, f"heading says {head.heading_id} but the ID field says {field_id}")
            )
        if task_id.upper() in ids:
            first = ids[task_id.upper()].index + 1
            problems.append(
                (head.index + 1, f"task {task_id} defined twice (first at line {first})")
            )
        ids[task_id.upper()] = head
        head.heading_id = task_id
    tasks: list[Task] = []
    for pos, head in enumerate(headings):
        if not head.is_task:
            continue
        end = len(lines)
        for later in headings[pos + 1 :]:
            if later.level <= head.level or later.is_task:
                end = later.index
                break
        task = _make_task(head, ids, text[starts[head.index] : starts[end]], problems)
        if task is not None:
            tasks.append(task)
    return tasks


def _make_task(
    head: _Heading, ids: dict[str, _Heading], block: str, problems: list[tuple[int, str]]
) -> Task | None:
    task_id = head.heading_id or ""
    problems.extend(head.problems)
    missing = [pf.FIELD_LABELS[k] for k in pf.REQUIRED_FIELDS if k not in head.values]
    if missing:
        problems.append((head.index + 1, f"task {task_id} is missing: {', '.join(missing)}"))
    if "status" in head.values and head.status_at is None:
        allowed = ", ".join(pf.STATUSES)
        problems.append(
            (
                head.lines["status"] + 1,
                f"task {task_id}: status {head.status_text.strip()!r} is not one of {allowed}",
            )
        )
    values = {key: "\n".join(parts).strip() for key, parts in head.values.items()}
    deps: list[str] = []
    for token in pf.dependency_tokens(values.get("dependencies", "")):
        known = ids.get(token.upper())
        if known is not None and known is not head:
            deps.append(known.heading_id or token)
        elif known is head or pf.ID_RE.fullmatch(token):
            why = "depends on itself" if known is head else f"depends on unknown task {token}"
            problems.append((head.lines["dependencies"] + 1, f"task {task_id} {why}"))
    if missing or head.status_at is None:
        return None
    start, end, status = head.status_at
    _, title = pf.heading_task_id(head.title)
    return Task(
        id=task_id,
        title=title or head.title.strip(),
        line=head.index + 1,
        status=status,
        status_line=head.lines["status"] + 1,
        status_span=(start, end),
        dependencies=tuple(dict.fromkeys(deps)),
        references=tuple(pf.reference_paths(values.get("context_references", ""))),
        block=block,
        fields=values,
    )
