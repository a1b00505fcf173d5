"""Steps 2 to 7 of the development loop (FR-4.2); step 8 is in ``commit.py``.

Every step leaves the files in a state ``state.infer_resume`` understands,
so an interruption anywhere is resumable (NFR-2): status changes and context
files are written atomically, stale outputs are removed *before* the agent
that rewrites them runs.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from jlgcli.dev.config import VALIDATION_KINDS
from jlgcli.dev.fsutil import copy_atomic, read_text_exact, write_text_atomic
from jlgcli.dev.plan import Task
from jlgcli.dev.plan_edit import set_status
from jlgcli.dev.prompts import PromptContext
from jlgcli.dev.questions import ABORT, review_question
from jlgcli.dev.review import parse_review
from jlgcli.dev.session import Session, call_agent
from jlgcli.dev.validation import ValidationReport, run_validation

INTEGRATION_KINDS: tuple[str, ...] = ("test", "build")


def load_task(session: Session, task: Task) -> None:
    """Step 2: copy the task's block to ``context/current-task.md``."""
    paths = session.paths
    session.enter(2, paths.show(paths.current_task))
    write_text_atomic(paths.current_task, task.block)
    session.reporter.file_op("write", paths.show(paths.current_task))
    session.reporter.info(f"{task.id}: {task.title} ({len(task.block.splitlines())} lines)")


def _remove(session: Session, *files: Path) -> None:
    for path in files:
        if path.exists():
            path.unlink()
            session.reporter.file_op("delete", session.paths.show(path))


def implement(session: Session, task: Task) -> None:
    """Step 3: mark the task in-progress and have the agent implement it and write its notes."""
    paths = session.paths
    session.enter(3, paths.show(paths.notes))
    if set_status(paths.plan, paths.show(paths.plan), task.id, "in-progress"):
        session.reporter.file_op("write", f"{paths.show(paths.plan)} ({task.id}: in-progress)")
    _remove(session, paths.notes, paths.review)  # stale outputs of an earlier attempt
    ctx = PromptContext(task.id, task.references)
    call_agent(session, "implement", ctx, paths.notes)
    lines = len(read_text_exact(paths.notes).splitlines())
    changed = session.git.changed_files(exclude=[paths.show(paths.context), *paths.own_files])
    session.reporter.info(
        f"implementation notes written ({lines} lines); {len(changed)} file(s) changed"
    )


def validate(session: Session, kinds: tuple[str, ...] = VALIDATION_KINDS) -> ValidationReport:
    """Run validation commands; the report is kept for the review and fix prompts."""
    report = run_validation(
        kinds,
        session.config,
        session.paths.root,
        session.reporter,
    )
    session.validation = report
    session.reporter.info(f"validation: {report.summary()}")
    return report


def ask_after_failure(session: Session, problem: str, details: str = "") -> bool:
    """FR-4.3: show the problem and ask. True: another review round; False: go on with warnings.

    ``problem`` is one line that says what failed (it becomes the commit's
    warning on ``n``); ``details`` the failing commands and their output.
    """
    session.reporter.error(problem + (f"\n{details}" if details else ""))
    answer = session.asker.ask(review_question())
    if answer.choice == ABORT:
        raise session.aborted(answer, problem)
    if answer.choice == "n":
        session.accept_warning(problem)
        session.reporter.warn("going straight to the commit approval with this warning")
        return False
    return True


def validation_step(session: Session) -> bool:
    """Step 4. True: go on; False: the user answered ``n``, straight to the commit approval."""
    session.enter(4, "lint, typecheck, test, build")
    report = validate(session)
    if report.ok:
        return True
    return ask_after_failure(
        session, f"automated validation failed: {report.summary()}", report.failures_text()
    )


def _validation_text(session: Session) -> str:
    report = session.validation
    return "" if report is None else report.details()


def _review_check(text: str) -> str | None:
    if parse_review(text).recognised:
        return None
    return "no BLOCKING / NON-BLOCKING / NITPICK section or tag found (malformed review)"


