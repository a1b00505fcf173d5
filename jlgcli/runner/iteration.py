"""One backend call: build the invocation, stream it to the sinks, normalise the result."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from jlgcli.backends.base import BackendRequest, BackendResult
from jlgcli.process.model import Limits, OutputEvent, ProcessOutcome, Sink
from jlgcli.records import record
from jlgcli.runner.console import Console

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jlgcli.artifacts.redact import Redacted, Redactor
    from jlgcli.backends.base import Backend


@record
class CallResult:
    """A backend call's normalised result and what happened to its process."""

    result: BackendResult
    outcome: ProcessOutcome
    duration_ms: int


# ``call_backend`` below, or a test's stand-in.
Caller = Callable[..., CallResult]


def call_backend(
    backend: Backend,
    request: BackendRequest,
    *,
    limits: Limits,
    console: Console,
    extra_sinks: tuple[Sink, ...] = (),
    cancel: threading.Event | None = None,
    on_text: Callable[[Redacted], None] | None = None,
    show_live: bool = True,
    redactor: Redactor | None = None,
) -> CallResult:
    """Run ``request`` on ``backend``; the assistant's text is shown live as it arrives.

    ``on_text`` also gets the live text (the event stream's agent activity);
    ``show_live=False`` keeps it off the console (rebound's raw JSON replies at
    default verbosity: the steps are shown instead). ``redactor``: the run's, applied
    to each stream where its bytes enter (issue 32), so the parser, the console,
    the transcript and the result only ever see redacted text.

    The parser joins what it reads (gemini's and copilot's text deltas): a key
    split across two JSON lines is whole only in the joined text, which is a new
    text, so it is redacted where it is made, once, as a stream (a partial line
    waits for its newline); the console and ``on_text`` get it ``Redacted`` and
    do not redact it again.
    """
    from jlgcli.artifacts.redact import Redactor
    from jlgcli.process import run_invocation

    parser = backend.parser()
    joined = (redactor if redactor is not None else Redactor()).stream()

    def shown(text: Redacted) -> None:
        if show_live:
            console.assistant(text)
        if text and on_text is not None:
            on_text(text)

    def show(event: OutputEvent) -> None:
        text = parser.feed(event.stream, event.text)
        if text:
            shown(joined.feed_text(text))

    invocation = backend.invocation(request)
    # -v shows what runs (issue 38): the command line, quoted as a shell would need it
    if console.verbosity >= 2:  # quoted only when shown: shlex is not imported otherwise
        console.detail(f"spawn: {_quoted(invocation.argv)} ({invocation.transport})")
    started = time.monotonic()
    check = getattr(backend, "login_check", None)  # CLIs that hang when logged out (issue 48)
    login = check() if check is not None else None
    stop = _EitherEvent(cancel) if login is not None else cancel
    watch = None
    if login is not None:
        from jlgcli.backends.login_watch import LoginWatch

        assert stop is not None
        watch = LoginWatch(invocation.argv[0], login, stop.set)
    try:
        outcome = run_invocation(
            invocation, limits=limits, sinks=(show, *extra_sinks), cancel=stop,
            log=console.debug, filters=None if redactor is None else redactor.stream,
        )  # fmt: skip
    finally:
        if watch is not None:
            watch.stop()
    shown(joined.flush_text())
    console.end_live()
    result = parser.finish(outcome)
    if watch is not None and watch.missing is not None and _stopped_for_login(outcome, cancel):
        result = _not_logged_in(backend.id, watch.missing.detail, result)
    return CallResult(result, outcome, round((time.monotonic() - started) * 1000))


class _EitherEvent(threading.Event):
    """Set by itself (the login watch) or when ``other`` (the caller's cancel) is."""

    def __init__(self, other: threading.Event | None) -> None:
        super().__init__()
        self._other = other

    def is_set(self) -> bool:
        return super().is_set() or (self._other is not None and self._other.is_set())


def _stopped_for_login(outcome: ProcessOutcome, cancel: threading.Event | None) -> bool:
    """The call was cancelled by the login watch, not by Ctrl-C or the caller."""
    from jlgcli.process.model import StopReason

    by_caller = cancel is not None and cancel.is_set()
    return (
        outcome.stop_reason is StopReason.CANCELLED
        and outcome.interrupted_by is None
        and not by_caller
    )


def _not_logged_in(backend: str, detail: str, result: BackendResult) -> BackendResult:
    from jlgcli.records import replace

    message = f"{backend} is not logged in ({detail}); the call was stopped"
    return replace(result, ok=False, error=message, error_kind="auth")


def _quoted(argv: Sequence[str]) -> str:
    import shlex

    return " ".join(shlex.quote(word) for word in argv)
