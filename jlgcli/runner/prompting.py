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


def answer_block(question: str, answer: str) -> str:
    """What the next prompt says of the user's answer to the question the run parked on."""
    asked = f"Your question was:\n{question.strip()}\n\n" if question.strip() else ""
    return f"[jlgcli] The user answered your question.\n{asked}The user's answer:\n{answer.strip()}"


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


class Prompter:
    """The prompt of every iteration of one run: the task, the protocol, what came before.

    After a reply, ``remember`` keeps what the next prompt reports (the model's
    summary/next or its message's tail, gate failures, or the rebound
    continuation). ``restart`` is for a new backend (failover): a fresh session
    that gets the whole task again.
    """

    def __init__(self, task: str, instructions: str, *, max_iterations: int, fresh: bool) -> None:
        self.task = task
        self.instructions = instructions
        self.max_iterations = max_iterations
        self.fresh = fresh
        self.report = ""
        self._override: str | None = None
        self._feedback: list[str] = []
        self._answer: str | None = None  # ``jlgcli answer``: the next prompt carries it

    def answered(self, question: str, answer: str) -> None:
        """The user's answer to the question the run parked on goes into the next prompt
        (and stays there until a reply is remembered: a retried call carries it too)."""
        self._answer = answer_block(question, answer)

    def prompt_for(self, iteration: int, session_id: str | None) -> str:
        if iteration == 1 and not self.report:
            return first_prompt(self.task, self.instructions)
        if self._override is not None:  # rebound: the continuation built from the script run
            return self._override
        answer = [self._answer] if self._answer else []
        report = "\n\n".join([self.report, *self._feedback, *answer]).strip()
        return next_prompt(
            self.task,
            self.instructions,
            iteration=iteration,
            max_iterations=self.max_iterations,
            report=report or "(the previous iteration printed no message)",
            # an answer goes to the session that asked, whatever the session mode (issue 51)
            continue_session=session_id is not None and (not self.fresh or bool(answer)),
        )

    def remember(
        self, text: str, summary: str | None, next_step: str | None, override: str | None
    ) -> None:
        self.report = previous_report(text, summary, next_step)
        self._override = override
        self._feedback = []
        self._answer = None

    def add_feedback(self, block: str) -> None:
        """Something the next prompt must carry besides the report (e.g. a failing gate)."""
        self._feedback.append(block)
        self._override = None

    def restart(self) -> None:
        """A new backend: no continuation override, the whole task again."""
        self._override = None