def review_loop(session: Session, task: Task) -> bool:
    """Step 5: review → fix → re-validate, up to ``maxReviewIterations`` rounds, then ask.

    True: the review passed; False: the user answered ``n`` (straight to the commit approval).
    """
    paths = session.paths
    session.enter(5, paths.show(paths.review))
    limit = session.config.validation.max_review_iterations
    if session.validation is None:  # resumed straight into the loop
        validate(session)
    exclude = [paths.show(paths.context), *paths.own_files]
    while True:
        for _ in range(limit):
            iteration = session.next_review_iteration()
            diff = session.git.diff(exclude=exclude)
            _remove(session, paths.review)
            ctx = PromptContext(
                task.id, task.references, iteration, diff, _validation_text(session)
            )
            call_agent(session, "review", ctx, paths.review, check=_review_check)
            review = parse_review(read_text_exact(paths.review))
            session.reporter.info(f"review iteration {iteration}: {review.summary()}")
            if not review.blocking and (session.validation is None or session.validation.ok):
                return True
            for finding in review.blocking:
                session.reporter.info(f"BLOCKING: {finding.text}")
            ctx = PromptContext(
                task.id, task.references, iteration, diff, _validation_text(session)
            )
            call_agent(session, "fix", ctx, paths.notes, required=False)
            validate(session)
        blocking = parse_review(read_text_exact(paths.review)).blocking
        problem = (
            f"the review loop used its {limit} iteration(s) and {len(blocking)} BLOCKING "
            f"finding(s) remain(ed) at the last review; validation: "
            f"{session.validation.summary() if session.validation else 'not run'}"
        )
        details = session.validation.failures_text() if session.validation else ""
        if not ask_after_failure(session, problem, details):
            return False
        session.enter(5, paths.show(paths.review))


def integration(session: Session, task: Task) -> None:
    """Step 6: run the test and build commands again; on failure ask (FR-4.3).

    ``y`` goes back to the review loop, then checks again; ``n`` (here or in
    that review loop) goes straight to the commit approval with the warning.
    """
    while True:
        session.enter(6, "test, build")
        report = validate(session, INTEGRATION_KINDS)
        if report.ok:
            return
        problem = f"integration check failed: {report.summary()}"
        if not ask_after_failure(session, problem, report.failures_text()):
            return
        if not review_loop(session, task):
            return


def document(session: Session, task: Task) -> None:
    """Step 7: mark the task done and copy the context files to ``completed/<ID>/``."""
    paths = session.paths
    archive = paths.archive_dir(task.id)
    session.enter(7, paths.show(archive) + "/")
    if set_status(paths.plan, paths.show(paths.plan), task.id, "done"):
        session.reporter.file_op("write", f"{paths.show(paths.plan)} ({task.id}: done)")
    copied = []
    # current-task.md last: its presence in the archive marks the archive complete.
    for live in (paths.notes, paths.review, paths.current_task):
        if live.is_file():
            copy_atomic(live, archive / live.name)
            session.reporter.file_op("copy", f"{paths.show(live)} -> {paths.show(archive)}/")
            copied.append(live.name)
    session.reporter.info(
        f"{task.id} marked done; archived {', '.join(copied)} to {paths.show(archive)}/"
    )


def clean_live_context(session: Session, task_id: str) -> None:
    """After the commit: remove the live context files that have an archived copy.

    A file step 7 did not archive (e.g. ``resume --from-step 8`` skipped it) is
    kept rather than lost.
    """
    paths = session.paths
    archive = paths.archive_dir(task_id)
    for path in paths.live_context_files:
        if not path.is_file():
            continue
        if not (archive / path.name).is_file():
            session.reporter.warn(
                f"{paths.show(path)} kept: it is not archived in {paths.show(archive)}/"
            )
            continue
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            session.reporter.file_op("delete", paths.show(path))
