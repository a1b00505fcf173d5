"""One task of a batch, run as a child ``jlgcli loop`` process (issue 37).

Why a child process and not a thread over ``jlgcli.api.execute``: the engine
owns process-wide things — signal handlers (only the main thread gets them),
the Linux child subreaper that reaps every orphan at the end of a call, the
console. Two loops in one process would reap each other's children and share
one Ctrl-C. A child ``jlgcli loop TASK --json --events -`` has all of its
guardrails, its own state and kill tree; the parent only schedules, reads the
child's events as they come and, to stop it, sends the kill ladder (SIGINT
first, so the child writes its state and ``result.json`` like any interrupted
loop; SIGTERM first when the batch was itself told to terminate, so the task's
own records say 143 as the batch's do: ``process.run``'s cancelled rung).

The child's events come on its stdout, ahead of its ``--json`` summary, through
the pipe the parent reads anyway: each reaches the batch's ``--events`` file as
soon as the child wrote it, never a polling interval later (a task's line is
as fresh as a single loop's). Each task's thread also prepares its worktree
before the child starts and commits its result after it ends, so tasks set up
and finish side by side instead of one after another in the scheduler.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from jlgcli.process.model import OutputEvent
from jlgcli.records import field, record

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.process.model import ForkServer

# Set in each task's environment for its agent: an agent's own ``jlgcli loop a b`` is refused
# there (a batch door check). The core never reads it: a loop is a batch's task when its
# options say so (``RunOptions.batch_task``, handed down with ``--task-options``, issue 44).
TASK_ENV = "JLGCLI_BATCH_TASK"


@record(frozen=False)
class Forking:
    """The batch's task server while the batch runs (``task_server``): ``tasks`` forks a
    task (None: each task starts its own interpreter); ``take_spawns`` has it start the
    supervisors of the batch's own children (its gits) too, from then on."""

    tasks: ForkServer | None = None
    take_spawns: Callable[[], None] = lambda: None


@contextlib.contextmanager
def task_server() -> Iterator[Forking]:
    """Start the task server (Linux, the jlgcli program: ``jlgcli.batch.task_server``):
    started first, it warms up while the batch sets up; ended when the batch ends."""
    from jlgcli.process.descendants import supervisor_wanted

    if not supervisor_wanted():  # not Linux; a host program, the frozen exe: no adoption
        yield Forking()
        return
    if not sys.platform.startswith("linux"):  # pragma: no cover - narrows for mypy (issue 35)
        raise OSError("Linux only")
    from jlgcli.batch import task_server as forking  # Linux only
    from jlgcli.process import warm

    server = forking.start_server()
    if server is None:
        yield Forking()
        return
    try:  # one warm process for the batch's own gits too, once it is warm
        yield Forking(forking.TaskForker(server), lambda: warm.serve_from(server))
    finally:
        forking.retire_server(server)


@record(frozen=False)
class Live:
    """What the parent knows of a running task, from its events file."""

    backend: str = ""
    iteration: int = 0
    cost: float = 0.0
    cost_known: bool = False
    run_id: str | None = None
    activity: str = ""
    waiting: bool = False
    agent_heard: bool = False  # the agent said something: the task is past its start
    run_ended: bool = False  # its run is over: what is left is the process's exit


Hook = Callable[["ChildRun"], None]


