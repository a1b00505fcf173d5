"""A command run to its end, as its caller reads it: the argv asked and the process outcome.

``CommandResult`` is what ``jlgcli.process.git.run`` (every git command) and the dev
loop's commands (validation, ``jlgcli.dev.proc.run_command``) return: the outcome of
``run_captured`` (whose output is a bounded head of each stream and the tail of both
interleaved) with the words a message about it needs.
"""

from __future__ import annotations

from jlgcli.process.model import ProcessOutcome, StopReason
from jlgcli.records import record


@record
class CommandResult:
    """One command run to its end: its argv and the process outcome."""

    argv: tuple[str, ...]
    outcome: ProcessOutcome

    @property
    def ok(self) -> bool:
        return self.outcome.ok

    @property
    def exit_code(self) -> int | None:
        """None when the command was killed, timed out or never started."""
        return self.outcome.exit_code

    @property
    def stdout(self) -> str:
        """The kept head of stdout (a diff is read from its start)."""
        return self.outcome.stdout

    @property
    def stderr(self) -> str:
        return self.outcome.stderr

    @property
    def answer(self) -> str | None:
        """stdout stripped when the command succeeded, None otherwise (a question's answer)."""
        return self.outcome.stdout.strip() if self.outcome.ok else None

    @property
    def missing(self) -> bool:
        """The program was not found (or could not be started)."""
        return self.outcome.stop_reason is StopReason.FAILED_TO_START

    @property
    def stop(self) -> str:
        """exited | timeout | idle | cancelled | not-found."""
        return "not-found" if self.missing else str(self.outcome.stop_reason.value)

    @property
    def timed_out(self) -> bool:
        return self.outcome.timed_out

    @property
    def duration(self) -> float:
        return self.outcome.duration

    @property
    def truncated(self) -> bool:
        """stdout went past what was kept."""
        return self.outcome.output is not None and self.outcome.output.stdout.truncated

    @property
    def output(self) -> str:
        """The tail of stdout and stderr as they arrived (error excerpts read the end)."""
        if self.outcome.output is None:
            return self.outcome.error or ""
        return self.outcome.output.merged.text()

    @property
    def command(self) -> str:
        """The argv as a person would type it (for messages)."""
        return " ".join(self.argv)

    def describe(self) -> str:
        """``exit 1`` / ``timed out`` / ``command not found`` / ``killed by a signal``."""
        if self.missing:
            return "command not found"
        if self.timed_out:
            return "timed out"
        return f"exit {self.exit_code}" if self.exit_code is not None else "killed by a signal"

    def excerpt(self, lines: int = 25) -> str:
        """The last ``lines`` non-empty lines of output (for error messages, FR-8.2)."""
        kept = [line for line in self.output.splitlines() if line.strip()]
        return "\n".join(kept[-lines:])
