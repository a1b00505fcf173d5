"""The rebound reply contract (REQ_AUTO_010/020) and how a reply is found in text.

The reply is the last top-level JSON object in the model's text that fits
``ReboundReply`` (found like the ``json`` completion mode's object, seed 004).
An object "is a candidate" when it carries at least one contract key; nested
objects never count. One exception to "last object that fits": when the last
candidate is fine except for its ``next_action``, that object *is* the reply
and the ``next_action`` error is reported back to the model (REQ_AUTO_030
error handling) instead of silently running an older action.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from jlgcli.completion.json_objects import iter_objects_from_end
from jlgcli.records import record

ReplyStatus = Literal["continue", "done", "error"]
CONTRACT_KEYS = frozenset({"thought_process", "artifacts", "next_action", "status", "summary"})


class Artifact(BaseModel):
    """A file to write, relative to the project root, before anything runs."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    path: str = Field(min_length=1)
    content: str
    encoding: Literal["utf-8", "base64"] = "utf-8"


class NextAction(BaseModel):
    """REQ_AUTO_020 v1: run one script under workbench/scripts/, then call the model again."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    type: Literal["exec_and_chain"]
    target_script: str = Field(min_length=1)
    continuation_prompt: str


class ReboundReply(BaseModel):
    """The whole reply object; unknown top-level keys are tolerated and reported."""

    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)

    thought_process: str | None = None
    artifacts: list[Artifact] = Field(default_factory=list)
    next_action: NextAction | None = None
    status: ReplyStatus | None = None
    summary: str | None = None


@record
class ReplyParse:
    """What ``find_reply`` found.

    ``reply`` is None when no object fits (→ invalid-json, exit 65) and
    ``error`` says why. ``next_action_error`` is set when the reply's
    ``next_action`` was present but malformed (the reply has none then).
    """

    reply: ReboundReply | None
    raw: Mapping[str, Any] | None = None
    error: str | None = None
    next_action_error: str | None = None
    unknown_keys: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.reply is not None


def find_reply(text: str) -> ReplyParse:
    """Find the rebound reply object in ``text`` (linear time, never raises)."""
    first_error: str | None = None
    for obj in iter_objects_from_end(text):
        if not CONTRACT_KEYS & obj.keys():
            continue
        try:
            reply = ReboundReply.model_validate(obj)
        except ValidationError as exc:
            salvaged = _salvage_without_next_action(obj, exc)
            if salvaged is not None:
                return salvaged
            first_error = first_error or describe_errors(exc)
            continue
        return ReplyParse(reply, raw=obj, unknown_keys=_unknown(obj))
    if first_error:
        return ReplyParse(None, error=f"the reply object does not fit the contract: {first_error}")
    return ReplyParse(None, error="no JSON reply object found in the reply")


def _salvage_without_next_action(obj: Mapping[str, Any], exc: ValidationError) -> ReplyParse | None:
    if not all(err["loc"][:1] == ("next_action",) for err in exc.errors()):
        return None
    rest = {k: v for k, v in obj.items() if k != "next_action"}
    reply = ReboundReply.model_validate(rest)  # cannot fail: its only errors were next_action's
    return ReplyParse(
        reply, raw=obj, next_action_error=describe_errors(exc), unknown_keys=_unknown(obj)
    )


def _unknown(obj: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(sorted(str(k) for k in obj.keys() - CONTRACT_KEYS))


def describe_errors(exc: ValidationError, *, limit: int = 5) -> str:
    """Pydantic errors as short ``field.path: message`` items the model can act on."""
    items = []
    for err in exc.errors()[:limit]:
        where = ".".join(str(p) for p in err["loc"]) or "(object)"
        message = err["msg"]
        if err["type"] == "literal_error":
            message = f"{message} (got {err.get('input')!r})"
        items.append(f"{where}: {message}")
    more = len(exc.errors()) - limit
    return "; ".join(items) + (f"; and {more} more" if more > 0 else "")
