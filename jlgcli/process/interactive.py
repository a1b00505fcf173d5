"""The interactive driver: type a prompt into a terminal program and end it when done.

A state machine the run loop feeds with output and time, so every byte still
flows to the sinks and every wait has a deadline (``step_timeout``):
wait for ``ready_pattern`` → send prompt + ``submit_sequence`` → wait for
``done_pattern`` or ``idle_seconds`` of silence → send ``exit_sequence`` →
wait for the program to exit. Patterns are matched on the cleaned text
(escapes removed, ``\\r`` redraws resolved) of a bounded window of recent output,
in MULTILINE mode (``^`` / ``$`` match at line boundaries).

Only the reply counts as done (issue 17): the window starts when the prompt is
sent, and when the prompt itself matches the done pattern (completion
instructions that show ``DONE``), the program's echo of the prompt is skipped:
a match counts only after the echo's last line (``echo_end``); an echo cut
short counts by number (more matches than the prompt has). A multi-line
prompt is typed with the recipe's ``newline_sequence``, else as one bracketed
paste when the program turned paste mode on (``ESC[?2004h``, seen before the
prompt is typed: a ``ready_pattern`` gives it the time), else as one line
(its lines joined by spaces): never with raw newlines, and never a paste a
line-based program would read as a literal ``ESC[200~`` (issue 34).

The reply (``reply``) is what the program printed between the prompt's echo
and the end of the done match, cleaned: not the whole screen with its prompt
redraw and exit message (issue 34).
"""

from __future__ import annotations

import enum
import re

from jlgcli.ansi import clean_terminal_text
from jlgcli.process.model import InteractiveRecipe
from jlgcli.records import record

_WINDOW = 16384  # characters of recent output searched for a pattern
_FRAGMENT = 32  # characters of the prompt's first/last line that identify its echo
_REPLY = 262144  # characters of output kept for the reply
PASTE_START, PASTE_END = b"\x1b[200~", b"\x1b[201~"
PASTE_ON, PASTE_OFF = "\x1b[?2004h", "\x1b[?2004l"


class Step(str, enum.Enum):
    READY = "waiting for the ready pattern"
    DONE = "waiting for the done pattern"
    EXIT = "waiting for the program to exit"
    FINISHED = "finished"


@record
class Action:
    """What the run loop must do after ``poll``: send bytes, stop the tree, or give up."""

    send: bytes = b""
    finish: bool = False  # the work is done; end the program (it did not exit by itself)
    timed_out: str | None = None  # a step missed its deadline (message for the log)


