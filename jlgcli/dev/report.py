"""What the dev loop prints, by verbosity (FR-7).

* normal: ``[3/8] Implement → context/implementation-notes.md`` step headers,
  a summary line after each step, warnings, errors (FR-7.1);
* verbose: also the full prompts and agent replies, file operations and
  validation output (FR-7.2);
* quiet: only errors (questions are written by ``questions.Asker``) (FR-7.3).

Progress goes to ``out`` (stdout, or stderr when stdout carries JSON);
errors always go to ``err``. Characters the console cannot encode (an old
Windows code page) are replaced instead of crashing the run.

Everything goes out as ``run``/``loop``'s console writes it (issue 32): through
the redactor (live text through a stream redactor, so a key split across reads
is still caught) and without terminal control sequences other than colours
(``ansi.terminal_safe``: no OSC 52 clipboard write reaches the terminal).
"""

from __future__ import annotations

import sys
from typing import Literal, TextIO

from jlgcli.ansi import terminal_safe
from jlgcli.artifacts.redact import Redacted, Redactor

Level = Literal["quiet", "normal", "verbose"]
STEP_NAMES: tuple[str, ...] = (
    "Select Task",
    "Load Task",
    "Implement",
    "Validation",
    "Review Loop",
    "Integration Check",
    "Update Documentation",
    "Commit",
)


def can_encode(text: str, encoding: str | None) -> bool:
    """Can a stream with this encoding print ``text``?"""
    try:
        text.encode(encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def arrow_for(encoding: str | None) -> str:
    """``→`` when the console can print it, else ``->`` (cp1252/cp437 Windows consoles)."""
    return "→" if can_encode("→", encoding) else "->"


class Reporter:
    """Prints progress according to the verbosity level."""

    def __init__(
        self, level: Level = "normal", out: TextIO | None = None, err: TextIO | None = None
    ) -> None:
        self.level = level
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.arrow = arrow_for(getattr(self.out, "encoding", None))
        self._redactor = Redactor()
        self._live = self._redactor.stream()

    @property
    def verbose(self) -> bool:
        return self.level == "verbose"

    def step(self, number: int, target: str = "") -> None:
        """The header of a step: ``[3/8] Implement → context/implementation-notes.md``."""
        name = STEP_NAMES[number - 1]
        suffix = f" {self.arrow} {target}" if target else ""
        self._emit(self.out, f"[{number}/8] {name}{suffix}", "normal")

    def say(self, message: str) -> None:
        """A top-level line, like a step header (normal and verbose)."""
        self._emit(self.out, message, "normal")

    def info(self, message: str) -> None:
        """A summary or status line (normal and verbose)."""
        self._emit(self.out, f"  {message}", "normal")

    def warn(self, message: str) -> None:
        """A warning (normal and verbose; FR-2.1 puts them on stdout)."""
        self._emit(self.out, f"warning: {message}", "normal")

    def error(self, message: str) -> None:
        """An error the run survives (always shown, on stderr)."""
        self._emit(self.err, f"error: {message}", "quiet")

    def file_op(self, operation: str, path: str) -> None:
        """A file read/write/copy/delete (verbose only)."""
        self._emit(self.out, f"  [{operation}] {path}", "verbose")

    def detail(self, title: str, text: str) -> None:
        """A full prompt, reply or command output (verbose only)."""
        if self.verbose:
            bar = "-" * 20
            body = text if text.endswith("\n") else text + "\n"
            self._write(self.out, f"{bar} {title} {bar}\n{body}{bar} end of {title} {bar}\n")

    def live(self, text: str) -> None:
        """Agent or command output as it arrives (verbose only)."""
        if self.verbose and text:
            self._show(self.out, self._live.feed_text(text))

    def end_live(self) -> None:
        """Write what the live stream held back (a last line without its newline)."""
        if self._live.pending:
            self._show(self.out, self._live.flush_text())

    def _emit(self, stream: TextIO, line: str, minimum: Level) -> None:
        order = {"quiet": 0, "normal": 1, "verbose": 2}
        if order[self.level] >= order[minimum]:
            self._write(stream, line + "\n")

    def _write(self, stream: TextIO, text: str) -> None:
        self.end_live()
        self._show(stream, self._redactor.redact(text))

    def _show(self, stream: TextIO, text: Redacted) -> None:
        shown = terminal_safe(text)
        if not shown:
            return
        encoding = getattr(stream, "encoding", None)
        if encoding and not can_encode(shown, encoding):
            shown = shown.encode(encoding, "replace").decode(encoding)
        stream.write(shown)
        stream.flush()
