"""Denied tool uses (issue 34): say them per iteration, hint the permission, stop on repeats.

Each backend reports the tool uses its CLI refused for want of permission
(``BackendResult.denials``: claude ``result.permission_denials``, codex sandbox
denials, gemini and copilot tool results). A loop whose iterations are denied
again and again while nothing changes in the work tree cannot get anywhere:
it stops ``permission-denied`` (exit 77, EX_NOPERM) naming the permission that
would allow them. A reply that says done while its writes were denied and
nothing changed is not done: the model is told, and goes on.
"""

from __future__ import annotations

from jlgcli.lazy_re import lazy_text

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.runner.summary import IterationMetrics

# Tools that only change files: allowed by ``edit``. Anything else (a shell, the
# network, MCP tools) needs ``full``.
_EDIT_TOOLS = lazy_text(r"(?i)write|edit|create|replace|patch|notebook|str_replace|apply")
DENIED_IN_A_ROW = 2


def describe(denials: list[dict[str, str]], limit: int = 3) -> str:
    """``Write src/a.py, Bash pytest`` (the first few, then how many more)."""
    shown = [f"{d.get('tool', 'tool')} {d.get('target', '')}".strip() for d in denials[:limit]]
    more = len(denials) - limit
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def needed_permission(denials: list[dict[str, str]], current: str | None) -> str:
    """The permission that would allow every denied tool use, given the one in force."""
    edits_only = all(_EDIT_TOOLS.search(d.get("tool", "")) for d in denials)
    if edits_only and current in (None, "read-only"):
        return "edit"
    return "full"


def hint(denials: list[dict[str, str]], current: str | None) -> str:
    """``--permissions edit would allow them`` (or full: shell and network)."""
    wanted = needed_permission(denials, current)
    what = "files in the project" if wanted == "edit" else "shell and network too"
    return f"--permissions {wanted} would allow them ({what})"


def feedback(denials: list[dict[str, str]]) -> str:
    """What the model reads next: its tool uses were refused, so the work is not done."""
    return (
        "Your last tool uses were denied by the permissions of this run "
        f"({describe(denials)}); nothing changed in the project, so the task is not done. "
        "Do the task with the tools you are allowed to use, or say what you need."
    )


class DenialTracker:
    """Counts consecutive iterations whose tool uses were denied and that changed nothing."""

    def __init__(self, limit: int = DENIED_IN_A_ROW) -> None:
        self.limit = limit
        self.in_a_row = 0

    def observe(self, denials: list[dict[str, str]], *, changed: bool) -> bool:
        """Record one iteration; True when ``limit`` in a row were denied and changed nothing."""
        if denials and not changed:
            self.in_a_row += 1
        else:
            self.in_a_row = 0
        return self.in_a_row >= self.limit


def judge_denials(
    tracker: DenialTracker, metrics: IterationMetrics, permissions: str | None
) -> tuple[str | None, str | None]:
    """(the stop message, or None; the feedback for the model, or None) after one reply."""
    denials = metrics.permissionDenials
    changed = bool(metrics.diffStat and metrics.diffStat.get("files"))
    if tracker.observe(denials, changed=changed):
        message = (
            f"{tracker.in_a_row} iterations in a row had their tool uses denied "
            f"({describe(denials)}) and changed nothing; {hint(denials, permissions)}"
        )
        return message, None
    return None, feedback(denials) if denials and not changed else None
