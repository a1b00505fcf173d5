"""One iteration's reply: the completion protocol, a question, the gates and the budgets.

Part of the engine's inner loop (``runner.iterations``): ``decide`` reads the
reply under the run's completion protocol and applies what it says — done
(once the gates pass), go on (unless no progress, a stuck gate or a budget
stops the run), a question for the user (the run parks on it: never done,
never "no progress"; issue 51), or an error.
"""

from __future__ import annotations

from jlgcli.completion import Decision
from jlgcli.completion.protocol import Reply
from jlgcli.runner.record import interruption_message
from jlgcli.runner.summary import IterationMetrics

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.runner.iteration import CallResult
    from jlgcli.runner.iterations import IterationLoop

GATE_TAIL_LINES = 10  # lines of a gate's output shown with -v


def decide(loop: IterationLoop, iteration: int, call: CallResult, prompt: str) -> bool:
    """Apply the completion protocol, gates and budgets; True when the run stops."""
    record, metrics = loop.record, loop.record.metrics[-1]
    decision = loop.completion.decide(
        Reply(iteration, call.result.text, prompt, loop.recorder.payload_ref(iteration))
    )
    asked = call.result.question if loop.spec.is_loop else None
    if decision.status == "invalid-json" and loop.spec.completion_mode == "json" and not asked:
        from jlgcli.runner.repair import ask_once_more

        decision = ask_once_more(loop, iteration, call, decision)
    if asked is not None and decision.status in ("continue", "invalid-json"):
        # asked through the CLI's own tool (claude AskUserQuestion, copilot ask_user)
        why = "the agent asked through its CLI's tool"
        decision = Decision("question", summary=decision.summary, next=decision.next,
                            question=asked, reason=why)  # fmt: skip
    metrics.completion, metrics.summary, metrics.next = (
        decision.status, decision.summary, decision.next,
    )  # fmt: skip
    metrics.protocolViolation = decision.protocol_violation
    record.last_summary, record.last_next = decision.summary, decision.next
    if decision.protocol_violation:
        record.violations += 1
        record.last_violation = f"iteration {iteration}: {decision.reason}"
    before, loop.tree = loop.tree, loop.evidence.snapshot() if loop.tree is not None else None
    metrics.diffStat = loop.evidence.diff_stat(before, loop.tree)
    stopped = apply(loop, decision, call, metrics)
    loop.recorder.iteration_ended(metrics)
    return stopped


def park(loop: IterationLoop, decision: Decision, call: CallResult, iteration: int) -> None:
    """The agent cannot go on without the user: the run stops on its question, which the
    state keeps for ``jlgcli answer`` (the reply is the next prompt's report)."""
    question = loop.recorder.redactor.redact(decision.question or "")
    loop.record.question = question
    loop.prompter.remember(call.result.text, decision.summary, decision.next, None)
    loop.recorder.asked(iteration, question)
    loop.record.stop("question", f"the agent asks: {question}")


def apply(
    loop: IterationLoop, decision: Decision, call: CallResult, metrics: IterationMetrics
) -> bool:
    """What the decision means for the run; True when it stops."""
    record = loop.record
    status = decision.status
    if status == "question":
        park(loop, decision, call, metrics.index)
        return True
    if loop.spec.is_loop and status in ("done", "continue"):
        from jlgcli.runner.denials import judge_denials

        stop, loop.denial_feedback = judge_denials(loop.denied, metrics, loop.spec.permissions)
        if stop is not None:
            record.stop("permission-denied", stop)
            return True
        if loop.denial_feedback is not None and status == "done":
            status, metrics.completion = "continue", "denied"  # its writes never happened
    gated = status == "done" and loop.spec.gates and loop.spec.is_loop
    if gated and not gates_pass(loop, metrics):
        status = "continue"
        metrics.completion = "gates-failed"
    if status == "done":
        if decision.final_text is not None:
            record.last_text = loop.recorder.redactor.redact(decision.final_text)
        record.stop("done", None)
        return True
    if status == "continue":
        return _go_on(loop, decision, call, metrics)
    if decision.final_text is not None:
        record.last_text = loop.recorder.redactor.redact(decision.final_text)
    if status == "error":
        record.stop("error", decision.error or decision.summary or "the model reported an error")
    elif status == "invalid-json":
        record.stop("invalid-json", decision.error or decision.reason,
                    tail=call.result.text[-1000:])  # fmt: skip
    elif status == "interrupted":  # rebound: a signal while the script ran
        detail = decision.error or decision.reason
        record.stop(status, f"{interruption_message(record.signal_number)} ({detail})")
    else:  # sandbox-violation (rebound)
        record.stop(status, decision.error or decision.reason)
    return True