class InteractiveDriver:
    """Drives one ``InteractiveRecipe``; ``prompt`` is the invocation's stdin text."""

    def __init__(self, recipe: InteractiveRecipe, prompt: bytes, *, now: float) -> None:
        self._recipe = recipe
        self._raw_prompt = prompt
        self._prompt = b""
        self._ready = _compile(recipe.ready_pattern)
        self._done = _compile(recipe.done_pattern)
        self._echo: list[str] | None = None
        self._echo_matches = 0
        self._paste_mode = False
        self._window = ""
        self._reply_raw = ""
        self._prompt_lines: list[str] = []
        self.reply: str | None = None
        self.step = Step.READY
        self._deadline = now + recipe.step_timeout
        self._pending_send = b""
        self._prompt_sent_at = now
        if self._ready is None:
            self._send_prompt(now)

    def feed(self, text: str) -> None:
        """Remember recent output (only what arrived in the current step)."""
        if self.step in (Step.READY, Step.DONE):
            self._window = (self._window + text)[-_WINDOW:]
        if self.step is Step.READY and (PASTE_ON in text or PASTE_OFF in text):
            self._paste_mode = text.rfind(PASTE_ON) > text.rfind(PASTE_OFF)
        elif self.step is Step.DONE:
            self._reply_raw = (self._reply_raw + text)[-_REPLY:]

    def poll(self, now: float, last_output: float) -> Action:
        """Advance on what was seen so far; called after every read."""
        send, self._pending_send = self._pending_send, b""
        if self.step is Step.READY and self._matches(self._ready):
            self._send_prompt(now)
            send, self._pending_send = send + self._pending_send, b""
        if self.step is Step.DONE and self._is_done(now, last_output):
            return self._after_done(now, send)
        if self.step is not Step.FINISHED and now >= self._deadline:
            step = self.step.value
            self.step = Step.FINISHED
            if step == Step.EXIT.value:
                return Action(send=send, finish=True)
            return Action(
                send=send, timed_out=f"interactive: {step} for {self._recipe.step_timeout:g} s"
            )
        return Action(send=send)

    def next_deadline(self, last_output: float) -> float | None:
        """When ``poll`` must run again even without output."""
        if self.step is Step.FINISHED:
            return None
        if self.step is Step.DONE and self._recipe.idle_seconds is not None:
            return min(self._deadline, last_output + self._recipe.idle_seconds)
        return self._deadline

    def _send_prompt(self, now: float) -> None:
        recipe = self._recipe
        self._prompt = typed_prompt(self._raw_prompt, recipe.newline_sequence,
                                    paste=self._paste_mode)  # fmt: skip
        shown = self._raw_prompt
        if b"\n" in shown.strip() and recipe.newline_sequence is None and not self._paste_mode:
            shown = self._prompt  # typed as one line: its echo is that line
        text = shown.decode("utf-8", "replace")
        self._echo = _echo_lines(shown, self._done)
        self._echo_matches = len(self._done.findall(text)) if self._done else 0
        self._prompt_lines = [
            line.strip()[:_FRAGMENT] for line in text.splitlines() if line.strip()
        ]
        self._pending_send += self._prompt + recipe.submit_sequence.encode("utf-8")
        self._enter(Step.DONE, now)
        self._prompt_sent_at = now

    def _is_done(self, now: float, last_output: float) -> bool:
        if self._reply_matches_done():
            return True
        idle = self._recipe.idle_seconds
        return idle is not None and now - max(last_output, self._prompt_sent_at) >= idle

    def _after_done(self, now: float, send: bytes) -> Action:
        self.reply = self._reply_text()
        if self._recipe.exit_sequence is None:
            self.step = Step.FINISHED
            return Action(send=send, finish=True)
        self._enter(Step.EXIT, now)
        return Action(send=send + self._recipe.exit_sequence.encode("utf-8"))

    def _enter(self, step: Step, now: float) -> None:
        self.step = step
        self._window = ""
        self._deadline = now + self._recipe.step_timeout

    def _matches(self, pattern: re.Pattern[str] | None) -> bool:
        return pattern is not None and pattern.search(clean_terminal_text(self._window)) is not None

    def _reply_text(self) -> str:
        """What was printed after the prompt's echo, up to the end of the done match."""
        text = clean_terminal_text(self._reply_raw)
        start = echo_end(text, self._prompt_lines) if self._prompt_lines else 0
        start = start or 0  # an echo cut short: keep everything
        end = len(text)
        if self._done is not None:
            matches = list(self._done.finditer(text, start))
            if matches:
                end = matches[-1].end()
        return text[start:end].strip("\r\n")

    def _reply_matches_done(self) -> bool:
        if self._done is None:
            return False
        text = clean_terminal_text(self._window)
        if self._echo is None:  # an echo of this prompt cannot look like the reply
            return self._done.search(text) is not None
        start = echo_end(text, self._echo)
        if start is None:  # the echo began and did not end (yet, or it was cut short)
            return len(self._done.findall(text)) > self._echo_matches
        return self._done.search(text, start) is not None


def echo_end(text: str, prompt_lines: list[str]) -> int | None:
    """Where the last echo of the prompt ends in ``text``: 0 when there is no echo.

    The echo is the prompt's lines, in order, each found at the start of a line
    of ``text`` (its first characters: a long line may be wrapped), possibly
    with other lines between them (a TUI's frame). The last echo counts: a TUI
    may show the prompt in its input box, then again in its history.
    """
    first = prompt_lines[0]
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.strip().startswith(first)]
    if not starts:
        return 0
    index, want = starts[-1], 0
    offset = sum(len(line) for line in lines[:index])
    for line in lines[index:]:
        offset += len(line)
        if line.strip().startswith(prompt_lines[want]):
            want += 1
            if want == len(prompt_lines):
                return offset
    return None


def typed_prompt(prompt: bytes, newline_sequence: str | None, *, paste: bool = True) -> bytes:
    """The bytes to type for ``prompt``: one line as is; several with ``newline_sequence``,
    else as one paste (CR-separated) when ``paste``, else joined into one line by spaces.

    A terminal sends a pasted newline as CR, and wraps the paste in
    ``ESC[200~``/``ESC[201~`` so the program does not submit at each line; a
    program that never turned paste mode on would read those bytes literally.
    """
    body = prompt.replace(b"\r\n", b"\n").rstrip(b"\n")
    if b"\n" not in body:
        return body
    if newline_sequence is not None:
        return body.replace(b"\n", newline_sequence.encode("utf-8"))
    if paste:
        return PASTE_START + body.replace(b"\n", b"\r") + PASTE_END
    return b" ".join(line.strip() for line in body.split(b"\n") if line.strip())


def _echo_lines(prompt: bytes, done: re.Pattern[str] | None) -> list[str] | None:
    """The starts of the prompt's lines, if its echo could be taken for the reply."""
    text = prompt.decode("utf-8", "replace")
    if done is None or done.search(text) is None:
        return None
    return [line.strip()[:_FRAGMENT] for line in text.splitlines() if line.strip()]


def _compile(pattern: str | None) -> re.Pattern[str] | None:
    return re.compile(pattern, re.MULTILINE) if pattern else None
