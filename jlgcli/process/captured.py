"""Run a command to its end and keep a bounded head and tail of its output.

``run_captured`` is the one way a caller that wants the output afterwards
(dev validation and git, rebound scripts, gates, the pre-commit hook's git,
probes) runs a child: ``run_invocation`` (the one place that spawns: own
process group/session, kill ladder at the limits) with an ``OutputTail`` as
sink, and the ``ProcessOutcome`` it returns carries that tail.

``capture`` is the probe preset (``claude --version``): a total timeout, a
short kill grace, and an interruption raised (``Interrupted``, a
KeyboardInterrupt carrying the signal) after the tree is stopped, because a
probe has no partial result worth returning.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Mapping, Sequence

from jlgcli import records
from jlgcli.process.model import Invocation, Limits, ProcessOutcome, Sink, StopReason
from jlgcli.process.outcome import OutputTail
from jlgcli.process.run import run_invocation
from jlgcli.process.signals import Interrupted

PROBE_GRACE = 0.5  # seconds between rungs of the kill ladder for a probe
PROBE_KEEP = 1024 * 1024  # bytes kept of each end of a probe's stream


def run_captured(
    inv: Invocation,
    limits: Limits,
    *,
    output: OutputTail | None = None,
    sinks: Sequence[Sink] = (),
    cancel: threading.Event | None = None,
    log: Callable[[str], None] | None = None,
) -> ProcessOutcome:
    """Run ``inv`` to its end (or a limit, or ``cancel``); the outcome carries its output.

    ``output``: the bounded collector to fill (default: an ``OutputTail``
    with its default sizes); ``sinks`` see every event after it (live display,
    a cap that sets ``cancel``). Never raises for a failure exit; raises
    ``ExecutableNotFound`` when the program cannot be found (callers that
    report it as a result use ``ProcessOutcome.not_started``).
    """
    kept = output if output is not None else OutputTail()
    outcome = run_invocation(inv, limits=limits, sinks=(kept, *sinks), cancel=cancel, log=log)
    kept.finish()
    return records.replace(outcome, output=kept)


def capture(
    argv: Sequence[str],
    *,
    timeout: float,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    cancel: threading.Event | None = None,
) -> ProcessOutcome:
    """Run ``argv`` until it exits or ``timeout`` seconds pass; never raises for a failure exit.

    ``env`` holds overrides on top of ``os.environ`` (as ``Invocation.env``).
    ``outcome.stdout``/``stderr`` are decoded as UTF-8 with replacement;
    ``exit_code`` is None when the child was killed by a signal and
    ``timed_out`` says the deadline stopped it. Raises ``ExecutableNotFound``
    when the program cannot be found, ``Interrupted`` on Ctrl-C/SIGTERM or ``cancel``.
    """
    outcome = run_captured(
        Invocation(tuple(argv), cwd=cwd, env=dict(env or {}), stdin=stdin),
        Limits(total_timeout=timeout, kill_grace=PROBE_GRACE),
        output=OutputTail(PROBE_KEEP, PROBE_KEEP),
        cancel=cancel,
    )
    if outcome.stop_reason is StopReason.CANCELLED:
        raise Interrupted(outcome.interrupted_by or signal.SIGINT)
    return outcome
