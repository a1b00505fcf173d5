"""Run the dev loop's commands (validation, git) through ``jlgcli.process``.

Argv lists only, never a shell; each child in its own process group with the
process layer's kill ladder. Output is kept bounded: the head of stdout (a
diff is read from its start) and the tail of the interleaved output (an
error excerpt shows the end). Ctrl-C/SIGTERM while a command runs becomes
``jlgcli.process.signals.Interrupted`` (the one for every door) so the
caller can keep its state resumable.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Sequence
from pathlib import Path

from jlgcli.process.model import Invocation, Limits, OutputEvent, ProcessOutcome, StopReason
from jlgcli.process.signals import Interrupted
from jlgcli.records import record

HEAD_LIMIT = 2_000_000  # bytes of stdout kept from the start
TAIL_LIMIT = 64 * 1024  # bytes of interleaved output kept from the end


@record
class CommandResult:
    """One command as the dev loop reads it: its argv and the process outcome."""

    argv: tuple[str, ...]
    outcome: ProcessOutcome

    @property
    def exit_code(self) -> int | None:
        return self.outcome.exit_code

    @property
    def stop(self) -> str:
        """exited | timeout | idle | not-found."""
        if self.outcome.stop_reason is StopReason.FAILED_TO_START:
            return "not-found"
        return str(self.outcome.stop_reason.value)

    @property
    def duration(self) -> float:
        return self.outcome.duration

    @property
    def stdout(self) -> str:
        """The head of stdout, at most HEAD_LIMIT bytes (a diff is read from its start)."""
        return self.outcome.stdout

    @property
    def output(self) -> str:
        """The tail of stdout+stderr as it arrived (error excerpts read the end)."""
        if self.outcome.output is None:
            return self.outcome.error or ""
        return self.outcome.output.merged.text()

    @property
    def truncated(self) -> bool:
        return self.outcome.output is not None and self.outcome.output.stdout.truncated

    @property
    def ok(self) -> bool:
        return self.outcome.ok

    def describe(self) -> str:
        """``exit 1`` / ``timed out`` / ``not found``."""
        if self.stop == "not-found":
            return "command not found"
        if self.outcome.timed_out:
            return "timed out"
        return f"exit {self.exit_code}" if self.exit_code is not None else "killed by a signal"

    def excerpt(self, lines: int = 25) -> str:
        """The last ``lines`` non-empty lines of output (for error messages, FR-8.2)."""
        kept = [line for line in self.output.splitlines() if line.strip()]
        return "\n".join(kept[-lines:])


def stopped() -> Interrupted:
    """The interruption that stopped a child: the signal received first (Ctrl-C when unknown)."""
    from jlgcli.process.signals import first_interruption

    return Interrupted(first_interruption() or signal.SIGINT)


def run_command(
    argv: Sequence[str],
    cwd: Path,
    *,
    timeout: float | None = None,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    on_output: Callable[[str], None] | None = None,
) -> CommandResult:
    """Run ``argv`` in ``cwd`` to its end (or ``timeout``); never raises for a failure exit.

    Raises ``Interrupted`` when Ctrl-C/SIGTERM stopped it.
    """
    from jlgcli.process import ExecutableNotFound, run_captured
    from jlgcli.process.outcome import OutputTail

    args = tuple(argv)
    live: tuple[Callable[[OutputEvent], None], ...] = ()
    if on_output is not None:
        show = on_output
        live = (lambda event: show(event.text),)
    inv = Invocation(argv=args, cwd=str(cwd), stdin=stdin, env=env or {})
    try:
        outcome = run_captured(
            inv,
            Limits(total_timeout=timeout),
            output=OutputTail(HEAD_LIMIT, 0, merged_tail=TAIL_LIMIT),
            sinks=live,
        )
    except ExecutableNotFound:
        return CommandResult(args, ProcessOutcome.not_started(f"{args[0]}: command not found"))
    if outcome.stop_reason is StopReason.CANCELLED:
        raise stopped()
    return CommandResult(args, outcome)
