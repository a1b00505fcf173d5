"""git, the one way jlgcli runs it: one function, one result type, one time limit.

Every git command of every mode (a loop's snapshots, a batch's worktrees and merges,
the dev loop's diff and commit, the pre-commit hook's change, the sandbox's git dirs)
is ``run(cwd, *args)``: an argv list through ``run_captured`` (the one place that
spawns: own process group, the kill ladder at the limit), never a shell.

The policy, the same for every caller:

* time: ``GIT_TIMEOUT_S`` bounds git's own work (a hang is a lock held by another git,
  or a filesystem gone away); only a command that runs the user's hooks (a commit
  without ``--no-verify``: they may run a test suite) passes ``timeout=None``;
* git never asks anything (``GIT_TERMINAL_PROMPT=0``) nor pages (``GIT_PAGER=cat``);
  callers that read git's words (``fatal:``, branch lists) add ``C_LOCALE``;
* output: the first ``GIT_KEEP`` bytes of stdout and of stderr (a diff is read from its
  start) and the tail of both interleaved (an error excerpt reads the end);
  ``limit`` keeps fewer and stops git once past them (``truncated``);
* a missing git is a result (``missing``), not an exception; a timeout is a failed
  result (``timed_out``); Ctrl-C or SIGTERM while git runs raises ``Interrupted``
  after its tree is stopped; ``check=True`` turns any failure into ``GitError``.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Mapping
from pathlib import Path

from jlgcli.process.model import ProcessOutcome, StopReason
from jlgcli.records import record

GIT_TIMEOUT_S = 120.0
GIT_KEEP = 2_000_000  # bytes of stdout kept from its start
ERROR_KEEP = 64 * 1024  # bytes kept of stdout and stderr interleaved, from their end
KILL_GRACE_S = 0.5  # between the rungs of the kill ladder: git ends at once on a signal
BASE_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat"}
C_LOCALE = {"LC_ALL": "C"}  # git's messages and lists in one language, read by the caller


@record
class GitResult:
    """What one git command did: its arguments (after ``git``) and the process outcome."""

    args: tuple[str, ...]
    outcome: ProcessOutcome
    timeout: float | None = GIT_TIMEOUT_S  # the limit it ran under (seconds)

    @property
    def ok(self) -> bool:
        return self.outcome.ok

    @property
    def code(self) -> int | None:
        """The exit code (None when git was killed, timed out or never started)."""
        return self.outcome.exit_code

    @property
    def out(self) -> str:
        """stdout as git wrote it (its first ``GIT_KEEP`` or ``limit`` bytes)."""
        return self.outcome.stdout

    @property
    def err(self) -> str:
        return self.outcome.stderr

    @property
    def answer(self) -> str | None:
        """stdout stripped when git succeeded, None otherwise (a yes/no-or-value question)."""
        return self.outcome.stdout.strip() if self.outcome.ok else None

    @property
    def missing(self) -> bool:
        """git is not installed (or cannot be started)."""
        return self.outcome.stop_reason is StopReason.FAILED_TO_START

    @property
    def timed_out(self) -> bool:
        return self.outcome.timed_out

    @property
    def truncated(self) -> bool:
        """stdout went past what was kept (with ``limit``: git was stopped there)."""
        return self.outcome.output is not None and self.outcome.output.stdout.truncated

    @property
    def output(self) -> str:
        """The tail of stdout and stderr as they arrived (why a command failed)."""
        if self.outcome.output is None:
            return self.outcome.error or ""
        return self.outcome.output.merged.text()

    @property
    def command(self) -> str:
        """``git ARGS`` as a person would type it (for messages)."""
        return " ".join(("git", *self.args))

    def describe(self) -> str:
        """``exit 1`` / ``timed out after 120s`` / ``git not found`` / ``killed by a signal``."""
        if self.missing:
            return "git not found"
        if self.timed_out:
            return f"timed out after {self.timeout or 0:g}s"
        return f"exit {self.code}" if self.code is not None else "killed by a signal"

    def excerpt(self, lines: int = 25) -> str:
        """The last ``lines`` non-empty lines of output (for error messages)."""
        kept = [line for line in self.output.splitlines() if line.strip()]
        return "\n".join(kept[-lines:])


class GitError(Exception):
    """A git command that had to succeed did not; ``detail`` is what git said."""

    def __init__(self, result: GitResult) -> None:
        detail = result.err or result.out
        if result.missing or result.timed_out:
            detail = result.describe()
        super().__init__(f"{result.command}: {detail.strip() or result.describe()}")
        self.detail = detail
        self.result = result


def run(
    cwd: Path | str,
    *args: str,
    check: bool = False,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    timeout: float | None = GIT_TIMEOUT_S,
    limit: int | None = None,
) -> GitResult:
    """``git ARGS`` in ``cwd`` to its end; see the module's policy.

    ``env``: overrides on top of the environment (``GIT_INDEX_FILE``, ``C_LOCALE``);
    ``stdin``: text written to git's stdin; ``timeout``: None only for a command that
    runs the user's hooks; ``limit``: keep this many bytes of stdout and stop git once
    past them. Raises ``GitError`` with ``check`` when git did not succeed,
    ``Interrupted`` when Ctrl-C or SIGTERM stopped it.
    """
    from jlgcli.process.captured import run_captured
    from jlgcli.process.model import Invocation, Limits
    from jlgcli.process.outcome import OutputTail
    from jlgcli.process.spawn import ExecutableNotFound

    kept = OutputTail(GIT_KEEP if limit is None else limit, 0, merged_tail=ERROR_KEEP)
    cut = threading.Event() if limit is not None else None

    def stop_past_limit(_event: object) -> None:
        if cut is not None and kept.stdout.truncated:
            cut.set()  # enough: the rest would be dropped anyway

    inv = Invocation(("git", *args), cwd=str(cwd), env={**BASE_ENV, **(env or {})}, stdin=stdin)
    try:
        outcome = run_captured(
            inv,
            Limits(total_timeout=timeout, kill_grace=KILL_GRACE_S),
            output=kept,
            sinks=() if cut is None else (stop_past_limit,),
            cancel=cut,
        )
    except ExecutableNotFound as missing:
        outcome = ProcessOutcome.not_started(str(missing))
    if outcome.stop_reason is StopReason.CANCELLED and not (cut is not None and cut.is_set()):
        from jlgcli.process.signals import Interrupted

        raise Interrupted(outcome.interrupted_by or signal.SIGINT)
    result = GitResult(tuple(args), outcome, timeout)
    if check and not result.ok:
        raise GitError(result)
    return result