@record(frozen=False)
class ChildRun:
    """A task's child process: its argv, files and the thread that runs it.

    The thread runs ``prepare`` (the worktree), the child, then ``after`` (the commit);
    ``exited`` is set once the child process is gone (its slot is free again) and ``wake``
    at every step and every event, so the scheduler blocks on it instead of polling.
    """

    name: str
    argv: list[str]
    cwd: Path
    events_path: Path
    stdout_path: Path
    stderr_path: Path
    env: dict[str, str] = field(default_factory=dict)
    cancel: threading.Event = field(default_factory=threading.Event)
    live: Live = field(default_factory=Live)
    exit_code: int | None = None
    summary: dict[str, Any] | None = None
    prepare: Hook | None = None
    after: Hook | None = None
    on_event: Callable[[dict[str, Any]], None] | None = None
    wake: threading.Event = field(default_factory=threading.Event)
    exited: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None  # what ``prepare`` or ``after`` raised
    fork_server: ForkServer | None = None  # Linux: the batch's task server (task_server)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"task-{self.name}", daemon=True)
        self._thread.start()

    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        try:
            if self._prepared() and not self.cancel.is_set():
                self._run_child()
        except Exception as exc:  # handed to the scheduler's thread, raised there
            self.error = exc
        finally:
            self.exited.set()
            self.wake.set()
        try:
            if self.after is not None and self.error is None:
                self.after(self)
        except Exception as exc:  # as above
            self.error = exc
        finally:
            self.wake.set()

    def _prepared(self) -> bool:
        """Run ``prepare``; when it fails (git could not make the worktree) the task ends
        there, with the reason in its log, and the other tasks go on."""
        if self.prepare is None:
            return True
        try:
            self.prepare(self)
        except Exception as exc:  # GitError, OSError: this task's failure
            self.stderr_path.write_text(f"jlgcli: cannot prepare the task: {exc}\n", "utf-8")
            return False
        return True

    def _run_child(self) -> None:
        from jlgcli.process import run_invocation
        from jlgcli.process.model import Invocation, Limits

        with (
            self.stdout_path.open("wb") as out,
            self.stderr_path.open("wb") as err,
            self.events_path.open("wb") as events,
        ):
            sink = _EventSink(out, err, events, self.event)
            outcome = run_invocation(
                Invocation(
                    tuple(self.argv),
                    cwd=str(self.cwd),
                    env={TASK_ENV: self.name, **self.env},
                    fork_server=self.fork_server,
                ),
                limits=Limits(kill_grace=10.0),
                sinks=(sink,),
                cancel=self.cancel,
            )
            sink.close()
        self.exit_code = outcome.exit_code
        self.summary = read_summary(self.stdout_path)

    def event(self, event: dict[str, Any]) -> None:
        """One event of the child, as it arrives: noted for the board, passed on, wakes."""
        self._note(event)
        if self.on_event is not None:
            self.on_event(event)
        self.wake.set()

    def _note(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        live = self.live
        if live.run_id is None and isinstance(event.get("runId"), str):
            live.run_id = event["runId"]
        if kind == "iteration-started":
            live.iteration = int(event.get("iteration") or live.iteration)
            live.backend = str(event.get("backend") or live.backend)
            live.waiting, live.activity = False, "calling"
        elif kind == "run-started":
            live.backend = str(event.get("backend") or live.backend)
        elif kind == "agent-activity":
            live.agent_heard = True
            cost = event.get("costUsd")
            if event.get("kind") == "usage" and isinstance(cost, (int, float)):
                live.cost += float(cost)
                live.cost_known = True
            live.activity = str(event.get("kind") or "")
        elif kind == "limit-wait":
            live.waiting, live.activity = True, f"rate limit: waiting {event.get('seconds')}s"
        elif kind == "gate-result":
            live.activity = "gates"
        elif kind == "run-ended":
            live.run_ended = True


EVENT_START = b'{"schemaVersion":'  # how every line of ``runner.events`` begins


class _EventSink:
    """The child's stdout split into its event lines (to ``deliver`` and the task's events
    file) and the rest (its ``--json`` summary); its stderr to the task's log."""

    def __init__(
        self,
        out: IO[bytes],
        err: IO[bytes],
        events: IO[bytes],
        deliver: Callable[[dict[str, Any]], None],
    ) -> None:
        self.out, self.err, self.events, self.deliver = out, err, events, deliver
        self._pending = b""

    def __call__(self, event: OutputEvent) -> None:
        if event.stream != "stdout":
            self.err.write(event.data)
            return
        lines = (self._pending + event.data).split(b"\n")
        self._pending = lines.pop()
        for line in lines:
            self._line(line + b"\n")
        if self._pending and not EVENT_START.startswith(self._pending[: len(EVENT_START)]):
            self.out.write(self._pending)  # summary text: no need to wait for its line end
            self._pending = b""

    def close(self) -> None:
        if self._pending:
            self._line(self._pending)
            self._pending = b""

    def _line(self, line: bytes) -> None:
        if line.startswith(EVENT_START):
            try:
                event = json.loads(line)
            except ValueError:
                event = None
            if isinstance(event, dict):
                self.events.write(line)
                self.events.flush()
                self.deliver(event)
                return
        self.out.write(line)


def read_summary(path: Path) -> dict[str, Any] | None:
    """The child's ``--json`` summary (its stdout), or None when it printed none."""
    try:
        data = json.loads(path.read_text("utf-8", errors="replace"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
