"""Plain data of the process layer: what to run, what came out, why it stopped.

These types are the contract between the backends (which build an
``Invocation``), the transports (which run it and emit events) and the sinks
(console, transcript, bounded tail) that consume the events as they arrive.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence

from jlgcli.records import field, record

TYPE_CHECKING = False

if TYPE_CHECKING:  # types only: a run imports no typing (issue 49)
    from typing import Literal, Protocol

    from jlgcli.process.outcome import OutputTail

    Transport = Literal["pipe", "pty"]
    StreamName = Literal["stdout", "stderr"]


@record
class InteractiveRecipe:
    """How to drive a program that only works in a terminal (pty transport).

    Wait for ``ready_pattern`` (regex), send the prompt followed by
    ``submit_sequence``, then wait for ``done_pattern`` (regex) or
    ``idle_seconds`` of silence, then send ``exit_sequence``. A multi-line
    prompt is typed as one bracketed paste (``ESC[200~ … ESC[201~``), or with
    ``newline_sequence`` between its lines when the program has its own way
    of entering a newline (e.g. ``"\x1b\r"``, Alt+Enter): never with raw
    newlines, which may submit each line.
    """

    ready_pattern: str | None = None
    submit_sequence: str = "\r"
    done_pattern: str | None = None
    idle_seconds: float | None = None
    exit_sequence: str | None = None
    step_timeout: float = 60.0
    newline_sequence: str | None = None


@record
class Invocation:
    """One child process to run.

    ``stdin``: the text/bytes written to the child's stdin, which is then
    closed; ``None`` means the null device. stdin is never inherited (codex
    hangs forever on an open inherited pipe, backends.md §7).
    ``env``: overrides on top of the current environment; ``env_remove`` names
    variables to drop (e.g. secrets for a sandboxed script).
    ``fork_server``: Linux, pipe transport: the warm process that forks the child
    instead of an exec (a batch's tasks, ``jlgcli.batch.task_server``); None: as usual.
    """

    argv: tuple[str, ...]
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    env_remove: tuple[str, ...] = ()
    stdin: str | bytes | None = None
    transport: Transport = "pipe"
    dimensions: tuple[int, int] = (40, 200)  # rows, cols (pty only)
    interactive: InteractiveRecipe | None = None
    fork_server: ForkServer | None = None


if TYPE_CHECKING:

    class Started(Protocol):
        """A started process: a ``subprocess.Popen``, or a supervisor jlgcli adopted (Linux)."""

        pid: int
        returncode: int | None

        def poll(self) -> int | None: ...
        def kill(self) -> None: ...

    class ForkedChild(Started, Protocol):
        """A child a fork server started, adopted by jlgcli (``jlgcli.process.warm.Adopted``)."""

        def exec_error(self) -> OSError | None: ...
        def close(self) -> None: ...

    class ForkServer(Protocol):
        """A warm process that starts children on request (``jlgcli.process.warm.Server``)."""

        def start(
            self,
            argv: Sequence[str],
            *,
            env: Mapping[str, str],
            cwd: str | None,
            stdio: Sequence[int],
        ) -> ForkedChild | None: ...


@record
class Limits:
    """Deadlines of one process run, in seconds; ``None`` means no limit."""

    total_timeout: float | None = None
    idle_timeout: float | None = None
    kill_grace: float = 2.0  # between each rung of the kill ladder


class OutputEvent:
    """One chunk of output as it arrived: its bytes, and a text view decoded on first use.

    The transport hands over bytes cut at a UTF-8 character boundary, so each
    event decodes on its own (UTF-8 with replacement) and no byte is decoded
    when no sink reads ``text``. An event built from text (tests, replays)
    keeps that text and encodes ``data`` on demand.

    ``redacted``: the bytes went through the run's redactor where they entered
    jlgcli (``run_invocation(filters=...)``, issue 32): a sink that would redact
    them (the transcript) writes them as they are instead of redacting twice.
    """

    __slots__ = ("_data", "_text", "redacted", "stream", "t")

    def __init__(
        self, stream: StreamName, data: bytes | str, t: float, *, redacted: bool = False
    ) -> None:
        self.stream = stream
        self.t = t  # time.monotonic() when read
        self.redacted = redacted
        self._data = data if isinstance(data, bytes) else None
        self._text = data if isinstance(data, str) else None

    @property
    def data(self) -> bytes:
        """The raw bytes (text-built events: their UTF-8 encoding)."""
        if self._data is None:
            assert self._text is not None
            self._data = self._text.encode("utf-8", "surrogatepass")
        return self._data

    @property
    def text(self) -> str:
        """The bytes decoded as UTF-8 with replacement, once, on first use."""
        if self._text is None:
            assert self._data is not None
            self._text = self._data.decode("utf-8", "replace")
        return self._text

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OutputEvent):
            return NotImplemented
        return (self.stream, self.data, self.t) == (other.stream, other.data, other.t)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"OutputEvent({self.stream!r}, {self.data!r}, {self.t!r})"


class StopReason(str, enum.Enum):
    """Why a process run ended."""

    EXITED = "exited"  # the child exited by itself
    TIMEOUT = "timeout"  # Limits.total_timeout fired
    IDLE = "idle"  # Limits.idle_timeout fired (no output for N seconds)
    CANCELLED = "cancelled"  # cancel event set or Ctrl-C / SIGTERM
    FAILED_TO_START = "failed-to-start"  # never ran: ``ProcessOutcome.not_started``


@record
class ProcessOutcome:
    """What happened to one process run: the one result type of the process layer.

    Cancellation is said one way: ``StopReason.CANCELLED``, with the signal in
    ``interrupted_by`` when Ctrl-C/SIGTERM caused it. ``output`` holds the
    bounded head and tail of the output when the run collected it
    (``run_captured``); ``error`` says why a run that never started did not.
    """

    exit_code: int | None  # None when killed by a signal
    signal: int | None
    stop_reason: StopReason
    duration: float
    pid: int | None = None
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    interrupted_by: int | None = None  # the signal that stopped the run (CANCELLED)
    output: OutputTail | None = field(default=None, compare=False, repr=False)
    error: str | None = None  # FAILED_TO_START: what prevented the start
    reply: str | None = field(default=None, compare=False, repr=False)  # interactive: the reply

    @classmethod
    def not_started(cls, error: str) -> ProcessOutcome:
        """The outcome of a program that could not be started (not found, not executable)."""
        return cls(None, None, StopReason.FAILED_TO_START, 0.0, error=error)

    @property
    def ok(self) -> bool:
        return self.stop_reason is StopReason.EXITED and self.exit_code == 0

    @property
    def timed_out(self) -> bool:
        """A time limit (total or idle) stopped the run."""
        return self.stop_reason in (StopReason.TIMEOUT, StopReason.IDLE)

    @property
    def stdout(self) -> str:
        """The kept stdout (head then tail, decoded); empty when not collected."""
        return self.output.stdout.text() if self.output is not None else ""

    @property
    def stderr(self) -> str:
        """The kept stderr (head then tail, decoded); empty when not collected."""
        return self.output.stderr.text() if self.output is not None else ""


Sink = Callable[[OutputEvent], None]
