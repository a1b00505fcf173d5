"""``runs show``'s table of iterations, fitted to the terminal's width (issue 51)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jlgcli.artifacts.iteration_rows import IterationRow

HEADERS = ("#", "DURATION", "BACKEND", "TOKENS", "COST", "FILES (+/−)", "GATES")
# Left out first, one by one, when the table is wider than the terminal.
_DROP_ORDER = ("TOKENS", "BACKEND", "COST")
_MAX_GATES_SHOWN = 5


def iteration_table(rows: list[IterationRow], width: int) -> list[str]:
    """The table's lines (none without rows), every line at most ``width`` characters."""
    if not rows:
        return []
    headers = list(HEADERS)
    cells = [_cells(row) for row in rows]
    for name in _DROP_ORDER:
        if _width(headers, cells) <= width:
            break
        at = headers.index(name)
        headers.pop(at)
        for line in cells:
            line.pop(at)
    sizes = [max(len(cell) for cell in column) for column in zip(headers, *cells, strict=True)]
    lines = []
    for line in [headers, *cells]:
        text = "  ".join(cell.ljust(size) for cell, size in zip(line, sizes, strict=True))
        lines.append(text.rstrip()[:width])
    return lines


def _cells(row: IterationRow) -> list[str]:
    tokens = "-"
    if row.input_tokens is not None or row.output_tokens is not None:
        tokens = f"{_count(row.input_tokens)}/{_count(row.output_tokens)}"
    return [
        str(row.index),
        format_duration(row.duration_ms),
        _bounded(row.backend or "-", 12),
        tokens,
        "-" if row.cost_usd is None else f"${row.cost_usd:.4f}",
        _files(row),
        _gates(row.gates_passed, row.gates_failed),
    ]


def _files(row: IterationRow) -> str:
    if row.files is None:
        return "-"
    return f"{row.files} +{_count(row.insertions)} −{_count(row.deletions)}"


def _gates(passed: int, failed: int) -> str:
    """``✓✓✗`` for a few gates, ``7✓ 1✗`` for many, ``-`` for none."""
    if passed + failed == 0:
        return "-"
    if passed + failed <= _MAX_GATES_SHOWN:
        return "✓" * passed + "✗" * failed
    return f"{passed}✓ {failed}✗"


def _count(value: int | None) -> str:
    """``812``, ``12.4k``, ``3.1M``; ``?`` when unknown."""
    if value is None:
        return "?"
    if value < 10_000:
        return str(value)
    if value < 1_000_000:
        return f"{value / 1000:.1f}k"
    return f"{value / 1_000_000:.1f}M"


def _bounded(text: str, limit: int) -> str:
    flat = "".join(c if c.isprintable() else " " for c in text).strip()  # input: never a control
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _width(headers: list[str], cells: list[list[str]]) -> int:
    sizes = [max(len(cell) for cell in column) for column in zip(headers, *cells, strict=True)]
    return sum(sizes) + 2 * (len(sizes) - 1)


def format_duration(ms: int | None) -> str:
    """``850ms``, ``12.3s``, ``4m05s``, ``1h02m``; ``-`` when unknown."""
    if ms is None or ms < 0:
        return "-"
    if ms < 1000:
        return f"{ms}ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"
