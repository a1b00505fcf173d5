"""The questions the dev loop asks a person (FR-4.3, FR-4.2 step 8, FR-5.3, FR-6.3).

Each question shows its options and its default (NFR-3). Who answers:

* a person at a terminal (stdin is a TTY): the typed answer, Enter for the default;
* ``--yes``: the question's "yes" answer, printed so the log shows it. Answers
  that would loop (another review round, another retry) are given only
  ``auto_limit`` times; after that the unattended answer is ``abort``;
* nobody (stdin is not a TTY, or ``--no-input``, and no ``--yes``): the run
  never waits; it stops and says which flag to pass. Exit 3 when the question
  follows a task execution failure (validation, review, agent: FR-8.3), exit 1
  otherwise (the commit approval, the resume question: nobody approved).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from jlgcli.errors import DevExitCode, JlgError
from jlgcli.records import record

ABORT = "abort"


@record
class Question:
    """A question and its answers; ``key`` groups repeated questions for ``auto_limit``."""

    key: str
    text: str
    choices: tuple[str, ...]
    default: str
    yes_answer: str
    auto_limit: int | None = None  # how many times --yes may give yes_answer
    unanswered: DevExitCode = DevExitCode.ABORTED  # the exit code when nobody can answer
    left: str = "the state is kept for: jlgcli dev resume"  # what stays when nobody answers


@record
class Answer:
    choice: str
    automatic: bool  # given by --yes, not typed


def review_question() -> Question:
    """FR-4.3: after a validation failure or an exhausted review loop."""
    return Question(
        "review-continue",
        "Continue with another review iteration?",
        ("y", "n", ABORT),
        "y",
        "y",
        auto_limit=1,
        unanswered=DevExitCode.TASK_FAILED,
    )


def commit_question() -> Question:
    """FR-4.2 step 8: the mandatory approval before committing."""
    return Question("commit", "Commit these changes with this message?", ("y", "n"), "n", "y")


def resume_question(step: int) -> Question:
    """FR-5.3: the state is ambiguous."""
    return Question("resume", f"Resume from step {step}?", ("y", "n"), "y", "y")


def retry_question(what: str, retries: int) -> Question:
    """FR-6.3: an agent call failed or did not write its file."""
    return Question(
        f"retry-{what}",
        f"Retry the {what} agent?",
        ("retry", ABORT),
        "retry",
        "retry",
        retries,
        unanswered=DevExitCode.TASK_FAILED,
    )


class Asker:
    """Asks questions on ``err`` and reads answers with ``read_line``."""

    def __init__(
        self,
        *,
        assume_yes: bool,
        no_input: bool = False,
        interactive: bool | None = None,
        read_line: Callable[[], str] | None = None,
        err: TextIO | None = None,
    ) -> None:
        self.assume_yes = assume_yes
        self.no_input = no_input
        self.interactive = sys.stdin.isatty() if interactive is None else interactive
        self._read_line = read_line or sys.stdin.readline
        self._err = err or sys.stderr
        self._auto_given: dict[str, int] = {}

    def ask(self, question: Question) -> Answer:
        """Get an answer (see the module docstring); raises ``JlgError`` exit 1 when nobody can."""
        prompt = f"{question.text} ({'/'.join(question.choices)}) [{question.default}]: "
        if self.assume_yes:
            given = self._auto_given.get(question.key, 0)
            limit = question.auto_limit
            choice = question.yes_answer if limit is None or given < limit else ABORT
            self._auto_given[question.key] = given + 1
            self._write(f"{prompt}{choice} (--yes)\n")
            return Answer(choice, automatic=True)
        if self.no_input or not self.interactive:
            why = "--no-input was given" if self.no_input else "stdin is not a terminal"
            raise JlgError(
                question.unanswered,
                f"cannot ask {question.text!r}: {why}; stopped without answering",
                "pass --yes to answer yes to every question (unattended), "
                f"or run in a terminal; {question.left}",
            )
        while True:
            self._write(prompt)
            line = self._read_line()
            if not line:  # EOF: the person is gone; never guess
                self._write("\n")
                raise JlgError(DevExitCode.ABORTED, "no answer (end of input); aborted")
            typed = parse_answer(line, question)
            if typed is not None:
                return Answer(typed, automatic=False)
            self._write(f"please answer one of: {', '.join(question.choices)}\n")

    def show(self, text: str) -> None:
        """Context a question needs (e.g. the proposed commit), shown at every verbosity."""
        self._write(text if text.endswith("\n") else text + "\n")

    def _write(self, text: str) -> None:
        self._err.write(text)
        self._err.flush()


def parse_answer(line: str, question: Question) -> str | None:
    """The choice a typed line means: exact, ``yes``/``no``, a unique prefix, or Enter → default."""
    word = line.strip().lower()
    if not word:
        return question.default
    synonyms = {"yes": "y", "no": "n", "q": ABORT, "quit": ABORT}
    word = synonyms.get(word, word)
    if word in question.choices:
        return word
    matches = [c for c in question.choices if c.startswith(word)]
    return matches[0] if len(matches) == 1 else None
