"""The shared skeleton of the NDJSON stream parsers (claude, codex, copilot, gemini).

``feed`` cuts each stream into lines, cleans terminal escapes (pty transport:
CRLF, colours, trailing reset sequences), decodes JSON objects and hands them
to the adapter's ``on_event``; anything else on stdout is kept as plain text
(the CLIs print some errors outside their JSON channel). ``finish`` flushes a
last unterminated line and classifies the call. Parsers never raise: garbage,
a truncated stream or a timeout become an unsuccessful ``BackendResult``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from jlgcli.ansi import clean_terminal_text
from jlgcli.backends.base import BackendResult, ErrorKind
from jlgcli.backends.common import (
    DEFAULT_TAIL_CHARS,
    LineSplitter,
    TailBuffer,
    find_auth_error,
    find_rate_limit,
    parse_reset_time,
)
from jlgcli.process.model import ProcessOutcome, StopReason, StreamName

_NEEDS_CLEANING = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x9b]")
_NOTE_CHARS = 160


def clean_line(line: str) -> str:
    """A line as a person would read it (escapes removed, CR redraws resolved)."""
    return clean_terminal_text(line) if _NEEDS_CLEANING.search(line) else line


def short(text: str, limit: int = _NOTE_CHARS) -> str:
    """One line, at most ``limit`` characters (for live tool notes)."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class JsonStreamParser:
    """Base of the NDJSON parsers; subclasses implement ``on_event`` and ``classify``."""

    cli = "agent"  # the CLI's name, for messages
    output_format = "JSON events"

    def __init__(self, *, tail_chars: int = DEFAULT_TAIL_CHARS) -> None:
        self._splitters: dict[str, LineSplitter] = {
            "stdout": LineSplitter(),
            "stderr": LineSplitter(),
        }
        self.output_tail = TailBuffer(tail_chars)  # raw output of both streams
        self.error_text = TailBuffer(16 * 1024)  # stderr, plain stdout and error events
        self.plain_stdout = TailBuffer(16 * 1024)  # stdout lines that were not JSON
        self.stderr_lines = TailBuffer(16 * 1024)
        self.events = 0
        self.plain_lines = 0
        self.session_id: str | None = None
        self.cost_usd: float | None = None
        self.input_tokens: int | None = None
        self.output_tokens: int | None = None
        self.rate_limited = False
        self.rate_limit_reset: float | None = None
        self.extra: dict[str, str] = {}

    # -- StreamParser protocol -------------------------------------------------
    def feed(self, stream: StreamName, text: str) -> str:
        """Consume a chunk of one stream; return what to show live."""
        self.output_tail.append(text)
        shown = [self._line(stream, line) for line in self._splitters[stream].feed(text)]
        return "".join(shown)

    def finish(self, outcome: ProcessOutcome) -> BackendResult:
        """Classify the call; never raises."""
        for stream, splitter in self._splitters.items():
            rest = splitter.flush()
            if rest is not None:
                self._line(stream, rest)  # type: ignore[arg-type]
            if splitter.overflows:
                self.plain_lines += splitter.overflows
        try:
            if outcome.stop_reason is not StopReason.EXITED:
                return self._stopped(outcome)
            return self.classify(outcome)
        except Exception as exc:  # a parser bug must not crash the run
            return self.failure(outcome, f"could not read {self.cli}'s output: {exc!r}", "protocol")

    # -- hooks -------------------------------------------------------------------
    def on_event(self, event: dict[str, Any]) -> str:
        """Handle one decoded JSON object; return live text."""
        raise NotImplementedError

    def on_plain_line(self, line: str) -> str:
        """A non-JSON stdout line: shown as is (errors printed outside the JSON channel)."""
        return line + "\n"

    def on_stderr_line(self, line: str) -> str:
        """A stderr line; not shown by default (codex logs there even on success)."""
        return ""

    def classify(self, outcome: ProcessOutcome) -> BackendResult:
        """The result of a call whose process exited by itself."""
        raise NotImplementedError

    # -- helpers for subclasses --------------------------------------------------
    def note_error(self, message: str) -> None:
        """Remember an error message for rate-limit/auth detection and reports."""
        if message:
            self.error_text.append(message.rstrip("\n") + "\n")

    def note_rate_limit(self, text: str | None, reset: float | None = None) -> None:
        """Mark the call rate limited; parse a reset time from ``text`` if none is given."""
        self.rate_limited = True
        if reset is not None:
            self.rate_limit_reset = reset
        elif self.rate_limit_reset is None and text:
            self.rate_limit_reset = parse_reset_time(text)

    def result(
        self,
        outcome: ProcessOutcome,
        *,
        ok: bool,
        text: str,
        error: str | None = None,
        kind: ErrorKind | None = None,
    ) -> BackendResult:
        """A ``BackendResult`` carrying everything gathered so far."""
        if kind == "rate-limit" and not self.rate_limited:
            self.note_rate_limit(error)
        return BackendResult(
            text=text,
            ok=ok,
            exit_code=outcome.exit_code,
            error=error,
            error_kind=kind,
            session_id=self.session_id,
            cost_usd=self.cost_usd,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            rate_limit_reset=self.rate_limit_reset,
            rate_limited=self.rate_limited,
            output_tail=self.output_tail.text(),
            extra=dict(self.extra),
        )

    def failure(
        self, outcome: ProcessOutcome, error: str, kind: ErrorKind, text: str = ""
    ) -> BackendResult:
        """An unsuccessful result; the kind is sharpened by rate-limit/auth text when found."""
        return self.result(outcome, ok=False, text=text, error=error, kind=kind)

    def error_kind_of(self, message: str, default: ErrorKind = "backend") -> ErrorKind:
        """``rate-limit`` or ``auth`` when ``message`` (or earlier error text) says so."""
        haystack = message + "\n" + self.error_text.text()
        limit = find_rate_limit(haystack)
        if limit is not None or self.rate_limited:
            self.note_rate_limit(limit)
            return "rate-limit"
        if find_auth_error(haystack) is not None:
            return "auth"
        return default

    def unfinished(self, outcome: ProcessOutcome, text: str = "") -> BackendResult:
        """No final event: say why as precisely as the output allows."""
        errors = self.error_text.text()
        kind = self.error_kind_of("", default="protocol")
        if kind != "protocol":
            line = find_rate_limit(errors) if kind == "rate-limit" else find_auth_error(errors)
            return self.failure(outcome, line or errors.strip()[-500:], kind, text)
        code = outcome.exit_code
        if self.events:
            message = f"{self.cli}'s event stream ended without its final event (truncated)"
            if self.plain_lines:
                message += f"; last output: {self._last_words(stdout_first=True)}"
        elif self.plain_lines:
            message = f"{self.cli} did not print {self.output_format}: "
            message += self._last_words(stdout_first=True)
        elif code not in (0, None):
            return self.failure(
                outcome,
                f"{self.cli} exited with code {code}: {self._last_words()}",
                "backend",
                text,
            )
        else:
            message = f"{self.cli} exited without any output"
        if code not in (0, None):
            message += f" (exit code {code})"
        return self.failure(outcome, message, "protocol", text)

    def _last_words(self, *, stdout_first: bool = False) -> str:
        first, second = self.stderr_lines.text(), self.plain_stdout.text()
        words = ((second or first) if stdout_first else (first or second)).strip()
        lines = [line for line in words.splitlines() if line.strip()]
        return short(" / ".join(lines[-3:]), 400) if lines else "no output"

    def _stopped(self, outcome: ProcessOutcome) -> BackendResult:
        if outcome.stop_reason is StopReason.CANCELLED:
            return self.result(outcome, ok=False, text="", error=f"{self.cli} was cancelled")
        what = "idle timeout (no output)" if outcome.stop_reason is StopReason.IDLE else "timeout"
        message = f"{self.cli} was stopped by the {what} after {outcome.duration:.0f}s"
        kind: ErrorKind = (
            "rate-limit" if self.error_kind_of("", "timeout") == "rate-limit" else "timeout"
        )
        if kind == "rate-limit":
            message += " while rate limited"
        return self.failure(outcome, message, kind)

    def _line(self, stream: StreamName, raw: str) -> str:
        line = clean_line(raw).strip()
        if not line:
            return ""
        if stream == "stderr":
            self.stderr_lines.append(line + "\n")
            self.note_error(line)
            return self.on_stderr_line(line)
        if line.startswith("{"):
            try:
                event = json.loads(line)
            except ValueError:
                event = None
            if isinstance(event, dict):
                self.events += 1
                try:
                    return self.on_event(event)
                except Exception:  # an event shaped unlike any seen: keep going, never raise
                    self.events -= 1
        self.plain_lines += 1
        self.plain_stdout.append(line + "\n")
        self.note_error(line)
        return self.on_plain_line(line)
