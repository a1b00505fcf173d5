"""A run's transcript as a person reads it (``jlgcli runs log``, the dashboard; issue 51).

The transcript keeps each backend's raw stream (claude/gemini ``stream-json``,
codex ``--json``, copilot's JSON events, a command's plain text). It is read
back through the same adapter that showed it live, so the log shows what the
terminal showed: the assistant's text as text, each tool call on one line
(``[tool] Bash ls``), plus how each tool call went (``backends.tool_results``)
and one short usage line per iteration. Iterations start with a header.

Every line is stripped of terminal control sequences (what an agent printed never
drives the terminal) and redacted once more (what is read from disk is input: a
transcript kept by an older jlgcli, or copied from elsewhere, is masked too).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from jlgcli.ansi import clean_terminal_text, terminal_safe
from jlgcli.artifacts.transcript_bound import CUT_TYPE

if TYPE_CHECKING:
    from jlgcli.backends.base import StreamParser

RULE = "──"


def readable_lines(
    records: Iterable[dict[str, Any]],
    *,
    backend: str | None = None,
    iteration: int | None = None,
) -> Iterator[str]:
    """Lines for a person from transcript ``records`` (``artifacts.transcript_read``).

    ``backend``: the run's backend, for records before any iteration header names
    one (an older transcript, or one whose start was cut). ``iteration``: only that one.
    """
    return (line for _, line in readable_entries(records, backend=backend, iteration=iteration))


def readable_entries(
    records: Iterable[dict[str, Any]],
    *,
    backend: str | None = None,
    iteration: int | None = None,
) -> Iterator[tuple[int | None, str]]:
    """``readable_lines`` with the iteration of each line (None: before any header)."""
    from jlgcli.artifacts.redact import Redactor

    redactor = Redactor()
    view = _View(backend)
    for record in records:
        for line in view.feed(record):
            if iteration is None or view.iteration == iteration:
                yield view.iteration, redactor.redact(line)
    for line in view.flush():
        if iteration is None or view.iteration == iteration:
            yield view.iteration, redactor.redact(line)


class _View:
    """The state of one reading: the current iteration, its parser, partial lines."""

    def __init__(self, backend: str | None) -> None:
        self.default_backend = backend
        self.iteration: int | None = None
        self.parser: StreamParser | None = None
        self.pending: dict[str, str] = {}  # each stream's unterminated line
        self.shown = ""  # the parser's unterminated text

    def feed(self, record: dict[str, Any]) -> Iterator[str]:
        kind = record.get("type")
        if kind in ("stdout", "stderr"):
            text = record.get("text")
            if isinstance(text, str):
                yield from self._output(str(kind), text)
        elif kind == "iteration-start":
            yield from self.flush()
            number = record.get("iteration")
            self.iteration = number if isinstance(number, int) else None
            name = record.get("backend")
            backend = name if isinstance(name, str) else self.default_backend
            self.parser = _parser(backend)
            yield _header(self.iteration, backend)
        elif kind == "iteration-end":
            yield from self.flush()
            yield _usage(record)
        elif kind == CUT_TYPE:
            yield _cut(record)

    def flush(self) -> Iterator[str]:
        """The unterminated lines held back (an iteration's last words)."""
        for stream, rest in list(self.pending.items()):
            if rest:
                yield from self._line(stream, rest)
        self.pending.clear()
        shown, self.shown = self.shown, ""
        yield from _cleaned(shown)

    def _output(self, stream: str, text: str) -> Iterator[str]:
        lines = (self.pending.get(stream, "") + text).split("\n")
        self.pending[stream] = lines.pop()
        for line in lines:
            yield from self._line(stream, line)

    def _line(self, stream: str, line: str) -> Iterator[str]:
        if self.parser is None:
            self.parser = _parser(self.default_backend)
        shown = self.parser.feed(stream, line + "\n")  # type: ignore[arg-type]
        if stream == "stdout" and line.lstrip().startswith("{"):
            note = _tool_note(line)
            if note:
                shown += note + "\n"
        # Streamed text (gemini's and copilot's deltas) comes in pieces: whole lines only.
        lines = (self.shown + shown).split("\n")
        self.shown = lines.pop()
        yield from _cleaned("\n".join(lines))


def _cleaned(text: str) -> Iterator[str]:
    """The non-empty lines of ``text``, without control sequences."""
    for part in text.splitlines():
        clean = terminal_safe(clean_terminal_text(part)).rstrip()
        if clean:
            yield clean


def _parser(backend: str | None) -> StreamParser:
    """The live parser of ``backend``; plain text for a custom or unknown one."""
    from jlgcli.backends.command import CommandParser
    from jlgcli.backends.registry import BUILTINS

    if backend in BUILTINS:
        return BUILTINS[backend]().parser()
    return CommandParser(backend or "command", clean=True)


def _tool_note(line: str) -> str | None:
    from jlgcli.backends.tool_results import tool_result_note

    try:
        event = json.loads(line)
    except ValueError:
        return None
    return tool_result_note(event) if isinstance(event, dict) else None


def _header(number: int | None, backend: str | None) -> str:
    shown = "?" if number is None else str(number)
    return f"{RULE} iteration {shown}" + (f" · {_safe(backend)} " if backend else " ") + RULE * 8


def _usage(record: dict[str, Any]) -> str:
    """``· exit 0 · 824 in / 14 out tokens · $0.0246`` (what the record knows)."""
    parts = []
    code = record.get("exitCode")
    if isinstance(code, int):
        parts.append(f"exit {code}")
    reason = record.get("stopReason")
    if isinstance(reason, str) and reason not in ("exited", ""):
        parts.append(_safe(reason))
    tokens_in, tokens_out = record.get("inputTokens"), record.get("outputTokens")
    if isinstance(tokens_in, int) and isinstance(tokens_out, int):
        parts.append(f"{tokens_in} in / {tokens_out} out tokens")
    cost = record.get("costUsd")
    if isinstance(cost, (int, float)) and not isinstance(cost, bool):
        parts.append(f"${cost:.4f}")
    return "· " + " · ".join(parts) if parts else "·"


def _cut(record: dict[str, Any]) -> str:
    dropped = record.get("droppedBytes")
    size = f"{dropped / (1024 * 1024):.1f} MB" if isinstance(dropped, int) else "some"
    if record.get("whileFollowing"):
        return f"[… {size} of output were cut before they could be shown]"
    return f"[… {size} of older output were dropped: the transcript keeps the newest part]"


def _safe(text: str) -> str:
    return " ".join(terminal_safe(clean_terminal_text(text)).split())
