"""The prompt of each iteration (F-004 step 1): initial prompt, protocol, previous report."""

from __future__ import annotations

from jlgcli.ansi import clean_terminal_text

TAIL_CHARS = 2000


def first_prompt(task: str, instructions: str) -> str:
    """Iteration 1: the task followed by how to signal completion."""
    if not instructions:
        return task
    return f"{task.rstrip()}\n\n---\n{instructions.strip()}\n"


def previous_report(text: str, summary: str | None, next_step: str | None) -> str:
    """What the previous iteration said: its summary/next, or a bounded tail of its message."""
    parts = []
    if summary:
        parts.append(f"Summary: {summary}")
    if next_step:
        parts.append(f"Next: {next_step}")
    if parts:
        return "\n".join(parts)
    tail = clean_terminal_text(text).strip()
    if len(tail) > TAIL_CHARS:
        tail = "…" + tail[-TAIL_CHARS:]
    return tail or "(the previous iteration printed no message)"


def next_prompt(
    task: str,
    instructions: str,
    *,
    iteration: int,
    max_iterations: int,
    report: str,
    continue_session: bool,
) -> str:
    """Iteration ≥ 2. With ``continue_session`` the backend keeps its own context."""
    header = (
        f"[jlgcli] Iteration {iteration} of {max_iterations}. The task is not finished yet: "
        "continue from where the previous iteration stopped."
    )
    body = f"{header}\n\nPrevious iteration's report:\n{report}\n"
    if continue_session:
        return f"{body}\n---\n{instructions.strip()}\n" if instructions else body
    return f"{task.rstrip()}\n\n---\n{body}\n---\n{instructions.strip()}\n"
