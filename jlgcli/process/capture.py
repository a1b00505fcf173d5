"""Run a short command to completion and capture its output (probes like ``claude --version``).

A thin layer over ``run_invocation`` (the one place that spawns): stdin is
the given text or the null device, the child gets its own process
group/session, and at the timeout the whole tree goes through the kill ladder
(with a short grace) and ``timed_out`` is set. A grandchild holding the pipes
cannot make it hang. An interruption still raises (``Interrupted``, a
KeyboardInterrupt carrying the signal) after the tree is stopped, because a
probe has no partial result worth returning.
"""

from __future__ import annotations

import signal
from collections.abc import Mapping, Sequence

from jlgcli.process.model import CaptureResult, Invocation, Limits, OutputEvent, StopReason
from jlgcli.process.run import run_invocation
from jlgcli.process.signals import Interrupted

PROBE_GRACE = 0.5  # seconds between rungs of the kill ladder for a probe


def capture(
    argv: Sequence[str],
    *,
    timeout: float,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
) -> CaptureResult:
    """Run ``argv`` until it exits or ``timeout`` seconds pass; never raises for a failure exit.

    ``env`` holds overrides on top of ``os.environ`` (as ``Invocation.env``).
    Output is decoded as UTF-8 with replacement. ``exit_code`` is None when
    the child was killed by a signal. Raises ``ExecutableNotFound`` when the
    program cannot be found.
    """
    parts: dict[str, list[bytes]] = {"stdout": [], "stderr": []}

    def collect(event: OutputEvent) -> None:
        parts[event.stream].append(event.data)  # decoded once, at the end

    outcome = run_invocation(
        Invocation(tuple(argv), cwd=cwd, env=dict(env or {}), stdin=stdin),
        limits=Limits(total_timeout=timeout, kill_grace=PROBE_GRACE),
        sinks=(collect,),
    )
    if outcome.stop_reason is StopReason.CANCELLED:
        raise Interrupted(outcome.interrupted_by or signal.SIGINT)
    return CaptureResult(
        exit_code=outcome.exit_code,
        stdout=b"".join(parts["stdout"]).decode("utf-8", "replace"),
        stderr=b"".join(parts["stderr"]).decode("utf-8", "replace"),
        timed_out=outcome.stop_reason is StopReason.TIMEOUT,
        duration=outcome.duration,
    )
