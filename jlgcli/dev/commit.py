"""Step 8: propose a conventional commit message, wait for approval, commit (FR-4.2 step 8).

The live context files are left out of the commit (their copies in
``completed/<ID>/`` go in) and removed only after the commit succeeded, so a
rejected or failed commit leaves a state ``resume`` brings back to step 8.
"""

from __future__ import annotations

import re

from jlgcli.dev.plan import Task
from jlgcli.dev.questions import commit_question
from jlgcli.dev.session import RESUME_HINT, Session
from jlgcli.dev.steps import clean_live_context
from jlgcli.errors import DevExitCode, JlgError

SUBJECT_LIMIT = 72
_TYPE_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("fix", ("fix", "bug", "repair", "correct", "resolve")),
    ("docs", ("doc", "docs", "document", "readme")),
    ("test", ("test", "tests")),
    ("refactor", ("refactor", "restructure", "rename")),
    ("perf", ("perf", "speed", "optimise", "optimize")),
    ("chore", ("chore", "bump", "upgrade")),
)


def commit_type(title: str) -> str:
    """The conventional-commit type a task title suggests (``feat`` by default)."""
    words = re.findall(r"[a-z]+", title.lower())
    first = words[0] if words else ""
    for kind, starts in _TYPE_WORDS:
        if first in starts or any(first.startswith(s) for s in starts if len(s) > 3):
            return kind
    return "feat"


def commit_message(task: Task, agent: str, iterations: int, warnings: list[str]) -> str:
    """``feat(TASK-001): greeting function`` plus a body naming the task, agent and warnings."""
    title = " ".join(task.title.split()) or task.id
    if len(title) > 1 and title[0].isupper() and title[1].islower():
        title = title[0].lower() + title[1:]
    subject = f"{commit_type(title)}({task.id}): {title}"
    if len(subject) > SUBJECT_LIMIT:
        subject = subject[: SUBJECT_LIMIT - 1].rstrip() + "…"
    milestone = task.fields.get("milestone", "").strip()
    body = [
        f"Task {task.id}" + (f" (milestone {milestone})" if milestone else "") + " of the plan.",
        f"Implemented with jlgcli dev ({agent}); review iterations: {iterations}.",
    ]
    if warnings:
        body.append("")
        body.append("Warnings accepted at approval:")
        body.extend(f"- {w}" for w in warnings)
    return subject + "\n\n" + "\n".join(body) + "\n"


SCAFFOLD_MESSAGE = "jlgcli dev: add prompt templates"


def _task_changes(session: Session) -> tuple[list[str], list[str], list[str]]:
    """(files to commit, files left out, jlgcli's own new files): only what the task changed.

    FR-4.2 step 8 commits the task's files: not what was changed before step
    1, and not jlgcli's own scaffolding (the prompt templates it wrote and
    nobody committed yet, issue 36), which goes in a commit of its own first
    (issue 49: it stayed untracked).
    """
    paths = session.paths
    live = {paths.show(p) for p in paths.live_context_files}
    changed: list[str] = []
    own: list[str] = []
    for entry in session.git.status():
        if entry.path == paths.show(paths.notices):
            continue
        if entry.untracked and entry.path in paths.own_files:
            own.append(entry.path)
            continue
        changed += [name for name in (entry.path, entry.source) if name and name not in live]
    taken, left_out = session.record.split_changes(paths.root, changed)
    return taken, left_out, own


def _listing(title: str, files: list[str], limit: int = 40) -> str:
    listed = "\n".join(f"    {name}" for name in files[:limit])
    more = f"\n    … and {len(files) - limit} more" if len(files) > limit else ""
    return f"{title} ({len(files)}):\n{listed}{more}\n"


def commit_step(session: Session, task: Task) -> tuple[str, list[str], list[str]]:
    """Show the message and the files, ask, commit on yes.

    Returns the commit's sha, the changed files left out of it and jlgcli's
    own uncommitted files (the prompt templates).
    """
    paths, reporter, git, record = session.paths, session.reporter, session.git, session.record
    session.enter(8, "git commit")
    files, left_out, own = _task_changes(session)
    agent = ", ".join(record.agents) or session.agent.name
    message = commit_message(task, agent, record.review_iterations, session.warnings)
    if not files:
        subject = (git.last_message() or "").partition("\n")[0]
        if f"({task.id})" in subject:
            reporter.info(f"{task.id} is already committed; cleaning up the context files")
            clean_live_context(session, task.id)
            session.store.forget_task()
            return git.head_sha(), left_out, own
        raise JlgError(
            DevExitCode.TASK_FAILED,
            f"nothing to commit for {task.id} in {paths.root}",
            "the agents changed no file; check the plan and the notes in "
            f"{paths.show(paths.archive_dir(task.id))}/",
        )
    indented = "\n".join(f"    {line}" if line else "" for line in message.splitlines())
    shown = f"Proposed commit message:\n{indented}\n" + _listing("Files", files)
    if left_out:
        shown += _listing("Left out, as they were before the task started", left_out)
    if own:
        shown += _listing(
            f'First, in a commit of their own ("{SCAFFOLD_MESSAGE}"): jlgcli\'s prompt templates',
            own,
        )
    session.asker.show(shown)
    if not record.baseline:
        reporter.warn(
            f"no record of the work tree when {task.id} started: every change is proposed"
        )
    for warning in session.warnings:
        reporter.error(f"warning carried to the commit: {warning}")
    answer = session.asker.ask(commit_question())
    if answer.choice != "y":
        raise JlgError(
            DevExitCode.ABORTED,
            "commit not approved: nothing was committed",
            RESUME_HINT + " (it asks again), or commit the changes yourself",
        )
    if own:  # once, before the first task's: never left untracked (issue 49)
        scaffold = git.commit_paths(SCAFFOLD_MESSAGE, own)
        reporter.info(f"committed {scaffold[:10]} {SCAFFOLD_MESSAGE} ({len(own)} file(s))")
    sha = git.commit_paths(message, files)
    clean_live_context(session, task.id)
    session.store.forget_task()
    reporter.info(f"committed {sha[:10]} {message.splitlines()[0]}")
    if left_out:
        reporter.info(f"left out of the commit: {len(left_out)} file(s) changed before the task")
    return sha, left_out, own
