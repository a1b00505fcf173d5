"""The human summary printed at the end of a run (F-005, RG-014)."""

from __future__ import annotations

from jlgcli.durations import format_duration_ms
from jlgcli.runner.summary import RunSummary

_CAUSE_TEXT = {
    "done": "the task is done",
    "error": "the model reported an error",
    "backend-error": "the backend failed",
    "backend-missing": "no usable backend",
    "backend-unauthenticated": "the backend is not logged in",
    "max-iterations": "maximum iterations reached",
    "no-progress": "no progress between iterations",
    "invalid-json": "no valid JSON status object in the reply",
    "timeout": "total timeout reached",
    "iteration-timeout": "one backend call took too long",
    "idle-timeout": "the backend printed nothing for too long",
    "rate-limited": "the backend is rate-limited",
    "artifacts-error": "artifacts could not be written",
    "sandbox-violation": "the model kept asking for scripts outside the sandbox",
    "interrupted": "interrupted",
}


def format_cost(summary: RunSummary) -> str:
    """Cost and tokens as known; ``unknown`` rather than a made-up 0.00."""
    cost = f"${summary.costUsd:.4f}" if summary.costUsd is not None else "unknown"
    if summary.inputTokens is not None or summary.outputTokens is not None:
        cost += f" (tokens in {summary.inputTokens or 0}, out {summary.outputTokens or 0})"
    return cost


def human_summary(summary: RunSummary) -> str:
    """A few aligned lines: status, stop cause, backend, iterations, duration, cost, paths."""
    cause = _CAUSE_TEXT.get(summary.stopCause, summary.stopCause)
    iterations = (
        f"{summary.iterations}/{summary.maxIterations}"
        if summary.command == "loop"
        else str(summary.iterations)
    )
    backend = summary.backend + (f" {summary.backendVersion}" if summary.backendVersion else "")
    lines = [
        "",
        f"── jlgcli {summary.command}: {summary.status.upper()} ({summary.stopCause}: {cause})",
        f"   backend     {backend}",
        f"   iterations  {iterations}",
        f"   duration    {format_duration_ms(summary.durationMs)}",
        f"   cost        {format_cost(summary)}",
        f"   exit code   {summary.exitCode}",
    ]
    if summary.summary:
        lines.append(f"   summary     {summary.summary}")
    if summary.runDir:
        lines.append(f"   artifacts   {summary.runDir}")
    for item in summary.diagnosis:
        lines.append(f"   note        {item}")
    if summary.error:
        lines.append(f"   error       {summary.error.message}")
        if summary.error.hint:
            lines.append(f"   hint        {summary.error.hint}")
    return "\n".join(lines) + "\n"
