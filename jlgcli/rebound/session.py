"""One rebound session: what the loop calls after each model reply (REQ_AUTO_010..050).

The loop (``jlgcli/runner``) owns the backend calls and the guardrails; this
object owns one reply at a time: find the reply object, write its artifacts
(artifact-first), check and run its ``next_action`` in the sandbox, build the
next prompt, and journal all of it in the ledger. It never calls the model.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jlgcli.artifacts.project import require_own_folder
from jlgcli.rebound import instructions as text
from jlgcli.rebound.artifacts import DEFAULT_MAX_ARTIFACT_BYTES, ArtifactRecord, write_artifacts
from jlgcli.rebound.execute import run_script
from jlgcli.rebound.isolation import choose_isolation, existing_protected, remove_new_protected
from jlgcli.rebound.ledger import (
    LEDGER_VERSION,
    LedgerWriter,
    Redact,
    execution_json,
    new_session_id,
    utc_now,
)
from jlgcli.rebound.paths import IS_WINDOWS
from jlgcli.rebound.sandbox import resolve_target_script
from jlgcli.rebound.schema import ReplyParse, find_reply
from jlgcli.rebound.steps import OutcomeStatus, ReboundOutcome, StepState


class ReboundSession:
    """The rebound state of one run; journals to ``<ledger_root>/<session_id>/``.

    Creating it creates the session's ledger directory and index, so an
    unwritable ledger fails (``JlgError`` 73) before the model is called.
    """

    def __init__(
        self,
        project_root: Path,
        *,
        ledger_root: Path | None = None,
        session_id: str | None = None,
        script_timeout: float = 60.0,
        max_output_bytes: int = 64_000,
        max_refusals: int = 3,
        max_artifact_bytes: int = DEFAULT_MAX_ARTIFACT_BYTES,
        cancel: threading.Event | None = None,
        log: Callable[[str], None] | None = None,
        redact: Redact | None = None,
        is_windows: bool = IS_WINDOWS,
        task: str | None = None,
        repeat_task: bool = True,
        show: Callable[[str], None] | None = None,
        isolation: str = "best",
        network: bool = False,
    ) -> None:
        """``task``: the user's task (default: read from the first prompt, without the
        protocol). ``repeat_task``: every continuation carries the task, bounded, and the
        whole protocol, because the model starts a fresh session at each call; False when
        the backend continues one session (it has both already). ``show``: gets each
        step's ``ReboundOutcome.display()`` (the loop's progress line at default
        verbosity, instead of the raw JSON reply). ``isolation``: ``reboundIsolation``
        (``best``, ``strict`` or one level); ``network``: ``reboundNetwork``.
        """
        self.project_root = project_root.resolve()
        ledger = ledger_root or self.project_root / "ledger"
        require_own_folder(ledger)  # before resolve(): a symlinked ledger is refused (issue 46)
        self.ledger_root = ledger.resolve()
        self.session_id = session_id or new_session_id()
        self.directory = self.ledger_root / self.session_id
        self.limits = text.ProtocolLimits(
            script_timeout, max_output_bytes, max_refusals, max_artifact_bytes
        )
        self.cancel = cancel
        self._log = log or (lambda _message: None)
        self._is_windows = is_windows
        self._ledger = LedgerWriter(self.directory, redact=redact or _default_redactor())
        self.step = 0
        self.refusals = 0
        self._last_next_prompt: str | None = None
        self._task = task
        self._repeat_task = repeat_task
        self._show = show
        self._isolation = isolation
        self._network = network
        self._index: dict[str, Any] = {
            "ledgerVersion": LEDGER_VERSION,
            "sessionId": self.session_id,
            "projectRoot": str(self.project_root),
            "startedAt": utc_now(),
            "updatedAt": utc_now(),
            "status": "running",
            "stopCause": None,
            "exitCode": None,
            "limits": {
                "scriptTimeoutSeconds": script_timeout,
                "maxOutputBytes": max_output_bytes,
                "maxRefusals": max_refusals,
                "maxArtifactBytes": max_artifact_bytes,
            },
            "steps": [],
            "final": None,
        }
        self._ledger.write_index(self._index)

    def instructions(self) -> str:
        """The protocol text to append to the first prompt."""
        return text.protocol_instructions(self.limits)

    def process_reply(
        self, prompt_sent: str, reply_text: str, *, payload_ref: str | None = None
    ) -> ReboundOutcome:
        """Handle one model reply: artifacts, sandboxed next_action, ledger, next prompt.

        ``payload_ref``: where the raw exchange is kept (the run's transcript),
        journaled as a reference. Raises ``JlgError`` 73 when the ledger
        cannot be written; every other problem is an outcome.
        """
        self.step += 1
        if self.step == 1 and self._task is None:
            self._task = self._task_from(prompt_sent)
        step = StepState(
            self.step, prompt_sent, reply_text, payload_ref, self._prompt_from(prompt_sent)
        )
        parse = find_reply(reply_text)
        step.parse = parse
        self._journal(step, "reply")
        if parse.reply is None:
            return self._finish(step, "invalid-json", error=parse.error)
        step.artifacts = write_artifacts(
            self.project_root,
            parse.reply.artifacts,
            max_bytes=self.limits.max_artifact_bytes,
            protected=(self.ledger_root,),
            is_windows=self._is_windows,
        )
        for record in step.artifacts:
            self._log(f"rebound step {step.number}: artifact {record.path}: {record.status}")
        self._journal(step, "artifacts")
        sandbox_hit = any(a.status == "refused" for a in step.artifacts)
        if parse.reply.next_action is None and parse.next_action_error is None:
            return self._final_reply(step, parse, sandbox_hit)
        return self._chain(step, parse, sandbox_hit)

    def close(self, stop_cause: str, *, exit_code: int | None = None) -> None:
        """Record why the loop stopped (max-iterations, timeout, no-progress, …) in the index."""
        self._index["stopCause"] = stop_cause
        if exit_code is not None:
            self._index["exitCode"] = exit_code
        if self._index["status"] == "running":
            self._index["status"] = stop_cause
        self._index["updatedAt"] = utc_now()
        self._ledger.write_index(self._index)

    # -- one reply -------------------------------------------------------------------------

    def _final_reply(self, step: StepState, parse: ReplyParse, sandbox_hit: bool) -> ReboundOutcome:
        assert parse.reply is not None
        reply = parse.reply
        problems = _problems(step.artifacts)
        if sandbox_hit:
            self.refusals += 1
            if self.refusals >= self.limits.max_refusals:
                return self._finish(step, "sandbox-violation", error=_sandbox_error(problems))
        status: OutcomeStatus = reply.status or "done"
        if status == "continue":
            prompt = (
                self._next_prompt(None, [text.artifact_problems_block(problems)])
                if problems
                else None
            )
            return self._finish(step, "continue", next_prompt=prompt)
        final = reply.summary or reply.thought_process or ""
        if problems:
            # The model believes these files exist; the user must not be told "done".
            status = "error"
            final = (final + "\n\n" if final else "") + text.artifact_problems_block(problems)
        return self._finish(step, status, final_text=final, summary=reply.summary)

    def _chain(self, step: StepState, parse: ReplyParse, sandbox_hit: bool) -> ReboundOutcome:
        assert parse.reply is not None
        action = parse.reply.next_action
        problems = _problems(step.artifacts)
        blocks = [text.artifact_problems_block(problems)] if problems else []
        if action is None:
            error = parse.next_action_error or "invalid next_action"
            step.refusal = {"kind": "invalid-next-action", "reason": error}
            blocks.append(text.invalid_action_block(step.number, error))
            return self._continue(step, None, blocks, sandbox_hit)
        step.next_action = action.model_dump()
        target = action.target_script
        if problems:
            reason = "some artifacts of this reply were not written (see above)"
            step.refusal = {
                "kind": "artifacts-not-written",
                "targetScript": target,
                "reason": reason,
            }
            blocks.append(text.not_run_block(step.number, target, reason))
            return self._continue(step, action.continuation_prompt, blocks, sandbox_hit)
        decision = resolve_target_script(self.project_root, target, is_windows=self._is_windows)
        if not decision.ok:
            refused = decision.kind == "refused"
            step.refusal = {
                "kind": decision.kind,
                "targetScript": target,
                "reason": decision.reason,
            }
            self._log(f"rebound step {step.number}: {target} {decision.kind}: {decision.reason}")
            if refused:
                count = self.refusals + 1
                limit = self.limits.max_refusals
                blocks.append(
                    text.refusal_block(
                        step.number, target, decision.reason, count=count, limit=limit
                    )
                )
            else:
                blocks.append(text.not_run_block(step.number, target, decision.reason))
            return self._continue(step, action.continuation_prompt, blocks, sandbox_hit or refused)
        if self.cancel is not None and self.cancel.is_set():
            return self._finish(step, "interrupted", error="interrupted before running the script")
        assert decision.path is not None
        self._log(f"rebound step {step.number}: running {decision.relpath}")
        self._journal(step, "executing")
        isolation = choose_isolation(
            self.project_root, [self.ledger_root], choice=self._isolation, network=self._network
        )
        self._index["isolation"] = isolation.kind
        if isolation.refused is not None:
            step.refusal = {
                "kind": "isolation",
                "targetScript": target,
                "reason": isolation.refused,
            }
            self._log(f"rebound step {step.number}: {target} not run: {isolation.refused}")
            return self._finish(step, "error", error=f"{target} not run: {isolation.refused}")
        before = existing_protected(self.project_root)
        result = run_script(
            decision.path,
            root=self.project_root,
            timeout=self.limits.script_timeout,
            max_output_bytes=self.limits.max_output_bytes,
            cancel=self.cancel,
            log=self._log,
            isolation=isolation,
        )
        for name in remove_new_protected(self.project_root, before):
            self._log(f"rebound step {step.number}: removed {name}, created by the script")
        step.execution = execution_json(target, result)
        step.result = result
        if result.stop_reason == "cancelled":
            return self._finish(step, "interrupted", error="interrupted while the script ran")
        blocks.append(text.execution_block(step.number, target, result))
        return self._continue(step, action.continuation_prompt, blocks, sandbox_hit)

    def _continue(
        self, step: StepState, prompt: str | None, blocks: list[str], sandbox_hit: bool
    ) -> ReboundOutcome:
        if sandbox_hit:
            self.refusals += 1
            if self.refusals >= self.limits.max_refusals:
                reason = (step.refusal or {}).get("reason") or _sandbox_error(
                    _problems(step.artifacts)
                )
                return self._finish(step, "sandbox-violation", error=str(reason))
        return self._finish(step, "continue", next_prompt=self._next_prompt(prompt, blocks))

    def _next_prompt(self, prompt: str | None, blocks: list[str]) -> str:
        """The continuation: the model's prompt, the results, and what a fresh session lacks."""
        if not self._repeat_task:
            return text.continuation(prompt, *blocks)
        task = [text.task_block(self._task)] if self._task else []
        return text.continuation(prompt, *blocks, *task, footer=self.instructions())

    def _task_from(self, first_prompt: str) -> str | None:
        """The task in the first prompt: the text before the protocol instructions."""
        found = first_prompt.find(self.instructions().strip())
        task = first_prompt[:found] if found >= 0 else first_prompt
        task = task.rstrip()
        task = task.removesuffix("---").rstrip()
        return task or None

    # -- bookkeeping -----------------------------------------------------------------------

    def _finish(
        self,
        step: StepState,
        status: OutcomeStatus,
        *,
        next_prompt: str | None = None,
        final_text: str | None = None,
        summary: str | None = None,
        error: str | None = None,
    ) -> ReboundOutcome:
        if status == "sandbox-violation":
            error = f"stopped after {self.refusals} sandbox refusals; last: {error}"
        outcome = ReboundOutcome(
            status=status,
            step=step.number,
            refusals=self.refusals,
            next_prompt=next_prompt,
            final_text=final_text,
            summary=summary,
            artifacts_written=[a.relpath for a in step.artifacts if a.status == "written"],
            artifacts_rejected=[
                f"{a.path}: {a.reason}" for a in step.artifacts if a.status != "written"
            ],
            execution=step.result,
            error=error,
            thought_process=step.parse.reply.thought_process
            if step.parse is not None and step.parse.reply is not None
            else None,
            target_script=(step.next_action or {}).get("target_script"),
            refusal=(step.refusal or {}).get("reason"),
        )
        step.outcome = outcome
        self._journal(step, "complete")
        self._last_next_prompt = next_prompt
        self._index["steps"].append(step.index_entry())
        if status != "continue":
            self._index["status"] = status
            self._index["stopCause"] = status
            self._index["exitCode"] = outcome.exit_code
            self._index["final"] = {
                "step": step.number,
                "status": status,
                "summary": summary,
                "finalText": final_text,
                "error": error,
            }
        self._index["updatedAt"] = utc_now()
        self._ledger.write_index(self._index)
        if self._show is not None:
            self._show(outcome.display())
        return outcome

    def _journal(self, step: StepState, phase: str) -> None:
        self._ledger.write_step(step.number, step.record(self.session_id, phase))

    def _prompt_from(self, prompt: str) -> str:
        if self.step == 1:
            return "instruction"
        previous = f"step-{self.step - 1}"
        if self._last_next_prompt is None:
            return "loop (not a rebound continuation)"
        if prompt == self._last_next_prompt:
            return f"{previous} continuation"
        if self._last_next_prompt in prompt:
            return f"{previous} continuation, with additions by the loop"
        return "loop (not a rebound continuation)"


def _problems(records: list[ArtifactRecord]) -> list[str]:
    return [f"{a.path} ({a.status}: {a.reason})" for a in records if a.status != "written"]


def _sandbox_error(problems: list[str]) -> str:
    return "artifact outside the sandbox: " + "; ".join(problems)


def _default_redactor() -> Redact:
    from jlgcli.artifacts.redact import Redactor

    return Redactor().redact
