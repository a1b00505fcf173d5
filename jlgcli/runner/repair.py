"""``--completion json``: a reply with no valid status object is asked for it once (issue 34).

Before exit 65, the loop sends a short repair prompt in the same session (only
when the backend can continue it): "reply with the status object only". The
repaired reply decides the iteration; a second miss is ``invalid-json`` as before.
claude and codex are also given the status schema natively (``--json-schema``,
``--output-schema``), so their final message is a status object by construction.
"""

from __future__ import annotations

from jlgcli.completion.protocol import Reply

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.completion import Decision
    from jlgcli.runner.iteration import CallResult
    from jlgcli.runner.iterations import IterationLoop


def status_schema(mode: str) -> str | None:
    """The status object's JSON Schema (compact text) in json mode, else None."""
    if mode != "json":
        return None
    import json

    from jlgcli.completion.json_status import STATUS_SCHEMA

    return json.dumps(STATUS_SCHEMA, separators=(",", ":"))


def ask_once_more(
    loop: IterationLoop, iteration: int, call: CallResult, decision: Decision
) -> Decision:
    """The decision of a repair reply, or ``decision`` when it cannot be asked or fails too."""
    from jlgcli.completion.json_status import REPAIR_PROMPT

    session = call.result.session_id
    if session is None or not loop.chain.resumes_sessions:
        return decision  # a fresh session would not know what "your last reply" was
    loop.console.progress(f"iteration {iteration}: no valid JSON status object; asking once more")
    from jlgcli.runner.calls import invoke

    again = invoke(
        loop, loop.chain.current, REPAIR_PROMPT, session, loop.record.remaining_s(loop.clock),
        loop.rails.iteration_timeout_s, lambda _text: None,
    )  # fmt: skip
    result = again.result
    metrics = loop.record.metrics[-1]
    loop.counters.add_cost(result.cost_usd)
    if result.cost_usd is not None:
        metrics.costUsd = (metrics.costUsd or 0.0) + result.cost_usd
    if not result.ok:
        return decision
    repaired = loop.completion.decide(Reply(iteration, result.text, REPAIR_PROMPT))
    if repaired.status == "invalid-json":
        return decision
    loop.record.last_text = loop.recorder.redactor.redact(result.text)
    return repaired
