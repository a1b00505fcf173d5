"""Pick the task to run (FR-4.1) and change a task's status in place (FR-4.4, NFR-2)."""

from __future__ import annotations

from pathlib import Path

from jlgcli.dev.fsutil import read_text_exact, write_text_atomic
from jlgcli.dev.plan import Plan, Task, parse_plan
from jlgcli.errors import DevExitCode, JlgError


def load_plan(path: Path, label: str) -> Plan:
    """Read and parse the plan file; a missing file is a configuration error naming the path."""
    try:
        text = read_text_exact(path)
    except FileNotFoundError:
        raise JlgError(
            DevExitCode.CONFIGURATION,
            f"implementation plan not found: {path}",
            "write docs/implementation-plan.md (format: docs/devloop.md)",
        ) from None
    return parse_plan(text, label)


def unmet_dependencies(plan: Plan, task: Task) -> list[Task]:
    """The tasks ``task`` depends on that are not ``done``."""
    by_id = {t.id: t for t in plan.tasks}
    return [by_id[d] for d in task.dependencies if by_id[d].status != "done"]


def _describe(tasks: list[Task]) -> str:
    return ", ".join(f"{t.id} ({t.status})" for t in tasks)


def select_task(plan: Plan, task_id: str | None) -> Task | None:
    """The task to run: ``task_id`` if it is runnable, else the next runnable pending task.

    Returns None when every task is done (nothing to do). Raises ``JlgError``
    (exit 2) for an unknown id, a task that is not pending, unmet dependencies
    (listed), or pending tasks that are all blocked.
    """
    if task_id:
        task = plan.find(task_id)
        if task is None:
            known = ", ".join(t.id for t in plan.tasks[:10])
            raise JlgError(
                DevExitCode.CONFIGURATION,
                f"no task {task_id} in {plan.label}",
                f"known tasks: {known}{' ...' if len(plan.tasks) > 10 else ''}",
            )
        if task.status != "pending":
            hint = (
                "resume it with: jlgcli dev resume"
                if task.status == "in-progress"
                else "only a pending task can be run"
            )
            raise JlgError(
                DevExitCode.CONFIGURATION, f"{task.id} is {task.status}, not pending", hint
            )
        unmet = unmet_dependencies(plan, task)
        if unmet:
            raise JlgError(
                DevExitCode.CONFIGURATION,
                f"{task.id} has unsatisfied dependencies: {_describe(unmet)}",
                f"finish them first, e.g. jlgcli dev run {unmet[0].id}",
            )
        return task
    done = {t.id for t in plan.tasks if t.status == "done"}
    pending = [t for t in plan.tasks if t.status == "pending"]
    for task in pending:
        if all(dep in done for dep in task.dependencies):
            return task
    if not pending:
        return None
    waits = "\n".join(
        f"  {t.id} waits for {_describe(unmet_dependencies(plan, t))}" for t in pending[:10]
    )
    raise JlgError(
        DevExitCode.CONFIGURATION,
        f"no pending task has all its dependencies done:\n{waits}",
        "finish the task in progress (jlgcli dev resume) or fix the Dependencies fields",
    )


def set_status(path: Path, label: str, task_id: str, status: str) -> bool:
    """Rewrite only the status word of ``task_id`` in the plan file, atomically.

    Every other byte of the file stays identical. Returns False when the task
    already had that status (nothing written).
    """
    text = read_text_exact(path)
    plan = parse_plan(text, label)
    task = plan.find(task_id)
    if task is None:
        raise JlgError(
            DevExitCode.TASK_FAILED,
            f"task {task_id} is no longer in {path}",
            "was the plan edited during the run? restore the task and run: jlgcli dev resume",
        )
    if task.status == status:
        return False
    start, end = task.status_span
    write_text_atomic(path, text[:start] + status + text[end:])
    return True
