"""Gates (issue 17): commands that must pass before a "done" is believed.

``--gate CMD`` (repeatable) or the ``gates`` config key: each is split like
a command line (no shell), run in the working directory after the model says
done, with a time limit. Done is accepted only when every gate exits 0;
otherwise the loop goes on and the next prompt carries the failing gate's
command, exit code and the redacted, bounded tail of its output.

Gates are checked before the first paid call (issue 31, ``check_gates``): an
empty command, unbalanced quotes, shell syntax (``&&``, ``|``, ``;``, ``>``,
``<``, ``&``: no shell runs a gate, so these would reach the program as
arguments) or a program that cannot be found is a usage error (exit 64), not
a loop that burns every iteration on a gate that can never pass.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from jlgcli.errors import ExitCode, JlgError
from jlgcli.runner.summary import GateResult

GATE_TIMEOUT_S = 600.0
TAIL_CHARS = 2000
# Bytes of raw output kept to make those characters: room for escape codes and
# multi-byte characters, which the cleaning and the decoding remove or merge.
TAIL_KEPT_BYTES = 4 * 4 * TAIL_CHARS
SHOWN_LINES = 10  # of a failing gate's output, on the terminal
_OPERATOR_CHARS = "&|;<>"
_WHERE = "a gate comes from --gate or the gates config key"


def check_gates(commands: tuple[str, ...], *, is_windows: bool = os.name == "nt") -> None:
    """Exit 64 naming the first gate that cannot run as written (see the module docstring)."""
    for command in commands:
        _check_gate(command, is_windows=is_windows)


def _check_gate(command: str, *, is_windows: bool) -> None:
    from jlgcli.cmdline import split_command
    from jlgcli.process.spawn import resolve_executable

    if not command.strip():
        raise _usage("empty gate command", "give the command to run, e.g. --gate 'pytest -q'")
    operator = shell_operator(command, is_windows=is_windows)
    if operator is not None:
        raise _usage(
            f"gate {command!r}: {operator!r} is shell syntax, and no shell runs a gate",
            "run a shell explicitly (--gate \"sh -c 'pytest -q && ruff check .'\") "
            "or put the commands in a script",
        )
    try:
        argv = split_command(command, is_windows=is_windows)
    except ValueError as exc:  # shlex: "No closing quotation"
        raise _usage(f"gate {command!r}: {str(exc).lower()}", "balance the quotes") from None
    if resolve_executable(argv[0]) is None:
        raise _usage(
            f"gate {command!r}: {argv[0]}: command not found",
            "install it, or give the program's path (it is looked up on PATH)",
        )


def _usage(message: str, hint: str) -> JlgError:
    return JlgError(ExitCode.USAGE, message, hint=f"{hint}; {_WHERE}")


def shell_operator(command: str, *, is_windows: bool = os.name == "nt") -> str | None:
    """The first shell operator outside quotes in ``command`` (``&&``, ``|``, ``>``…), or None.

    Quotes follow the rules ``split_command`` splits by: POSIX single and double
    quotes and backslash escapes, or only double quotes on Windows.
    """
    quote: str | None = None
    i = 0
    while i < len(command):
        char = command[i]
        if char == "\\" and is_windows:  # 2n+1 backslashes before " make it a literal quote
            run = len(command) - i - len(command[i:].lstrip("\\"))
            i += run + (run % 2 and command[i + run : i + run + 1] == '"')
            continue
        if quote is not None:
            if char == quote:
                quote = None
            elif char == "\\" and quote == '"' and not is_windows:
                i += 1  # \" inside double quotes
        elif char == '"' or (char == "'" and not is_windows):
            quote = char
        elif char == "\\" and not is_windows:
            i += 1  # an escaped character is a literal
        elif char in _OPERATOR_CHARS:
            end = i
            while end < len(command) and command[end] in _OPERATOR_CHARS:
                end += 1
            return command[i:end]
        i += 1
    return None


def failure_lines(gate: GateResult, limit: int = SHOWN_LINES) -> list[str]:
    """What a person is shown of a failing gate: the command, its exit and its last lines."""
    code = "was stopped" if gate.exitCode is None else f"exit {gate.exitCode}"
    lines = [f"gate failed ({code}): {gate.command}"]
    tail = [line for line in gate.outputTail.splitlines() if line.strip()][-limit:]
    return lines + [f"  | {line}" for line in tail]


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
