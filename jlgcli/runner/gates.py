"""Gates (issue 17): commands that must pass before a "done" is believed.

``--gate CMD`` (repeatable) or the ``gates`` config key: each is split like
a command line (no shell), run in the working directory after the model says
done, with a time limit. Done is accepted only when every gate exits 0;
otherwise the loop goes on and the next prompt carries the failing gate's
command, exit code and the redacted, bounded tail of its output.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from jlgcli.runner.summary import GateResult

GATE_TIMEOUT_S = 600.0
TAIL_CHARS = 2000
# Bytes of raw output kept to make those characters: room for escape codes and
# multi-byte characters, which the cleaning and the decoding remove or merge.
TAIL_KEPT_BYTES = 4 * 4 * TAIL_CHARS


def run_gates(
    commands: tuple[str, ...],
    cwd: Path,
    *,
    redact: Callable[[str], str],
    cancel: threading.Event | None = None,
    timeout_s: float = GATE_TIMEOUT_S,
) -> list[GateResult]:
    """Run every gate in order (all of them, so the model hears every failure at once)."""
    return [_run_gate(command, cwd, redact, cancel, timeout_s) for command in commands]


def _run_gate(
    command: str,
    cwd: Path,
    redact: Callable[[str], str],
    cancel: threading.Event | None,
    timeout_s: float,
) -> GateResult:
    from jlgcli.cmdline import split_command
    from jlgcli.process import ExecutableNotFound, run_captured
    from jlgcli.process.model import Invocation, Limits, StopReason
    from jlgcli.process.outcome import OutputTail

    started = time.monotonic()
    try:
        argv = split_command(command)
    except ValueError as exc:
        return GateResult(command, None, 0, False, f"cannot split the command: {exc}")
    if not argv:
        return GateResult(command, None, 0, False, "empty gate command")
    output = OutputTail(0, 0, merged_tail=TAIL_KEPT_BYTES)
    try:
        outcome = run_captured(
            Invocation(tuple(argv), cwd=str(cwd)),
            Limits(total_timeout=timeout_s),
            output=output,
            cancel=cancel,
        )
    except ExecutableNotFound as exc:
        return GateResult(command, None, 0, False, f"{exc.name}: command not found")
    if outcome.stop_reason is StopReason.CANCELLED:
        raise KeyboardInterrupt
    if outcome.stop_reason is StopReason.FAILED_TO_START:
        return GateResult(command, None, 0, False, redact(outcome.error or "cannot start"))
    from jlgcli.ansi import clean_terminal_text

    text = clean_terminal_text(output.merged.text()).strip()
    if outcome.stop_reason is StopReason.TIMEOUT:
        text = (text + "\n" if text else "") + f"(stopped after {round(timeout_s)}s)"
    duration = round((time.monotonic() - started) * 1000)
    # redacted whole, then cut: a cut never starts inside a key (issue 32)
    return GateResult(command, outcome.exit_code, duration, outcome.ok, redact(text)[-TAIL_CHARS:])


def failed_gates_block(results: list[GateResult]) -> str:
    """What the next prompt says about the gates that failed."""
    lines = ["You said the task is done, but these checks failed, so it is not done yet:"]
    for gate in results:
        if gate.ok:
            continue
        code = "was stopped" if gate.exitCode is None else f"exited {gate.exitCode}"
        lines.append(f"\n$ {gate.command}\n({code})")
        if gate.outputTail:
            lines.append("Output (tail):\n" + gate.outputTail)
    lines.append("\nFix the cause, make these commands pass, then say done again.")
    return "\n".join(lines)
