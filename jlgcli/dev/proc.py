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
from jlgcli.process.result import CommandResult
from jlgcli.process.signals import Interrupted

__all__ = ["CommandResult", "run_command", "stopped"]

HEAD_LIMIT = 2_000_000  # bytes of stdout kept from the start
TAIL_LIMIT = 64 * 1024  # bytes of interleaved output kept from the end


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
