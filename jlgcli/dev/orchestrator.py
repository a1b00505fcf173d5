"""``run`` and ``resume``: set a session up, then walk the 8 steps (FR-4, FR-5).

Checks come first, before any file is written: the config (FR-3), the
Phase 1 documents (FR-2), git, the plan and the agent CLI. Ctrl-C or SIGTERM
at any point ends the run with exit 1 and a state ``resume`` understands
(NFR-2).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, TextIO

from jlgcli.dev.agent import AgentCaller, BackendAgent, custom_backends_for
from jlgcli.dev.commit import commit_step
from jlgcli.dev.config import check_llm, load_config, require_trusted_commands
from jlgcli.dev.gitops import Git
from jlgcli.dev.notices import remember, to_show, unset_commands
from jlgcli.dev.plan import Plan, Task
from jlgcli.dev.plan_edit import load_plan, select_task
from jlgcli.dev.preflight import check_ready
from jlgcli.dev.project import ProjectPaths, check_documents, prepare_project
from jlgcli.dev.questions import Asker, resume_question
from jlgcli.dev.report import STEP_NAMES, Level, Reporter
from jlgcli.dev.session import RESUME_HINT, Session
from jlgcli.dev.state import current_task_id, infer_resume
from jlgcli.dev.steps import (
    document,
    implement,
    integration,
    load_task,
    review_loop,
    validation_step,
)
from jlgcli.dev.taskstate import StateStore
from jlgcli.errors import DevExitCode, JlgError
from jlgcli.process.model import Limits
from jlgcli.records import field, record


@record
class DevOptions:
    """What the command line asked for."""

    command: Literal["init", "run", "resume"]
    task_id: str | None = None
    from_step: int | None = None
    directory: Path = field(default_factory=Path.cwd)
    config_path: Path | None = None
    llm: str | None = None
    verbosity: int | None = None  # None: the config's "verbose"; 0 quiet, 1 normal, 2+ verbose
    assume_yes: bool = False
    no_input: bool = False
    json: bool = False


@record
class DevResult:
    """How a run ended (the ``--json`` object)."""

    status: Literal["committed", "nothing-to-do"]
    task_id: str | None = None
    commit: str | None = None
    left_out: tuple[str, ...] = ()  # changed files not committed: changed before the task began
    calls: tuple[dict[str, Any], ...] = ()  # every agent call: a recorded run (jlgcli runs)
    own_files: tuple[str, ...] = ()  # jlgcli's new prompt templates: committed on their own

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "task": self.task_id,
            "commit": self.commit,
            "leftOut": list(self.left_out),
            "jlgcliFiles": list(self.own_files),
            "agentCalls": list(self.calls),
            **_totals(self.calls),
            "exitCode": 0,
        }


def _totals(calls: tuple[dict[str, Any], ...]) -> dict[str, Any]:
    from jlgcli.dev.taskstate import TaskRecord

    totals = TaskRecord("", calls=list(calls)).totals()
    del totals["agentCalls"]
    return totals


def _level(options: DevOptions, config_verbose: bool) -> Level:
    if options.verbosity is None:
        return "verbose" if config_verbose else "normal"
    return ("quiet", "normal")[options.verbosity] if options.verbosity < 2 else "verbose"


def execute_dev(
    options: DevOptions,
    *,
    agent: AgentCaller | None = None,
    asker: Asker | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> DevResult:
    """Run ``jlgcli dev run|resume``; raises ``JlgError`` with a ``DevExitCode`` on failure.

    ``agent`` and ``asker`` replace the real backend and the terminal (tests).
    """
    from jlgcli.process import install_termination_handlers

    if out is None and options.json:  # stdout carries the one JSON object
        import sys

        out = sys.stderr
    root = options.directory.resolve()
    if not root.is_dir():
        raise JlgError(DevExitCode.CONFIGURATION, f"project directory not found: {root}")
    loaded = load_config(root, options.config_path)
    config = loaded.config.with_overrides(
        llm=options.llm, verbose=True if (options.verbosity or 0) >= 2 else None
    )
    reporter = Reporter(_level(options, config.verbose), out, err)
    for warning in loaded.warnings:
        reporter.warn(warning)
    if loaded.source is not None:
        reporter.file_op("read", str(loaded.source))
    custom = custom_backends_for(config.llm, root) if agent is None else {}
    source = "--llm" if options.llm else str(loaded.source or "the default")
    if agent is None:
        check_llm(config.llm, tuple(custom), source)
    paths = ProjectPaths.from_config(root, config)
    notices = check_documents(paths)
    git = Git(paths.root)
    git.check_repository()
    require_trusted_commands(loaded)  # issue 15: a repository's commands run once trusted
    store = StateStore(git.git_dir())
    notices += unset_commands(config)
    for notice in to_show(paths, notices, verbose=reporter.verbose):  # once (FR-8.1, issue 36)
        reporter.warn(notice)
    real_agent = agent or BackendAgent(
        config.llm,
        custom=custom,
        limits=Limits(
            total_timeout=config.agent.timeout_seconds,
            idle_timeout=config.agent.idle_timeout_seconds,
        ),
        on_text=reporter.live,
    )
    session = Session(
        paths,
        config,
        reporter,
        asker or Asker(assume_yes=options.assume_yes, no_input=options.no_input, err=err),
        real_agent,
        git,
        store,
        notices=notices,
    )
    with install_termination_handlers():
        try:
            if options.command == "run":
                return _run(session, options.task_id)
            return _resume(session, options.from_step)
        except KeyboardInterrupt:  # process.signals.Interrupted too: Ctrl-C, SIGTERM…
            where = (
                f"step {session.step} ({STEP_NAMES[session.step - 1]})" if session.step else "start"
            )
            raise JlgError(DevExitCode.ABORTED, f"interrupted at {where}", RESUME_HINT) from None


def _prepare(session: Session) -> None:
    """Create ``context/`` and the prompt templates, then remember the notices shown."""
    prepare_project(session.paths, session.reporter)
    remember(session.paths, session.notices)


def _check_agent(session: Session) -> None:
    if isinstance(session.agent, BackendAgent):
        session.agent.check()


def _run(session: Session, task_id: str | None) -> DevResult:
    paths = session.paths
    plan = load_plan(paths.plan, paths.show(paths.plan))
    if paths.current_task.is_file():
        busy = current_task_id(paths, session.store.current_task_id())
        raise JlgError(
            DevExitCode.CONFIGURATION,
            f"{busy} is in progress ({paths.show(paths.current_task)} exists)",
            f"continue it with: jlgcli dev resume (or delete {paths.show(paths.current_task)} "
            "to start over)",
        )
    session.step = 1
    task = select_task(plan, task_id)
    if task is None:
        return _nothing_to_run(session, plan)
    check_ready(session.git, session.config, task)  # before any agent call (issue 36)
    _check_agent(session)
    # Every check passed: from here on the run writes (FR-4.2 step 1 records the work tree first).
    session.begin(task.id)
    _prepare(session)
    session.enter(1, f"{task.id}: {task.title}")
    deps = ", ".join(task.dependencies) or "none"
    session.reporter.info(f"{task.id} (dependencies done: {deps})")
    load_task(session, task)
    return _steps(session, task, 3)


def _nothing_to_run(session: Session, plan: Plan) -> DevResult:
    """FR-4.1 found no pending task: all done (exit 0), or say what is left and how to go on."""
    reporter = session.reporter
    started = [t for t in plan.tasks if t.status == "in-progress"]
    if started:
        listed = ", ".join(t.id for t in started)
        raise JlgError(
            DevExitCode.CONFIGURATION,
            f"no pending task left: {listed} in progress in {plan.label}",
            "continue it with: jlgcli dev resume (if its context files are gone, set its "
            "status back to pending and run: jlgcli dev run)",
        )
    _prepare(session)  # AC-1: the project is set up even so
    reporter.step(1, "nothing to do")
    other = [t for t in plan.tasks if t.status != "done"]
    if other:
        listed = ", ".join(f"{t.id} ({t.status})" for t in other[:10])
        reporter.info(f"no pending task left in {plan.label}; not done: {listed}")
        reporter.info("set a task's status back to pending to run it")
    else:
        reporter.info(f"all {len(plan.tasks)} tasks of {plan.label} are done")
    return DevResult("nothing-to-do")


def _resume(session: Session, from_step: int | None) -> DevResult:
    paths, git = session.paths, session.git
    plan = load_plan(paths.plan, paths.show(paths.plan))
    exclude = [paths.show(paths.context), paths.show(paths.plan), *paths.own_files]
    point = infer_resume(
        paths,
        plan,
        lambda: bool(git.changed_files(exclude=exclude)),
        session.store.current_task_id(),
    )
    start = point.step
    if from_step is not None:
        start = from_step
        session.reporter.info(
            f"--from-step {from_step} (the files suggest step {point.step}: {point.reason})"
        )
    elif point.ambiguous:
        session.asker.show(f"{point.task.id}: {point.reason}")
        answer = session.asker.ask(resume_question(point.step))
        if answer.choice != "y":
            raise JlgError(
                DevExitCode.ABORTED,
                f"not resumed: {point.task.id} stays where it is",
                "choose the step yourself: jlgcli dev resume --from-step N (1-8)",
            )
    check_ready(session.git, session.config, None)  # before any agent call (issue 36)
    if start <= 6:
        _check_agent(session)
    session.restore(point.task.id)
    _prepare(session)
    session.reporter.say(f"Resuming {point.task.id} from step {start}")
    if start <= 2:
        load_task(session, point.task)
    return _steps(session, point.task, max(start, 3))


def _steps(session: Session, task: Task, start: int) -> DevResult:
    # False once the user answered "n" to a failure: straight to the commit approval (FR-4.3);
    # step 7 still runs, as it marks the task done and archives its context for the commit.
    go_on = True
    if start <= 3:
        implement(session, task)
    if start <= 4:
        go_on = validation_step(session)
    if start <= 5 and go_on:
        go_on = review_loop(session, task)
    if start <= 6 and go_on:
        integration(session, task)
    if start <= 7:
        document(session, task)
    calls = tuple(session.record.calls)  # read before the commit step clears the record
    totals = session.record.totals()
    cost = f"${totals['costUsd']:.4f}" if totals["costUsd"] is not None else "cost unknown"
    session.reporter.say(
        f"{task.id}: {totals['agentCalls']} agent call(s) · {cost}"
        + (
            f" · tokens in {totals['inputTokens'] or 0}, out {totals['outputTokens'] or 0}"
            if totals["inputTokens"] is not None or totals["outputTokens"] is not None
            else ""
        )
        + " (each is a recorded run: jlgcli runs)"
    )
    sha, left_out, own = commit_step(session, task)
    return DevResult("committed", task.id, sha, tuple(left_out), calls, tuple(own))
