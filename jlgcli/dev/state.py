"""Where to resume (FR-5.1, FR-5.2, NFR-2): inferred from the context files and the task status.

The files the steps write say where to resume; what they cannot say (the
work tree at step 1, the agents, the review count, accepted warnings) is in
the task record of ``taskstate.py``.

===========================  =====================================  =========  ==========
task status                  context files                          resume at  ambiguous
===========================  =====================================  =========  ==========
pending                      current-task.md only                   3          no
pending                      + implementation-notes.md              3          yes
in-progress                  no notes, no code changes              3          no
in-progress                  no notes, code changes                 3          yes
in-progress                  notes, no review.md                    4          no
in-progress                  notes + review without BLOCKING        6          no
in-progress                  notes + review with BLOCKING/garbled   5          yes
done                         archive not complete                   7          no
done                         archived in completed/<ID>/            8          no
===========================  =====================================  =========  ==========
"""

from __future__ import annotations

from collections.abc import Callable

from jlgcli.dev.fsutil import read_text_exact
from jlgcli.dev.plan import Plan, Task, block_task_id
from jlgcli.dev.project import ProjectPaths
from jlgcli.dev.review import parse_review
from jlgcli.errors import DevExitCode, JlgError
from jlgcli.records import record


@record
class ResumePoint:
    """The step to resume from, and why."""

    task: Task
    step: int
    ambiguous: bool
    reason: str


def current_task_id(paths: ProjectPaths, remembered: str | None = None) -> str:
    """The id of the task in progress; "No task in progress" when ``current-task.md`` is absent.

    ``current-task.md`` is a view of the task's block, never parsed as a plan
    (its dependencies are not in it, issue 36): only its id is read. When it
    names none, ``remembered`` (the id in the dev loop's own state) is used.
    The task itself is always read from the plan, by this id.
    """
    if not paths.current_task.is_file():
        raise JlgError(
            DevExitCode.CONFIGURATION,
            f"No task in progress ({paths.show(paths.current_task)} not found)",
            "start one with: jlgcli dev run",
        )
    found = block_task_id(read_text_exact(paths.current_task)) or remembered
    if found is None:
        raise JlgError(
            DevExitCode.CONFIGURATION,
            f"{paths.show(paths.current_task)} names no task (no ID field, no task heading)",
            "restore it, or delete it to start the task again with: jlgcli dev run",
        )
    return found


def archived(paths: ProjectPaths, task_id: str) -> bool:
    """Has step 7 copied the context files to ``completed/<ID>/``?"""
    target = paths.archive_dir(task_id)
    return (
        all((target / live.name).is_file() for live in paths.live_context_files if live.is_file())
        and (target / paths.current_task.name).is_file()
    )


def _non_empty(path_exists: bool, text: Callable[[], str]) -> bool:
    return path_exists and bool(text().strip())


def infer_resume(
    paths: ProjectPaths,
    plan: Plan,
    has_code_changes: Callable[[], bool],
    remembered: str | None = None,
) -> ResumePoint:
    """The step to resume from (see the module table); raises ``JlgError`` when nothing can be.

    ``remembered``: the task id of the dev loop's own state, if any.
    """
    task_id = current_task_id(paths, remembered)
    task = plan.find(task_id)
    if task is None:
        raise JlgError(
            DevExitCode.CONFIGURATION,
            f"task {task_id} (from {paths.show(paths.current_task)}) is not in {plan.label}",
            "restore the task in the plan, or delete the context file to start over",
        )
    notes = _non_empty(paths.notes.is_file(), lambda: read_text_exact(paths.notes))
    if task.status == "done":
        if archived(paths, task.id):
            return ResumePoint(
                task, 8, False, "the task is done and archived; only the commit is left"
            )
        return ResumePoint(task, 7, False, "the task is marked done but not fully archived")
    if task.status == "pending":
        if notes:
            return ResumePoint(task, 3, True, "implementation notes exist but the task is pending")
        return ResumePoint(task, 3, False, "the task was loaded but not started")
    if task.status != "in-progress":
        raise JlgError(
            DevExitCode.CONFIGURATION,
            f"{task.id} is {task.status}; nothing to resume",
            f"set its status back to in-progress in {plan.label}, or delete "
            f"{paths.show(paths.current_task)}",
        )
    if not notes:
        if has_code_changes():
            return ResumePoint(
                task, 3, True, "the implementation was interrupted (code changed, no notes)"
            )
        return ResumePoint(task, 3, False, "the implementation had not written its notes")
    if not paths.review.is_file():
        return ResumePoint(task, 4, False, "the implementation is done (notes written)")
    review = parse_review(read_text_exact(paths.review))
    if review.recognised and not review.blocking:
        return ResumePoint(task, 6, False, "the review found no BLOCKING issue")
    why = "BLOCKING findings" if review.recognised else "no findings it can read"
    return ResumePoint(task, 5, True, f"the review loop was interrupted (review.md has {why})")
