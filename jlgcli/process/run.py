"""``run_invocation``: one child, streamed to sinks, stopped by exactly one kill ladder.

The loop is single-threaded on POSIX (a selector over the pipes or the pty
master) and reads up to ``CHUNK`` (256 KiB) at a time, emitting one
``OutputEvent`` per read to every sink. Events carry bytes cut at a UTF-8
character boundary (the tail of a character split across reads waits for the
next read), so a sink that wants text decodes its event alone, lazily, and a
sink that does not costs no decode.
With ``filters`` (the run's redactor, issue 32) each stream is redacted here,
where its bytes enter jlgcli, before any sink sees them: the parser, the
console, the transcript and every tail cut from them only ever hold redacted
text, and the events say so (``OutputEvent.redacted``): the transcript writes
them without a second pass. The terminal responder and the interactive driver still read the raw
bytes (a terminal query or a prompt must not wait for its line to end).
Nothing keeps the output. Every stop — total timeout,
idle timeout, cancel event, Ctrl-C (KeyboardInterrupt in the main thread), the
interactive driver finishing — goes through the same ladder on the whole
process group, and output keeps flowing to the sinks while it runs.

When the direct child exits, whatever is left in its group is stopped
(SIGTERM → SIGKILL: background jobs ignore SIGINT), and reading goes on only
until the streams end or ``DRAIN_AFTER_EXIT`` seconds after the tree is gone,
so a grandchild that escaped the group with our pipe cannot hang the run.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from jlgcli.errors import ExitCode, JlgError
from jlgcli.process import windows
from jlgcli.process.child import Child, start_child
from jlgcli.process.delivery import Delivery
from jlgcli.process.descendants import TREE_MARK, orphans, tree_token
from jlgcli.process.leftovers import descendants_of, end_processes, signal_processes
from jlgcli.process.model import Invocation, Limits, ProcessOutcome, Sink, StopReason
from jlgcli.process.signals import first_interruption, interrupt_signal, signal_name
from jlgcli.process.spawn import (
    IS_WINDOWS,
    CannotStart,
    child_env,
    resolve_argv,
    stdin_bytes,
)
from jlgcli.process.terminal import TerminalResponder, typed_input
from jlgcli.process.tree import Ladder, posix_signal, stop_tree, tree_alive, wait_until

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    from jlgcli.process.interactive import InteractiveDriver
    from jlgcli.process.model import StreamName
    from jlgcli.process.outcome import ByteFilter
    from jlgcli.process.tree import Rung

DRAIN_AFTER_EXIT = 0.5  # seconds to keep reading once the whole tree is gone
TICK = 0.1  # longest wait between checks of the cancel event and the child's exit
# While output flows, the child's exit is normally seen as end-of-file; polling it
# on every read would cost two waitpid calls per 4 KiB pty read.
EXIT_POLL = 0.05
Log = Callable[[str], None]


def run_invocation(
    inv: Invocation,
    *,
    limits: Limits,
    sinks: Sequence[Sink] = (),
    cancel: threading.Event | None = None,
    log: Log | None = None,
    filters: Callable[[], ByteFilter] | None = None,
) -> ProcessOutcome:
    """Run ``inv`` to its end or until a limit fires; stream its output to ``sinks``.

    ``filters``: a factory giving each stream its own streaming transform (a
    ``StreamRedactor``): the sinks get what it returns.

    ``cancel``: setting the event stops the run (CANCELLED). Ctrl-C in
    the main thread stops the tree too: every byte received so far is still
    delivered and the outcome says ``StopReason.CANCELLED`` (the caller maps it
    to exit 130). Raises ``ExecutableNotFound`` when ``inv.argv[0]`` is not
    found and ``JlgError`` for a command line Windows would mangle. A program
    found that the system cannot start (a script whose interpreter is missing)
    gives an outcome with ``StopReason.FAILED_TO_START`` and the reason in ``error``.
    """
    say = log or _no_log
    environ = child_env(inv.env, inv.env_remove)
    environ[TREE_MARK] = tree_token()  # descendants that escape are still recognised as ours
    argv = resolve_argv(inv.argv, env=environ)
    argv = windows.runnable_argv(argv, is_windows=IS_WINDOWS, path=environ.get("PATH"))
    windows.check_argv(argv, is_windows=IS_WINDOWS)
    if inv.cwd is not None and not Path(inv.cwd).is_dir():
        raise JlgError(ExitCode.USAGE, f"working directory not found: {inv.cwd}")
    data = stdin_bytes(inv.stdin)
    interactive = inv.transport == "pty" and inv.interactive is not None
    try:
        child = start_child(
            inv.transport,
            argv,
            cwd=inv.cwd,
            env=environ,
            stdin=None if interactive else data,
            dimensions=inv.dimensions,
            fork_server=inv.fork_server,
        )
    except CannotStart as exc:
        say(str(exc))
        return ProcessOutcome.not_started(str(exc))
    say(f"started {Path(argv[0]).name} (pid {child.tree.pid}, {inv.transport})")
    run = _Run(inv, child, limits, tuple(sinks), cancel, say, data)
    if filters is not None:
        run.out.filters = {"stdout": filters(), "stderr": filters()}
        if inv.transport == "pty":  # a key wrapped at the terminal's width is read whole
            for kept in run.out.filters.values():
                wrapped_at = getattr(kept, "wrapped_at", None)  # a WidthAware filter
                if wrapped_at is not None:
                    wrapped_at(inv.dimensions[1])
    return run.execute()


class _Run:
    """The state of one run; ``execute`` survives KeyboardInterrupt at any point."""

    def __init__(
        self,
        inv: Invocation,
        child: Child,
        limits: Limits,
        sinks: tuple[Sink, ...],
        cancel: threading.Event | None,
        log: Log,
        stdin: bytes | None,
    ) -> None:
        self.child = child
        self.limits = limits
        self.cancel = cancel
        self.log = log
        self.start = self.last_output = time.monotonic()
        self.out = Delivery(sinks)
        self.stop_reason: StopReason | None = None
        self.interrupted_by: int | None = None
        self.snapshot: list[Any] = []  # the child's descendants when a stop began
        self.ladder: Ladder | None = None
        self.child_exited = False
        self.tree_gone = False
        self.drain_until: float | None = None
        self.next_exit_poll = 0.0
        self.responder = TerminalResponder() if child.transport == "pty" else None
        self.driver: InteractiveDriver | None = None
        if child.transport == "pty" and inv.interactive is not None:
            from jlgcli.process.interactive import InteractiveDriver  # pty recipes only

            self.driver = InteractiveDriver(inv.interactive, stdin or b"", now=self.start)
        elif child.transport == "pty" and stdin is not None:
            # Typed input, then the terminal's end of input (^D; Ctrl+Z Enter on Windows).
            child.channel.send(typed_input(stdin, is_windows=IS_WINDOWS))

    def execute(self) -> ProcessOutcome:
        done = False
        while not done:
            try:
                self._loop()
                self.out.flush_carry(time.monotonic())
                self.out.deliver()
                done = True
            except KeyboardInterrupt as exc:
                self._interrupted(exc)
            except BaseException:  # a sink or the log failed: leave no process behind
                self._abort()
                raise
        self.child.channel.close()
        self._end_leftovers()
        code, sig = self.child.status() if self.child_exited else (None, None)
        cannot_start = self.child.start_error()
        self.child.release()
        if cannot_start is not None:  # its exec failed: as if the spawn had raised CannotStart
            self.log(cannot_start)
            return ProcessOutcome.not_started(cannot_start)
        reason = self.stop_reason or StopReason.EXITED
        self.log(f"process {self.child.tree.pid} ended: {reason.value}, exit {code}, signal {sig}")
        return ProcessOutcome(
            exit_code=code,
            signal=sig,
            stop_reason=reason,
            duration=time.monotonic() - self.start,
            pid=self.child.tree.pid,
            stdout_bytes=self.out.counts["stdout"],
            stderr_bytes=self.out.counts["stderr"],
            interrupted_by=self.interrupted_by,
            reply=self.driver.reply if self.driver is not None else None,
        )

    def _abort(self) -> None:
        self.child.channel.close()
        if tree_alive(self.child.tree):
            self.snapshot = self.snapshot or descendants_of(self.child.tree.pid)
            stop_tree(self.child.tree, grace=self.limits.kill_grace, log=_no_log)
        self._end_leftovers()
        self.child.release()

    def _end_leftovers(self) -> None:
        """End what escaped the group: the stop-time descendants and re-parented orphans."""
        grace = self.limits.kill_grace
        if self.ladder is not None and self.ladder.last_rung in ("terminate", "kill"):
            # They had the ladder's SIGTERM already: only the rest of that grace period.
            grace = max(0.0, (self.ladder.next_due or 0.0) - time.monotonic())
        while True:
            try:
                end_processes(
                    [*self.snapshot, *orphans()],
                    grace=grace,
                    log=self.log,
                    reason="after the run",
                )
                return
            except KeyboardInterrupt:  # interrupted again: no more grace
                grace = 0.0

    def _loop(self) -> None:
        channel = self.child.channel
        while True:
            self.out.deliver()
            now = time.monotonic()
            self._check_limits(now)
            self._check_tree(now)
            if self.ladder is not None:
                self.ladder.advance()
            if self.tree_gone and not channel.open:
                return
            if self.drain_until is not None and now >= self.drain_until:
                self.log("output still open after the process tree ended: stopped reading")
                return
            if self.ladder is not None and self.ladder.exhausted and not self.tree_gone:
                self.log(f"process tree {self.child.tree.pid} could not be killed: giving up")
                return
            timeout = self._timeout(now)
            if not channel.open:  # nothing to read: wait for the tree to end
                exit_fd = self.child.tree.exit_fd
                wait_until(lambda: not tree_alive(self.child.tree), timeout, exit_fd=exit_fd)
                continue
            for stream, data in channel.read(timeout):
                self._on_chunk(stream, data)
            if self.driver is not None:
                self._drive(time.monotonic())

    def _on_chunk(self, stream: StreamName, data: bytes) -> None:
        now = time.monotonic()
        if not data:  # end of the stream
            self.out.end(stream, now)
            return
        self.last_output = now
        data = self.out.take(stream, data)
        if not data:
            return
        if self.responder is not None and (reply := self.responder.feed(data)):
            self.child.channel.send(reply)
        if self.driver is not None:
            self.driver.feed(data.decode("utf-8", "replace"))
        self.out.emit(stream, data, now)

    def _drive(self, now: float) -> None:
        assert self.driver is not None
        action = self.driver.poll(now, self.last_output)
        if action.send and not self.child_exited:
            self.child.channel.send(action.send)
        if action.timed_out:
            self._stop(StopReason.TIMEOUT, action.timed_out)
        elif action.finish and self.stop_reason is None and not self.child_exited:
            self.log("interactive: the work is done; ending the program")
            self._start_ladder()

    def _check_limits(self, now: float) -> None:
        if self.stop_reason is not None or self.child_exited:
            return
        total, idle = self.limits.total_timeout, self.limits.idle_timeout
        if self.cancel is not None and self.cancel.is_set():
            self.next_exit_poll = 0.0  # ended already (its exit not polled yet)? nothing to stop
            self._check_tree(now)
            if not self.child_exited:
                self._stop(StopReason.CANCELLED, "cancelled", start_at=_cancelled_rung())
        elif total is not None and now - self.start >= total:
            self._stop(StopReason.TIMEOUT, f"total timeout of {total:g} s reached")
        elif idle is not None and now - self.last_output >= idle:
            self._stop(StopReason.IDLE, f"no output for {idle:g} s (idle timeout)")

    def _check_tree(self, now: float) -> None:
        if self.child.channel.open and now < self.next_exit_poll:
            return
        self.next_exit_poll = now + EXIT_POLL
        if not self.child_exited and self.child.tree.exited():
            self.child_exited = True
            if tree_alive(self.child.tree) and self.ladder is None:
                self.log("the child exited; stopping what is left in its process group")
                self._start_ladder(start_at="terminate")
        if self.child_exited and not self.tree_gone and not tree_alive(self.child.tree):
            self.tree_gone = True
            self.drain_until = now + DRAIN_AFTER_EXIT
            if self.child.channel.open:  # an escaped descendant may hold our pipe: end it now
                self._signal_escapers("terminate")

    def _stop(self, reason: StopReason, message: str, *, start_at: Rung = "polite") -> None:
        if self.stop_reason is not None:
            return
        self.stop_reason = reason
        self.log(message)
        if self.ladder is None:
            self._start_ladder(start_at)

    def _start_ladder(self, start_at: Rung = "polite") -> None:
        if not self.child_exited and not self.snapshot:  # see it before the group dies
            self.snapshot = descendants_of(self.child.tree.pid)
        self.ladder = Ladder(
            self.child.tree,
            grace=self.limits.kill_grace,
            log=self.log,
            start_at=start_at,
            on_rung=self._signal_escapers,
        )
        self.ladder.advance()

    def _signal_escapers(self, rung: Rung) -> None:
        """Each rung also reaches the descendants that left the group (issue 14)."""
        escapers = [p for p in [*self.snapshot, *orphans()] if self._outside_group(p.pid)]
        if not escapers:
            return
        if IS_WINDOWS and rung != "kill":  # pragma: no cover - no signals there
            return
        signum = None if IS_WINDOWS else int(posix_signal(rung))
        self.log(f"the same signal to {len(escapers)} process(es) outside the group")
        signal_processes(escapers, signum)

    def _outside_group(self, pid: int) -> bool:
        group = self.child.tree.pgid
        if group is None:  # Windows: no groups; the Job Object holds the tree
            return True
        if sys.platform == "win32":  # pragma: no cover - narrows for mypy (issue 35)
            raise OSError("POSIX only")
        try:
            return os.getpgid(pid) != group
        except OSError:  # gone already
            return False

    def _interrupted(self, exc: BaseException) -> None:
        if self.stop_reason is None:
            self.interrupted_by = interrupt_signal(exc)
            self._stop(StopReason.CANCELLED, f"interrupted by {signal_name(self.interrupted_by)}")
        elif self.ladder is not None:  # a second Ctrl-C: do not make the user wait a grace period
            self.log("interrupted again: next rung of the kill ladder now")
            self.ladder.advance(force=True)

    def _timeout(self, now: float) -> float:
        deadlines = [now + TICK]
        if self.stop_reason is None and not self.child_exited:
            if self.limits.total_timeout is not None:
                deadlines.append(self.start + self.limits.total_timeout)
            if self.limits.idle_timeout is not None:
                deadlines.append(self.last_output + self.limits.idle_timeout)
        if self.ladder is not None and self.ladder.next_due is not None:
            deadlines.append(self.ladder.next_due)
        if self.drain_until is not None:
            deadlines.append(self.drain_until)
        if self.driver is not None and (due := self.driver.next_deadline(self.last_output)):
            deadlines.append(due)
        return max(0.0, min(deadlines) - now)


def _cancelled_rung(*, is_windows: bool = IS_WINDOWS) -> Rung:
    """Where a cancelled run's ladder starts: at SIGTERM when this process was itself told
    to terminate (a batch cancelled by a CI runner: its tasks end as terminated, 143, and say
    so in their own files), else at the polite rung (SIGINT / CTRL_BREAK)."""
    terminated = not is_windows and first_interruption() == signal.SIGTERM
    return "terminate" if terminated else "polite"


def _no_log(_message: str) -> None:
    pass
