"""git, the one way jlgcli runs it: one function, one result type, one time limit.

``run`` returns a ``CommandResult`` (``jlgcli.process.result``), the result type the
dev loop's other commands have too.

Every git command of every mode (a loop's snapshots, a batch's worktrees and merges,
the dev loop's diff and commit, the pre-commit hook's change, the sandbox's git dirs)
is ``run(cwd, *args)``: an argv list through ``run_captured`` (the one place that
spawns: own process group, the kill ladder at the limit), never a shell.

The policy, the same for every caller:

* time: ``GIT_TIMEOUT_S`` bounds git's own work (a hang is a lock held by another git,
  or a filesystem gone away), stopped with a short kill ladder; a command that runs the
  user's hooks (``hooks=True``: a commit without ``--no-verify``, whose hooks may run a
  test suite) has no time limit, and the hooks get the usual ladder's grace on Ctrl-C;
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
from jlgcli.process.result import CommandResult

GIT_TIMEOUT_S = 120.0
GIT_KEEP = 2_000_000  # bytes of stdout kept from its start
ERROR_KEEP = 64 * 1024  # bytes kept of stdout and stderr interleaved, from their end
KILL_GRACE_S = 0.5  # between the rungs of the kill ladder: git ends at once on a signal
BASE_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat"}
C_LOCALE = {"LC_ALL": "C"}  # git's messages and lists in one language, read by the caller


class GitError(Exception):
    """A git command that had to succeed did not; ``detail`` is what git said."""

    def __init__(self, result: CommandResult) -> None:
        detail = result.stderr or result.stdout
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
    limit: int | None = None,
    hooks: bool = False,
    timeout: float = GIT_TIMEOUT_S,
) -> CommandResult:
    """``git ARGS`` in ``cwd`` to its end; see the module's policy.

    ``env``: overrides on top of the environment (``GIT_INDEX_FILE``, ``C_LOCALE``);
    ``stdin``: text written to git's stdin; ``limit``: keep this many bytes of stdout
    and stop git once past them; ``hooks``: the command runs the user's hooks (no time
    limit); ``timeout``: git's own limit. Raises ``GitError`` with ``check`` when git did
    not succeed, ``Interrupted`` when Ctrl-C or SIGTERM stopped it.
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
            Limits(None) if hooks else Limits(total_timeout=timeout, kill_grace=KILL_GRACE_S),
            output=kept,
            sinks=() if cut is None else (stop_past_limit,),
            cancel=cut,
        )
    except ExecutableNotFound as missing:
        outcome = ProcessOutcome.not_started(str(missing))
    if outcome.stop_reason is StopReason.CANCELLED and not (cut is not None and cut.is_set()):
        from jlgcli.process.signals import Interrupted

        raise Interrupted(outcome.interrupted_by or signal.SIGINT)
    result = CommandResult(("git", *args), outcome)
    if check and not result.ok:
        raise GitError(result)
    return result
