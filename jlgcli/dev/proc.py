"""Run the dev loop's commands (validation, git) through ``jlgcli.process``.

Argv lists only, never a shell; each child in its own process group with the
process layer's kill ladder. Output is kept bounded: the head of stdout (a
diff is read from its start) and the tail of the interleaved output (an
error excerpt shows the end). Ctrl-C/SIGTERM while a command runs becomes
``Interrupted`` so the caller can keep its state resumable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from jlgcli.backends.common import TailBuffer
from jlgcli.process.model import Invocation, Limits, OutputEvent, StopReason

HEAD_LIMIT = 2_000_000  # characters of stdout kept from the start
TAIL_LIMIT = 64 * 1024  # characters of interleaved output kept from the end


class Interrupted(Exception):  # noqa: N818 - it is an event, not an error
    """Ctrl-C or SIGTERM stopped a child; the run must stop and stay resumable."""


@dataclass(frozen=True)
class CommandResult:
    """What one command did."""

    argv: tuple[str, ...]
    exit_code: int | None
    stop: str  # exited | timeout | idle | not-found
    duration: float
    stdout: str  # head of stdout, at most HEAD_LIMIT characters
    output: str  # tail of stdout+stderr as it arrived
    truncated: bool = False

    @property
    def ok(self) -> bool:
        return self.stop == "exited" and self.exit_code == 0

    def describe(self) -> str:
        """``exit 1`` / ``timed out`` / ``not found``."""
        if self.stop == "not-found":
            return "command not found"
        if self.stop in ("timeout", "idle"):
            return "timed out"
        return f"exit {self.exit_code}" if self.exit_code is not None else "killed by a signal"

    def excerpt(self, lines: int = 25) -> str:
        """The last ``lines`` non-empty lines of output (for error messages, FR-8.2)."""
        kept = [line for line in self.output.splitlines() if line.strip()]
        return "\n".join(kept[-lines:])


class _Collector:
    def __init__(self, on_output: Callable[[str], None] | None) -> None:
        self.head: list[str] = []
        self.head_size = 0
        self.truncated = False
        self.tail = TailBuffer(TAIL_LIMIT)
        self.on_output = on_output

    def __call__(self, event: OutputEvent) -> None:
        self.tail.append(event.text)
        if self.on_output is not None:
            self.on_output(event.text)
        if event.stream != "stdout":
            return
        room = HEAD_LIMIT - self.head_size
        if room <= 0:
            self.truncated = self.truncated or bool(event.text)
            return
        piece = event.text[:room]
        self.truncated = self.truncated or len(piece) < len(event.text)
        self.head.append(piece)
        self.head_size += len(piece)


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
    from jlgcli.process import ExecutableNotFound, run_invocation

    args = tuple(argv)
    collect = _Collector(on_output)
    inv = Invocation(argv=args, cwd=str(cwd), stdin=stdin, env=env or {})
    try:
        outcome = run_invocation(inv, limits=Limits(total_timeout=timeout), sinks=[collect])
    except ExecutableNotFound:
        return CommandResult(args, None, "not-found", 0.0, "", f"{args[0]}: command not found")
    if outcome.stop_reason is StopReason.CANCELLED:
        raise Interrupted(" ".join(args))
    return CommandResult(
        args,
        outcome.exit_code,
        outcome.stop_reason.value,
        outcome.duration,
        "".join(collect.head),
        collect.tail.text(),
        collect.truncated,
    )
