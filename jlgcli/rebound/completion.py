"""Rebound as a completion protocol (REQ_AUTO_010..050): the loop's third ``Completion``.

It hands each reply to the ``ReboundSession`` (artifacts, sandboxed script,
ledger) and turns the session's outcome into the loop's ``Decision``: a
``continue`` carries the next prompt built from the script's result.
"""

from __future__ import annotations

from jlgcli.completion import Decision
from jlgcli.completion.protocol import Reply
from jlgcli.rebound.session import ReboundSession


class ReboundCompletion:
    """The ``Completion`` of ``--completion rebound``."""

    mode = "rebound"

    def __init__(self, session: ReboundSession) -> None:
        self.session = session

    def instructions(self) -> str:
        return self.session.instructions()

    def decide(self, reply: Reply) -> Decision:
        outcome = self.session.process_reply(
            reply.prompt_sent, reply.text, payload_ref=reply.payload_ref
        )
        error = None
        if outcome.status not in ("done", "continue"):
            error = outcome.error or outcome.summary or f"rebound stopped: {outcome.status}"
        return Decision(
            outcome.status,
            summary=outcome.summary,
            reason=f"rebound step {outcome.step}: {outcome.status}",
            next_prompt=outcome.next_prompt,
            final_text=outcome.final_text,
            error=error,
        )

    def close(self, cause: str, exit_code: int) -> None:
        self.session.close(cause, exit_code=exit_code)
