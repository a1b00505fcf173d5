"""The backend contract: probe, build an invocation, normalise its output.

A backend is a module in ``jlgcli/backends/`` exposing an object that follows
``Backend``. The adapter knows its CLI's flags and output format and turns the
event stream into plain assistant text plus metadata. Output is parsed
incrementally (``StreamParser.feed``) so nothing holds the whole output.
"""

from __future__ import annotations

from jlgcli.records import field, record

TYPE_CHECKING = False

# Types only: listing backends needs no process model, and a run imports no typing (issue 49).
if TYPE_CHECKING:
    from typing import Literal, Protocol

    from jlgcli.process.model import Invocation, ProcessOutcome, StreamName

    AvailabilityStatus = Literal[
        "available", "missing", "unauthenticated", "unsupported", "unknown"
    ]
    Permissions = Literal["read-only", "edit", "full"]
    # auth: not logged in / bad key (exit 6) · rate-limit: resets, worth waiting for ·
    # quota: credit or quota exhausted with no useful reset (fail over or stop) ·
    # input: the CLI rejected its input · backend: any other failure of the CLI ·
    # protocol: output jlgcli cannot read · timeout: stopped by a deadline ·
    # overloaded: the service is overloaded after the CLI's own retries (wait with back-off) ·
    # budget: the call stopped at the spending cap jlgcli gave it (what is left of --max-cost) ·
    # account: the account needs its owner (on hold, verification, cloud credentials): a
    # fallback takes over, else exit 6 with the CLI's own remedy.
    ErrorKind = Literal[
        "auth",
        "account",
        "rate-limit",
        "quota",
        "input",
        "backend",
        "protocol",
        "timeout",
        "overloaded",
        "budget",
    ]


@record
class Availability:
    """Result of ``probe()`` (F-002): fast, sends no prompt, no network."""

    id: str
    status: AvailabilityStatus
    version: str | None = None
    path: str | None = None
    detail: str = ""
    hint: str | None = None


@record
class BackendRequest:
    """What one backend call must do, in backend-neutral terms."""

    prompt: str
    cwd: str
    model: str | None = None
    permissions: Permissions | None = None
    extra_args: tuple[str, ...] = ()
    resume_session: str | None = None  # continue this backend session (--session continue)
    prompt_file: str | None = None  # a temp file holding the prompt, for CLIs that need a file
    max_budget_usd: float | None = None  # what is left of --max-cost, for CLIs that cap a call
    output_schema: str | None = None  # JSON Schema of the final message (--completion json)
    # the CLI's version as the run's probe found it: flags a version lacks are never passed
    cli_version: str | None = None
    # start a new session under this id where the CLI lets the caller choose (claude
    # --session-id): the session is known without reading it back from the output
    new_session_id: str | None = None


@record
class BackendResult:
    """The normalised outcome of one backend call.

    ``rate_limited`` is True exactly when ``error_kind == "rate-limit"``;
    ``rate_limit_reset`` is then the reset the CLI stated (epoch seconds, even a
    far one such as "resets in 5 days": the run core compares it with its
    deadline), or None. A ``quota`` failure is never ``rate_limited`` and has
    no reset. A successful call (``ok``) is never rate limited, even when the
    CLI reported a limit it then went past (claude's extra usage).
    """

    text: str  # the final assistant message only (completion is decided on it)
    ok: bool
    exit_code: int | None
    error: str | None = None
    error_kind: ErrorKind | None = None
    session_id: str | None = None
    cost_usd: float | None = None  # None when the CLI does not report it (never a made-up 0)
    # cost_usd is the session's running total, not this call's (claude 2.1.277+): the run
    # core counts what it grew by since the session's last report (issue 48)
    cost_is_session_total: bool = False
    input_tokens: int | None = None
    output_tokens: int | None = None
    rate_limit_reset: float | None = None  # epoch seconds, when the CLI states a reset time
    rate_limited: bool = False
    output_tail: str = ""  # bounded tail of raw output, for error reports
    extra: dict[str, str] = field(default_factory=dict)
    # tool uses the CLI denied (issue 34): {"tool": "Write", "target": "src/a.py"}
    denials: tuple[dict[str, str], ...] = ()
    # what the CLI says the user must do (an appeal link, a credential to refresh): the hint
    remedy: str | None = None
    # a question the agent asked the user through the CLI's own tool (``backends.asks``)
    question: str | None = None


if TYPE_CHECKING:

    class StreamParser(Protocol):
        """Incremental parser of one backend call's output."""

        def feed(self, stream: StreamName, text: str) -> str:
            """Consume a chunk; return the human-readable text to show live (may be empty)."""
            ...

        def finish(self, outcome: ProcessOutcome) -> BackendResult:
            """Classify the call once the process has ended."""
            ...

    class Backend(Protocol):
        """What every backend module provides (see DESIGN.md "Contracts")."""

        id: str

        def probe(self, timeout: float = 2.0) -> Availability:
            """Is the CLI installed, authenticated, supported? Never sends a prompt."""
            ...

        def invocation(self, request: BackendRequest) -> Invocation:
            """The argv/stdin/env/transport that runs ``request`` headlessly."""
            ...

        def parser(self) -> StreamParser:
            """A fresh incremental parser for one call's output."""
            ...
