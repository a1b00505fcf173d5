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

from jlgcli.ansi import clean_terminal_text
from jlgcli.backends.base import BackendResult
from jlgcli.backends.common import DEFAULT_TAIL_CHARS, LineSplitter, TailBuffer
from jlgcli.backends.limits import Verdict, classify_error_text
from jlgcli.process.model import ProcessOutcome, StopReason

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    from jlgcli.backends.base import ErrorKind
    from jlgcli.process.model import StreamName

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
        self.plain_stdout = TailBuffer(16 * 1024)  # stdout lines that were not JSON
        self.stderr_lines = TailBuffer(16 * 1024)
        self.events = 0
        self.plain_lines = 0
        self.session_id: str | None = None
        self.cost_usd: float | None = None
        self.cost_is_session_total = False  # see BackendResult
        self.remedy: str | None = None  # see BackendResult
        self.input_tokens: int | None = None
        self.output_tokens: int | None = None
        self.last_error = ""  # the latest error event (not retry notices)
        self.extra: dict[str, str] = {}
        self.denials: list[dict[str, str]] = []  # tool uses the CLI denied (issue 34)
        self.question: str | None = None  # asked through the CLI's own tool (issue 51)

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
        """Remember the latest error event: the cause when the stream ends without a final event.

        Retry notices (claude ``api_retry``, codex "Reconnecting... 1/5") are not
        errors: adapters do not note them, so a later unrelated failure is never
        blamed on a retry that succeeded (issue 16).
        """
        if message.strip():
            self.last_error = message.strip()

    def denied(self, tool: str, target: str) -> None:
        """Remember a tool use the CLI refused for want of permission (once per tool/target)."""
        entry = {"tool": tool or "tool", "target": short(target, 200)}
        if entry not in self.denials and len(self.denials) < 50:
            self.denials.append(entry)

    def tool_called(self, name: object, arguments: object) -> None:
        """A tool call: one that asks the user (``backends.asks``) is the agent's question."""
        from jlgcli.backends.asks import tool_question  # tool calls only (issue 49)

        asked = tool_question(name, arguments)
        if asked is not None:
            self.question = asked if self.question is None else f"{self.question}\n{asked}"

    def result(
        self,
        outcome: ProcessOutcome,
        *,
        ok: bool,
        text: str,
        error: str | None = None,
        kind: ErrorKind | None = None,
        reset: float | None = None,
    ) -> BackendResult:
        """A ``BackendResult`` carrying everything gathered so far.

        ``rate_limited`` is exactly ``kind == "rate-limit"``: a successful call is
        never rate limited, whatever limit events came before it.
        """
        limited = kind == "rate-limit"
        return BackendResult(
            text=text,
            ok=ok,
            exit_code=outcome.exit_code,
            error=error,
            error_kind=kind,
            session_id=self.session_id,
            cost_usd=self.cost_usd,
            cost_is_session_total=self.cost_is_session_total,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            rate_limit_reset=reset if limited else None,
            rate_limited=limited,
            output_tail=self.output_tail.text(),
            extra=dict(self.extra),
            denials=tuple(self.denials),
            remedy=self.remedy,
            question=self.question,
        )

    def failure(
        self,
        outcome: ProcessOutcome,
        error: str,
        kind: ErrorKind,
        text: str = "",
        reset: float | None = None,
    ) -> BackendResult:
        """An unsuccessful result of a known kind."""
        return self.result(outcome, ok=False, text=text, error=error, kind=kind, reset=reset)

    def verdict_failure(
        self, outcome: ProcessOutcome, verdict: Verdict, error: str | None = None, text: str = ""
    ) -> BackendResult:
        """An unsuccessful result a limit/quota/auth verdict decided (an account state's
        remedy is the CLI's own words, unless the CLI gave one apart)."""
        if verdict.kind == "account" and self.remedy is None:
            self.remedy = short(error or verdict.line, 500)
        return self.failure(outcome, error or verdict.line, verdict.kind, text, verdict.reset)

    def failure_from(
        self, outcome: ProcessOutcome, message: str, default: ErrorKind = "backend", text: str = ""
    ) -> BackendResult:
        """A failure whose kind comes from ``message`` (the event that ended the turn) alone."""
        flat = short(message, 500)
        verdict = classify_error_text(message)
        if verdict is not None:
            return self.verdict_failure(outcome, verdict, flat, text)
        return self.failure(outcome, flat, default, text)

    def unfinished(self, outcome: ProcessOutcome, text: str = "") -> BackendResult:
        """No final event: say why as precisely as the output allows.

        With no event at all, the CLI failed in plain text (stderr/stdout): that
        text is classified. With events, only the last error event counts (or,
        with none and a failed exit, the last lines of stderr).
        """
        said = self.last_error if self.events else self._plain_text()
        if self.events and not said and outcome.exit_code not in (0, None):
            said = self._last_stderr_lines()  # a fatal error printed outside the JSON channel
        verdict = classify_error_text(said)
        if verdict is not None:
            return self.verdict_failure(outcome, verdict, text=text)
        code = outcome.exit_code
        if self.events:
            message = f"{self.cli}'s event stream ended without its final event (truncated)"
            if self.last_error:
                message += f"; last error: {short(self.last_error, 300)}"
            elif self.plain_lines:
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

    def _last_stderr_lines(self, count: int = 8) -> str:
        return "\n".join(self.stderr_lines.text().strip().splitlines()[-count:])

    def _plain_text(self) -> str:
        return self.stderr_lines.text() + "\n" + self.plain_stdout.text()

    def _last_words(self, *, stdout_first: bool = False) -> str:
        first, second = self.stderr_lines.text(), self.plain_stdout.text()
        words = ((second or first) if stdout_first else (first or second)).strip()
        lines = [line for line in words.splitlines() if line.strip()]
        return short(" / ".join(lines[-3:]), 400) if lines else "no output"

    def _stopped(self, outcome: ProcessOutcome) -> BackendResult:
        if outcome.stop_reason is StopReason.FAILED_TO_START:
            return self.failure(outcome, outcome.error or f"{self.cli} cannot start", "backend")
        if outcome.stop_reason is StopReason.CANCELLED:
            return self.result(outcome, ok=False, text="", error=f"{self.cli} was cancelled")
        what = "idle timeout (no output)" if outcome.stop_reason is StopReason.IDLE else "timeout"
        message = f"{self.cli} was stopped by the {what} after {outcome.duration:.0f}s"
        # Stopped while the CLI was saying it is limited: that is why it made no progress.
        verdict = classify_error_text(self.last_error)
        if verdict is not None and verdict.kind == "rate-limit":
            return self.verdict_failure(outcome, verdict, message + " while rate limited")
        return self.failure(outcome, message, "timeout")

    def _line(self, stream: StreamName, raw: str) -> str:
        line = clean_line(raw).strip()
        if not line:
            return ""
        if stream == "stderr":
            self.stderr_lines.append(line + "\n")
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
        return self.on_plain_line(line)
