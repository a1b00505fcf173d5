"""The state one dev-loop run carries between steps, and the agent call with retry (FR-6.3)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from jlgcli.dev.agent import AgentCaller, AgentReply
from jlgcli.dev.config import DevConfig
from jlgcli.dev.gitops import Git
from jlgcli.dev.project import ProjectPaths
from jlgcli.dev.prompts import PromptContext, build_prompt
from jlgcli.dev.questions import ABORT, Answer, Asker, retry_question
from jlgcli.dev.report import STEP_NAMES, Reporter
from jlgcli.dev.taskstate import StateStore, TaskRecord
from jlgcli.dev.validation import ValidationReport
from jlgcli.errors import DevExitCode, JlgError
from jlgcli.records import field, record

RESUME_HINT = "the state is saved; continue with: jlgcli dev resume"


@record(frozen=False)
class Session:
    """Everything the steps share during one ``run`` or ``resume``."""

    paths: ProjectPaths
    config: DevConfig
    reporter: Reporter
    asker: Asker
    agent: AgentCaller
    git: Git
    store: StateStore
    step: int = 0  # the step running now (for interruption messages)
    # agents, review iterations, accepted warnings and the work tree at step 1 (persisted)
    record: TaskRecord = field(default_factory=lambda: TaskRecord(""))
    validation: ValidationReport | None = None
    notices: list[str] = field(default_factory=list)  # the setup warnings (notices.py)

    @property
    def warnings(self) -> list[str]:
        """The problems the user accepted with ``n``; carried to the commit message."""
        return self.record.warnings

    def enter(self, step: int, target: str = "") -> None:
        """Start a step: remember it and print its header."""
        self.step = step
        self.reporter.step(step, target)
        self.persist()

    def begin(self, task_id: str) -> None:
        """Step 1: remember the work tree as it is before the task changes anything (FR-4.2)."""
        entries = self.git.status()
        changed = [e.path for e in entries] + [e.source for e in entries if e.source]
        untracked = [e.path for e in entries if e.untracked]
        self.record = TaskRecord.begin(task_id, self.paths.root, changed, untracked)
        self.persist()
        if changed:
            self.reporter.info(
                f"{len(changed)} file(s) already changed before {task_id}; "
                "they stay out of its commit unless the task changes them"
            )

    def restore(self, task_id: str) -> None:
        """``resume``: take the record of ``task_id`` back (a fresh one when there is none)."""
        self.record = self.store.load_task(task_id) or TaskRecord(task_id, baseline=False)

    def persist(self) -> None:
        """Save the record (from step 1 on), so ``resume`` has it after any interruption."""
        if self.record.task_id:
            self.store.save_task(self.record)

    def accept_warning(self, warning: str) -> None:
        self.record.warnings.append(warning)
        self.persist()

    def next_review_iteration(self) -> int:
        self.record.review_iterations += 1
        self.persist()
        return self.record.review_iterations

    def aborted(self, answer: Answer, problem: str) -> JlgError:
        """The error ending the run after ``abort``: exit 1 typed, exit 3 when --yes gave up."""
        where = f"step {self.step} ({STEP_NAMES[self.step - 1]})" if self.step else "start"
        if answer.automatic:
            return JlgError(
                DevExitCode.TASK_FAILED,
                f"{problem}\nstopped at {where}: --yes does not retry forever",
                RESUME_HINT,
            )
        return JlgError(DevExitCode.ABORTED, f"aborted at {where}", RESUME_HINT)


def fingerprint(path: Path) -> tuple[int, int, str] | None:
    """(mtime, size, sha256) of a file, or None: tells whether an agent rewrote it."""
    try:
        stat = path.stat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size, digest)


def _excerpt(text: str, lines: int = 15) -> str:
    kept = [line for line in text.splitlines() if line.strip()]
    return "\n".join(f"    {line}" for line in kept[-lines:])


def call_agent(
    session: Session,
    kind: str,
    ctx: PromptContext,
    expected: Path,
    *,
    required: bool = True,
    check: Callable[[str], str | None] | None = None,
) -> AgentReply:
    """Run the ``kind`` agent until it succeeds and writes ``expected``, or the user aborts.

    ``required``: a missing/unchanged ``expected`` is a failure (retry/abort
    question); otherwise only a warning. ``check`` validates the written
    file's text and returns a problem (e.g. an unreadable review) or None.
    """
    paths, reporter, agent = session.paths, session.reporter, session.agent
    shown = paths.show(expected)
    while True:
        before = fingerprint(expected)
        prompt = build_prompt(kind, paths, ctx, reporter)
        reporter.detail(f"prompt for the {kind} agent ({agent.name})", prompt)
        reporter.info(f"calling the {kind} agent ({agent.name}) …")
        session.record.add_agent(agent.name)
        session.persist()
        reply = agent.call(prompt, paths.root)
        session.record.add_call(kind, agent.name, reply)
        session.persist()
        reporter.info(_call_line(kind, agent.name, reply))
        reporter.detail(f"reply of the {kind} agent ({agent.name})", reply.text or "(empty)")
        problem = _problem(kind, reply, expected, shown, before, required, check)
        if problem is None:
            return reply
        if not required and reply.ok:
            reporter.warn(problem)
            return reply
        reporter.error(problem)
        answer = session.asker.ask(retry_question(kind, session.config.agent.retries))
        if answer.choice == ABORT:
            raise session.aborted(answer, problem)


def _call_line(kind: str, agent: str, reply: AgentReply) -> str:
    """``the implement agent (claude): run 2026…-ab12 · $0.0123 · tokens in 10, out 5``."""
    parts = [f"the {kind} agent ({agent}) {'answered' if reply.ok else 'failed'}"]
    if reply.run_id:
        parts.append(f"run {reply.run_id}")
    parts.append(f"${reply.cost_usd:.4f}" if reply.cost_usd is not None else "cost unknown")
    if reply.input_tokens is not None or reply.output_tokens is not None:
        parts.append(f"tokens in {reply.input_tokens or 0}, out {reply.output_tokens or 0}")
    return " · ".join(parts)


def _problem(
    kind: str,
    reply: AgentReply,
    expected: Path,
    shown: str,
    before: tuple[int, int, str] | None,
    required: bool,
    check: Callable[[str], str | None] | None,
) -> str | None:
    command = f"\n  command: {reply.command}" if reply.command else ""
    if not reply.ok:
        output = _excerpt(reply.output_tail or reply.text)
        return f"the {kind} agent failed: {reply.error or 'unknown error'}{command}" + (
            f"\n  output:\n{output}" if output else ""
        )
    after = fingerprint(expected)
    if after is None or after == before or after[1] == 0:
        what = "did not write" if after is None or after[1] == 0 else "did not update"
        output = _excerpt(reply.text)
        return f"the {kind} agent {what} {shown} (expected at {expected}){command}" + (
            f"\n  its reply ended with:\n{output}" if output else ""
        )
    if check is not None:
        found = check(expected.read_text(encoding="utf-8", errors="replace"))
        if found:
            return f"{shown}: {found}{command}"
    return None
