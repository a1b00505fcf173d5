"""The cost-over-time chart: an SVG of stacked bars, a day each, a colour a backend.

Drawn on the server from plain numbers (no chart library, nothing fetched) and
served as its own image (``/chart.svg``), so that the runs list never waits
for the chart to read every run; its colours are attributes (the page's
stylesheet does not reach an image, and no inline style is allowed):
a day's bar stacks its backends' costs; the legend names each backend with
its total. Every text is escaped; the numbers are the runs' recorded costs.
"""

from __future__ import annotations

from html import escape
from typing import Any

from jlgcli.moments import date, timedelta

WIDTH, HEIGHT, PAD = 720, 220, 40
COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#9c755f")
TICK, LEGEND = 'fill="#888" font-size="11"', 'fill="#888" font-size="12"'
MAX_DAYS = 60  # the last sixty days with a cost (older ones: the runs list)


def totals(
    points: list[dict[str, Any]],
) -> tuple[list[str], list[str], dict[tuple[str, str], float]]:
    """(days, backends, cost by (day, backend)): every day from the first to the last."""
    cost: dict[tuple[str, str], float] = {}
    for point in points:
        key = (str(point["day"]), str(point["backend"]))
        cost[key] = cost.get(key, 0.0) + float(point["cost"])
    if not cost:
        return [], [], {}
    seen = sorted({day for day, _ in cost})
    first, last = date.fromisoformat(seen[0]), date.fromisoformat(seen[-1])
    span = min((last - first).days, MAX_DAYS - 1)
    days = [(last - timedelta(days=n)).isoformat() for n in range(span, -1, -1)]
    backends = sorted({backend for _, backend in cost})
    return days, backends, cost


def svg(points: list[dict[str, Any]]) -> str:
    """The chart, or a sentence when no run recorded a cost."""
    days, backends, cost = totals(points)
    if not days:
        return (
            '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 360 30" role="img">'
            '<text x="0" y="20" fill="#888" font-size="13">No run recorded a cost yet.</text></svg>'
        )
    day_total = {day: sum(cost.get((day, b), 0.0) for b in backends) for day in days}
    top = max(day_total.values()) or 1.0
    inner_w, inner_h = WIDTH - 2 * PAD, HEIGHT - 2 * PAD
    step = inner_w / len(days)
    bar = min(max(step * 0.7, 1.0), 48.0)
    parts = [
        f'<svg role="img" viewBox="0 0 {WIDTH} {HEIGHT + 20 * len(backends)}" '
        f'xmlns="http://www.w3.org/2000/svg" aria-label="cost per day and backend">',
        f'<line x1="{PAD}" y1="{PAD + inner_h}" x2="{WIDTH - PAD}" y2="{PAD + inner_h}" '
        'stroke="#888"/>',
        f'<text x="{PAD - 4}" y="{PAD + 4}" text-anchor="end" {TICK}>${top:.2f}</text>',
        f'<text x="{PAD - 4}" y="{PAD + inner_h}" text-anchor="end" {TICK}>$0</text>',
    ]
    for i, day in enumerate(days):
        x = PAD + i * step + (step - bar) / 2
        y = float(PAD + inner_h)
        for j, backend in enumerate(backends):
            value = cost.get((day, backend), 0.0)
            if value <= 0:
                continue
            h = value / top * inner_h
            y -= h
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                f'fill="{COLOURS[j % len(COLOURS)]}"><title>{escape(day)} {escape(backend)} '
                f"${value:.4f}</title></rect>"
            )
        if i == 0 or i == len(days) - 1 or len(days) <= 10:
            parts.append(
                f'<text x="{x + bar / 2:.1f}" y="{PAD + inner_h + 14}" text-anchor="middle" '
                f"{TICK}>{escape(day[5:])}</text>"
            )
    for j, backend in enumerate(backends):
        spent = sum(cost.get((day, backend), 0.0) for day in days)
        y = HEIGHT + 20 * j
        parts.append(
            f'<rect x="{PAD}" y="{y - 10}" width="12" height="12" '
            f'fill="{COLOURS[j % len(COLOURS)]}"/>'
            f'<text x="{PAD + 18}" y="{y}" {LEGEND}>{escape(backend)} ${spent:.4f}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
