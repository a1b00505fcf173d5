"""The human summary printed at the end of a run (F-005, RG-014)."""

from __future__ import annotations

from jlgcli.durations import format_duration_ms
from jlgcli.runner.causes import cause
from jlgcli.runner.summary import RunSummary

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.colour import Palette


def format_cost(summary: RunSummary) -> str:
    """Cost and tokens as known; ``unknown`` rather than a made-up 0.00."""
    cost = f"${summary.costUsd:.4f}" if summary.costUsd is not None else "unknown"
    if summary.inputTokens is not None or summary.outputTokens is not None:
        cost += f" (tokens in {summary.inputTokens or 0}, out {summary.outputTokens or 0})"
    return cost


def _headline(summary: RunSummary, colour: Palette | None) -> str:
    text = cause(summary.stopCause).text
    done = summary.stopCause == "done"
    if summary.stopCause == "interrupted":
        text = f"interrupted by {summary.signal}" if summary.signal else "interrupted by Ctrl-C"
        status, detail = "INTERRUPTED", text
    else:
        status, detail = summary.status.upper(), f"{summary.stopCause}: {text}"
    if colour is not None:
        status = colour.stop_cause(status, done=done)
    return f"{status} ({detail})"


def _backends(summary: RunSummary) -> str:
    """``claude 2.1.197 → codex 0.46.0``: each backend used, in order, with its own version."""
    used = [(b.id, b.version) for b in summary.backends] or [
        (summary.backend, summary.backendVersion)
    ]
    return " → ".join(f"{name} {version}" if version else name for name, version in used)


def human_summary(summary: RunSummary, colour: Palette | None = None) -> str:
    """A few aligned lines: status, stop cause, backend, iterations, duration, cost, paths.

    ``colour``: the stream's palette (``jlgcli.colour``): the status in green when done,
    yellow otherwise, the error and hint labels coloured; None or a pipe: plain text.
    """
    iterations = (
        f"{summary.iterations}/{summary.maxIterations}"
        if summary.command == "loop"
        else str(summary.iterations)
    )
    lines = [
        "",
        f"── jlgcli {summary.command}: {_headline(summary, colour)}",
        f"   backend     {_backends(summary)}",
        *([f"   permissions {summary.permissions}"] if summary.permissions else []),
        f"   iterations  {iterations}",
        f"   duration    {format_duration_ms(summary.durationMs)}",
        f"   cost        {format_cost(summary)}",
        f"   exit code   {summary.exitCode}",
    ]
    if summary.resumedFrom:
        lines.append(f"   resumed     from run {summary.resumedFrom}")
    if summary.summary:
        lines.append(f"   summary     {_one_line(summary.summary)}")
    gates = [g for m in summary.iterationMetrics[-1:] for g in m.gates]
    for gate in gates:
        lines.append(f"   gate        {gate.command}: {'passed' if gate.ok else 'failed'}")
    if summary.runDir:
        lines.append(f"   artifacts   {summary.runDir}")
    for item in summary.diagnosis:
        lines.append(f"   note        {_one_line(item)}")
    if summary.question is not None:  # parked: what the agent asks, whole (issue 51)
        lines.append(f"   question    {_one_line(summary.question, 2000)}")
    if summary.error:
        label = colour.error("error") if colour is not None else "error"
        if summary.question is None:
            lines.append(f"   {label}       {_one_line(summary.error.message)}")
        if summary.error.hint:
            label = colour.hint("hint") if colour is not None else "hint"
            lines.append(f"   {label}        {_one_line(summary.error.hint)}")
    return "\n".join(lines) + "\n"


def _one_line(text: str, limit: int = 300) -> str:
    """Keep the summary's alignment: one line, bounded."""
    flat = " ⏎ ".join(part.strip() for part in text.strip().splitlines() if part.strip())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
