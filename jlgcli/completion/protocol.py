"""Completion as a protocol: what the loop asks after every reply, whatever the mode.

Three implementations return the same ``Decision``: marker and json here
(pure: they read the text only), and rebound (``jlgcli.rebound.completion``),
which also writes the reply's artifacts, runs its sandboxed script and builds
the next prompt. The loop never special-cases a mode.
"""

from __future__ import annotations

from jlgcli.completion import Decision, decide, protocol_instructions
from jlgcli.records import record

TYPE_CHECKING = False


@record(slots=True)
class Reply:
    """One model reply as the loop hands it to the completion protocol."""

    iteration: int
    text: str
    prompt_sent: str
    payload_ref: str | None = None  # where the raw exchange is kept (the transcript)


if TYPE_CHECKING:  # types only: a run imports no typing (issue 49)
    from typing import Protocol

    from jlgcli.completion import CompletionMode

    class Completion(Protocol):
        """How a loop knows the model is done, and what it tells the model about it."""

        mode: str

        def instructions(self) -> str:
            """The text appended to the first prompt (and to fresh-session continuations)."""
            ...

        def decide(self, reply: Reply) -> Decision:
            """Read one reply; never raises for what the model wrote."""
            ...

        def close(self, cause: str, exit_code: int) -> None:
            """The run ended with ``cause``: record it where the protocol keeps state."""
            ...


class TextCompletion:
    """marker or json: a pure reading of the reply's text (RG-009, RG-010)."""

    def __init__(self, mode: CompletionMode) -> None:
        self.mode: str = mode
        self._mode = mode

    def instructions(self) -> str:
        return protocol_instructions(self._mode)

    def decide(self, reply: Reply) -> Decision:
        return decide(self._mode, reply.text)

    def close(self, cause: str, exit_code: int) -> None:
        """Nothing to record: the text protocols keep no state."""


class NoCompletion:
    """``jlgcli run``: one call, no protocol; the call's success is the answer."""

    mode = "none"

    def instructions(self) -> str:
        return ""

    def decide(self, reply: Reply) -> Decision:
        return Decision("done", reason="a one-shot run ends after its call")

    def close(self, cause: str, exit_code: int) -> None:
        """Nothing to record."""