def _go_on(
    loop: IterationLoop, decision: Decision, call: CallResult, metrics: IterationMetrics
) -> bool:
    """Work remains: the next prompt's report, then no progress and the budgets."""
    record = loop.record
    if metrics.completion != "gates-failed":
        loop.prompter.remember(call.result.text, decision.summary, decision.next,
                               decision.next_prompt)  # fmt: skip
    if loop.denial_feedback is not None:
        loop.prompter.add_feedback(loop.denial_feedback)
        loop.denial_feedback = None
    changed = bool(metrics.diffStat and metrics.diffStat.get("files"))
    failed = tuple(gate.command for gate in metrics.gates or () if not gate.ok)
    if loop.stuck_gates.observe(failed, worktree_changed=changed):
        record.stop("no-progress", loop.stuck_gates.message())
        return True
    if loop.no_progress.observe(call.result.text, worktree_changed=changed):
        limit = loop.spec.no_progress_limit
        record.stop("no-progress", f"{limit} iterations in a row with near-identical "
                                   "replies and no file changed")  # fmt: skip
        return True
    from jlgcli.runner.policy import judge_budget

    budget = judge_budget(loop.counters, loop.rails)
    if budget is not None:
        record.stop(budget.cause, budget.message)
        return True
    return False


def gates_pass(loop: IterationLoop, metrics: IterationMetrics) -> bool:
    """Run the gates after a "done"; False (with the failures in the next prompt) if any fails."""
    from jlgcli.runner.gates import failed_gates_block, failure_lines, run_gates

    spec, console, record = loop.spec, loop.console, loop.record
    console.progress(f"the model says done: running {len(spec.gates)} gate(s)")
    results = run_gates(spec.gates, spec.cwd, redact=loop.recorder.redactor.redact,
                        cancel=loop.cancel)  # fmt: skip
    metrics.gates = results
    for note in loop.gate_notes:  # only the latest gate failures stay in the diagnosis
        record.diagnosis.remove(note)
    loop.gate_notes = []
    for gate in results:
        loop.recorder.events.emit("gate-result", iteration=metrics.index, command=gate.command,
                                  exitCode=gate.exitCode, ok=gate.ok)  # fmt: skip
        if gate.ok:
            console.progress(f"gate passed: {gate.command}")
            if gate.outputTail:  # -v (issue 38); a failing gate's tail is always shown
                tail = "\n".join(gate.outputTail.splitlines()[-GATE_TAIL_LINES:])
                console.detail(f"gate {gate.command} output (tail):\n{tail}")
            continue
        shown = failure_lines(gate)
        for line in shown:
            console.progress(line)
        note = f"iteration {metrics.index}: {shown[0]}"
        if len(shown) > 1:
            note += " — last lines: " + " ⏎ ".join(line[4:] for line in shown[-3:])
        loop.gate_notes.append(note)
    record.diagnosis.extend(loop.gate_notes)
    if all(gate.ok for gate in results):
        return True
    loop.prompter.remember(record.last_text, None, None, None)
    loop.prompter.add_feedback(failed_gates_block(results))
    loop.no_progress.reset()
    return False
