"""What a person sees while a run goes: live assistant text, progress, warnings, countdowns.

stdout carries the assistant's text (or, with ``--json``, nothing but the final
JSON object — then the live text goes to stderr); progress goes to stderr.
Verbosity: 0 quiet (summary and errors; ``run`` still prints its final answer on
stdout), 1 normal, 2 verbose, 3 debug.

Everything written is redacted (issue 15), once (issue 32): what the agent
wrote (``assistant``, ``final``, ``summary``) is ``Redacted`` already — redacted
where it was created (``runner.iteration.call_backend`` redacts the parsed text
as a stream: a secret split across two reads or two JSON deltas is still
caught, a partial line waits for its newline) — and mypy --strict refuses a
``str`` there; every line jlgcli itself prints (``progress``, ``warn``, a status
line) is redacted here, where it is composed. What the agent printed reaches the
terminal without control sequences other than SGR colours (no OSC 52 clipboard
writes, titles, screen clears); the transcript keeps the raw bytes.
"""

from __future__ import annotations

import sys

from jlgcli.ansi import terminal_safe
from jlgcli.artifacts.redact import Redacted, Redactor

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import TextIO


class Console:
    """Verbosity-aware output for one run."""

    def __init__(
        self,
        verbosity: int = 1,
        *,
        json_mode: bool = False,
        out: TextIO | None = None,
        err: TextIO | None = None,
        redactor: Redactor | None = None,
    ) -> None:
        self.verbosity = verbosity
        self.json_mode = json_mode
        self._err = err if err is not None else sys.stderr
        self._live = self._err if json_mode else (out if out is not None else sys.stdout)
        self._live_ended_with_newline = True
        self._status_shown = False
        self._redactor = redactor if redactor is not None else Redactor()

    def assistant(self, text: Redacted) -> None:
        """Live assistant text (verbosity ≥ 1), redacted by the caller; control sequences
        removed."""
        if text and self.verbosity >= 1:
            self._write_live(text)

    def final(self, text: Redacted) -> None:
        """The assistant's final text on stdout when nothing was streamed there (``run -q``:
        less logging, still the answer; seed 000 F-003, seed 001 US-4, issue 31)."""
        if self.verbosity >= 1 or self._live is self._err or not text.strip():
            return
        shown = terminal_safe(text).rstrip("\n")
        self._live.write(shown + "\n")
        self._live.flush()

    def _write_live(self, text: str) -> None:
        shown = terminal_safe(text)
        if shown:
            self.clear_status()
            self._live.write(shown)
            self._live.flush()
            self._live_ended_with_newline = shown.endswith("\n")

    def _line(self, message: str) -> None:
        message = terminal_safe(self._redactor.redact(message))
        self.clear_status()
        if not self._live_ended_with_newline and self._live is self._err:
            self._err.write("\n")
            self._live_ended_with_newline = True
        self._err.write(message + "\n")
        self._err.flush()

    def is_terminal(self) -> bool:
        """stderr is a terminal: a status line can be redrawn in place there."""
        isatty = getattr(self._err, "isatty", None)
        return bool(isatty and isatty())

    def status(self, text: str) -> None:
        """One status line redrawn in place on a terminal (verbosity ≥ 1; never on stdout)."""
        if self.verbosity < 1:
            return
        if not self._live_ended_with_newline and self._live is self._err:
            return  # the agent is mid-line on this same stream: do not break its text
        self._err.write("\r\x1b[K" + terminal_safe(self._redactor.redact(text)))
        self._err.flush()
        self._status_shown = True

    def clear_status(self) -> None:
        """Erase the status line before anything else is written."""
        if self._status_shown:
            self._status_shown = False
            self._err.write("\r\x1b[K")
            self._err.flush()

    def end_live(self) -> None:
        """Finish a live block with a newline so progress lines start clean."""
        if not self._live_ended_with_newline:
            self._live.write("\n")
            self._live.flush()
            self._live_ended_with_newline = True

    def progress(self, message: str) -> None:
        """``[jlgcli] …`` on stderr (verbosity ≥ 1)."""
        if self.verbosity >= 1:
            self._line(f"[jlgcli] {message}")

    def detail(self, message: str) -> None:
        """Verbose details (verbosity ≥ 2)."""
        if self.verbosity >= 2:
            self._line(f"[jlgcli] {message}")

    def debug(self, message: str) -> None:
        """Debug details such as kill-ladder steps (verbosity ≥ 3)."""
        if self.verbosity >= 3:
            self._line(f"[jlgcli:debug] {message}")

    def warn(self, message: str) -> None:
        """Always shown; the word ``warning:`` coloured on a terminal."""
        from jlgcli.colour import Palette

        self._line(f"{Palette(self._err, json_output=False).warning('warning:')} {message}")

    def summary(self, text: Redacted) -> None:
        """The human summary (redacted by the caller: ``human_summary`` of a redacted
        summary), always on stderr."""
        self.end_live()
        self._err.write(terminal_safe(text))
        self._err.flush()
