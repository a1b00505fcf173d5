"""One task of a batch, run as a child ``jlgcli loop`` process (issue 37).

Why a child process and not a thread over ``jlgcli.api.execute``: the engine
owns process-wide things — signal handlers (only the main thread gets them),
the Linux child subreaper that reaps every orphan at the end of a call, the
console. Two loops in one process would reap each other's children and share
one Ctrl-C. A child ``jlgcli loop TASK --json --events FILE`` has all of its
guardrails, its own state and kill tree; the parent only schedules, watches
the events file and, to stop it, sends the kill ladder (SIGINT first, so the
child writes its state and ``result.json`` like any interrupted loop).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from jlgcli.process.model import OutputEvent

TASK_ENV = "JLGCLI_BATCH_TASK"  # set in each task's environment (its agent's too)

# Flags of ``loop`` passed on to every task as given (the budget is the parent's).
PASSED_VALUES = (
    ("backend", "--backend"),
    ("model", "--model"),
    ("permissions", "--permissions"),
    ("timeout", "--timeout"),
    ("idle_timeout", "--idle-timeout"),
    ("max_iterations", "--max-iterations"),
    ("iteration_timeout", "--iteration-timeout"),
    ("completion", "--completion"),
    ("no_progress_limit", "--no-progress-limit"),
    ("session", "--session"),
    ("script_timeout", "--script-timeout"),
)
PASSED_LISTS = (("gate", "--gate"), ("backend_arg", "--backend-arg"))


def passed_flags(args: Any) -> list[str]:
    """The flags of the parent's command line each task's loop gets too."""
    flags: list[str] = []
    for name, flag in PASSED_VALUES:
        value = getattr(args, name, None)
        if value is not None:
            flags += [flag, str(value)]
    for names in getattr(args, "fallback", None) or []:
        flags += ["--fallback", ",".join(names)]
    for name, flag in PASSED_LISTS:
        for value in getattr(args, name, None) or []:
            flags.append(f"{flag}={value}")
    return flags


@dataclass
class Live:
    """What the parent knows of a running task, from its events file."""

    backend: str = ""
    iteration: int = 0
    cost: float = 0.0
    cost_known: bool = False
    run_id: str | None = None
    activity: str = ""
    waiting: bool = False


@dataclass
class ChildRun:
    """A task's child process: its argv, files and the thread that runs it."""

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
    _offset: int = 0
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self.events_path.unlink(missing_ok=True)
        self._thread = threading.Thread(target=self._run, name=f"task-{self.name}", daemon=True)
        self._thread.start()

    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        from jlgcli.process import run_invocation
        from jlgcli.process.model import Invocation, Limits

        with self.stdout_path.open("wb") as out, self.stderr_path.open("wb") as err:
            sink = _FileSink(out, err)
            outcome = run_invocation(
                Invocation(
                    tuple(self.argv),
                    cwd=str(self.cwd),
                    env={TASK_ENV: self.name, **self.env},
                ),
                limits=Limits(kill_grace=10.0),
                sinks=(sink,),
                cancel=self.cancel,
            )
        self.exit_code = outcome.exit_code
        self.summary = _summary(self.stdout_path)

    def read_events(self) -> list[dict[str, Any]]:
        """Events written since the last call (whole lines only); updates ``live``."""
        try:
            with self.events_path.open("rb") as stream:
                stream.seek(self._offset)
                data = stream.read()
        except OSError:
            return []
        end = data.rfind(b"\n") + 1
        self._offset += end
        events = []
        for line in data[:end].splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                events.append(event)
                self._note(event)
        return events

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
            cost = event.get("costUsd")
            if event.get("kind") == "usage" and isinstance(cost, (int, float)):
                live.cost += float(cost)
                live.cost_known = True
            live.activity = str(event.get("kind") or "")
        elif kind == "limit-wait":
            live.waiting, live.activity = True, f"rate limit: waiting {event.get('seconds')}s"
        elif kind == "gate-result":
            live.activity = "gates"


class _FileSink:
    def __init__(self, out: IO[bytes], err: IO[bytes]) -> None:
        self.out, self.err = out, err

    def __call__(self, event: OutputEvent) -> None:
        (self.out if event.stream == "stdout" else self.err).write(event.data)


def _summary(path: Path) -> dict[str, Any] | None:
    """The child's ``--json`` summary (its stdout), or None when it printed none."""
    try:
        data = json.loads(path.read_text("utf-8", errors="replace"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
