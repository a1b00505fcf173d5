"""The data of one rebound step: the outcome the loop sees, the record the ledger keeps."""

from __future__ import annotations

from typing import Any, Literal

from jlgcli.rebound.artifacts import ArtifactRecord
from jlgcli.rebound.execute import ExecutionResult
from jlgcli.rebound.ledger import (
    LEDGER_VERSION,
    artifact_json,
    sha256_text,
    step_file_name,
    utc_now,
)
from jlgcli.rebound.schema import ReplyParse
from jlgcli.records import field, record

OutcomeStatus = Literal[
    "continue", "done", "error", "invalid-json", "sandbox-violation", "interrupted"
]
_EXIT_CODES: dict[str, int | None] = {
    "continue": None, "done": 0, "error": 1, "invalid-json": 65,
    "sandbox-violation": 1, "interrupted": 130,
}  # fmt: skip
THOUGHT_CHARS = 300  # characters of thought_process shown per step


@record
class ReboundOutcome:
    """What the loop does next after one reply.

    ``continue``: call the model again with ``next_prompt`` (or, when it is
    None, with the loop's own continuation, as in json mode). Any other
    status ends the run; ``final_text``/``summary`` are for the user.
    """

    status: OutcomeStatus
    step: int
    refusals: int
    next_prompt: str | None = None
    final_text: str | None = None
    summary: str | None = None
    artifacts_written: list[str] = field(default_factory=list)
    artifacts_rejected: list[str] = field(default_factory=list)  # "path: reason"
    execution: ExecutionResult | None = None
    error: str | None = None
    thought_process: str | None = None
    target_script: str | None = None
    refusal: str | None = None  # why target_script was not run

    def display(self, width: int = THOUGHT_CHARS) -> str:
        """What a person sees of this step at default verbosity (REQ_AUTO_050).

        The model's thought process (cut to ``width`` characters) and what
        jlgcli did with the reply; the raw JSON reply stays in the ledger.
        """
        lines = [f"rebound step {self.step}: {_one_line(self.thought_process, width) or '…'}"]
        if self.artifacts_written:
            lines.append(f"  wrote {', '.join(self.artifacts_written)}")
        lines += [f"  not written: {item}" for item in self.artifacts_rejected]
        if self.target_script and self.refusal:
            lines.append(f"  did not run {self.target_script}: {self.refusal}")
        elif self.target_script and self.execution is not None:
            lines.append(f"  ran {self.target_script}: {_ran(self.execution)}")
        if self.status != "continue":
            ending = self.summary or self.error or ""
            lines.append(f"  {self.status}" + (f": {_one_line(ending, width)}" if ending else ""))
        return "\n".join(lines)

    @property
    def exit_code(self) -> int | None:
        """The run's exit code when this outcome ends it (DESIGN.md table), else None."""
        return _EXIT_CODES[self.status]


def _one_line(text: str | None, width: int) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def _ran(result: ExecutionResult) -> str:
    if result.stop_reason == "exited":
        return f"exit {result.exit_code} in {result.duration:.1f} s (isolation: {result.isolation})"
    return result.stop_reason if result.error is None else f"{result.stop_reason}: {result.error}"


@record(frozen=False)
class StepState:
    """Everything one step did, filled in as it happens."""

    number: int
    prompt: str
    reply_text: str
    payload_ref: str | None
    prompt_from: str
    started_at: str = field(default_factory=utc_now)
    parse: ReplyParse | None = None
    artifacts: list[ArtifactRecord] = field(default_factory=list)
    next_action: dict[str, Any] | None = None
    refusal: dict[str, Any] | None = None
    execution: dict[str, Any] | None = None
    result: ExecutionResult | None = None
    outcome: ReboundOutcome | None = None

    def record(self, session_id: str, phase: str) -> dict[str, Any]:
        parse, outcome = self.parse, self.outcome
        reply = parse.reply if parse else None
        return {
            "ledgerVersion": LEDGER_VERSION,
            "sessionId": session_id,
            "step": self.number,
            "phase": phase,
            "startedAt": self.started_at,
            "updatedAt": utc_now(),
            "promptFrom": self.prompt_from,
            "promptSha256": sha256_text(self.prompt),
            "prompt": self.prompt,
            "payloadRef": self.payload_ref,
            "reply": {
                "text": self.reply_text,
                "found": reply is not None,
                "error": parse.error if parse else None,
                "thoughtProcess": reply.thought_process if reply else None,
                "status": reply.status if reply else None,
                "summary": reply.summary if reply else None,
                "unknownKeys": list(parse.unknown_keys) if parse else [],
            },
            "artifacts": [artifact_json(a) for a in self.artifacts],
            "nextAction": _camel_action(self.next_action),
            "nextActionError": parse.next_action_error if parse else None,
            "execution": self.execution,
            "refusal": self.refusal,
            "continuationPrompt": outcome.next_prompt if outcome else None,
            "outcome": _outcome_json(outcome),
        }

    def index_entry(self) -> dict[str, Any]:
        outcome = self.outcome
        assert outcome is not None
        return {
            "step": self.number,
            "file": step_file_name(self.number),
            "promptFrom": self.prompt_from,
            "promptSha256": sha256_text(self.prompt),
            "status": outcome.status,
            "targetScript": (self.next_action or {}).get("target_script"),
            "returnCode": self.result.exit_code if self.result else None,
            "refused": self.refusal is not None and self.refusal.get("kind") == "refused",
            "continuationSha256": sha256_text(outcome.next_prompt) if outcome.next_prompt else None,
        }


def _camel_action(action: dict[str, Any] | None) -> dict[str, Any] | None:
    if action is None:
        return None
    return {
        "type": action["type"],
        "targetScript": action["target_script"],
        "continuationPrompt": action["continuation_prompt"],
    }


def _outcome_json(outcome: ReboundOutcome | None) -> dict[str, Any] | None:
    if outcome is None:
        return None
    return {
        "status": outcome.status,
        "refusals": outcome.refusals,
        "exitCode": outcome.exit_code,
        "error": outcome.error,
        "finalText": outcome.final_text,
        "artifactsWritten": outcome.artifacts_written,
        "artifactsRejected": outcome.artifacts_rejected,
    }
