"""Find a run or a batch and follow its events as they are written (issue 51).

What ``jlgcli watch`` and the dashboard read: ``find_run_or_batch`` turns ``latest``, an id
or a unique id prefix into a ``Target`` (a run's folder, or a batch's under ``.batches``);
``Follower`` yields its ``events.ndjson`` lines one by one, those already written first,
then each new one as it comes, and stops at the end event (``run-ended``, ``batch-ended``),
when the process that held the folder's lock is gone and nothing more came, or when
``stop`` is set. Everything read is input: a line that is not a JSON object of this
schema for this very run or batch is skipped, never acted on; no id read from a file
becomes a path.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from jlgcli.artifacts.layout import EVENTS_FILE
from jlgcli.artifacts.tail import Tail
from jlgcli.errors import ExitCode, JlgError

POLL_S = 0.25  # how often a quiet file is looked at again
GRACE_S = 1.0  # after the lock is free: a last look for lines still on their way
END_TYPES = {"run": "run-ended", "batch": "batch-ended"}
LATEST = "latest"
_OWNERS = 5  # the newest batches a run of ``latest`` may be a task of
_FIRST_LINE = 64 * 1024  # bytes: a run-started event is far shorter

Kind = Literal["run", "batch"]
Ending = Literal["ended", "gone", "stopped"]


@dataclass(frozen=True)
class Target:
    """A run or a batch of this project: its id and folder (derived, never read from a file)."""

    kind: Kind
    id: str
    folder: Path
    runs_root: Path

    @property
    def events_path(self) -> Path:
        return self.folder / EVENTS_FILE

    def is_live(self) -> bool:
        """A process holds its folder's lock: it is still going."""
        from jlgcli.config.started import is_running

        return is_running(self.folder)


def find_run_or_batch(name: str | None, cwd: Path, *, runs_dir: str | None = None) -> Target:
    """``latest`` (or None), a run id, a batch id, or a unique prefix of one; else exit 64."""
    from jlgcli.batch.record import BATCHES, list_batches
    from jlgcli.config.paths import configured_runs_root
    from jlgcli.runner.listing import run_ids

    root = configured_runs_root(cwd, runs_dir)
    runs, batches = run_ids(root), list_batches(root)
    if name is None or name == LATEST:
        return _latest(root, runs, batches)
    pool, kind = (batches, "batch") if name.startswith("batch-") else (runs, "run")
    matches = [item for item in pool if item == name] or [
        item for item in pool if item.startswith(name)
    ]
    if len(matches) == 1:
        folder = root / BATCHES / matches[0] if kind == "batch" else root / matches[0]
        return Target("batch" if kind == "batch" else "run", matches[0], folder, root)
    if matches:
        raise JlgError(ExitCode.USAGE, f"{name!r} is ambiguous: it begins {len(matches)} ids",
                       hint="give more of it: " + ", ".join(matches[:5]))  # fmt: skip
    recent = sorted([*runs, *batches], key=_newest_key, reverse=True)[:5]
    if not recent:
        raise _nothing_yet(root)
    hint = "recent ones: " + ", ".join(recent) + " (jlgcli runs lists them)"
    raise JlgError(ExitCode.USAGE, f"no run or batch {name!r} in {root}", hint=hint)


def _latest(root: Path, runs: list[str], batches: list[str]) -> Target:
    """The newest this user started here (their own record, as ``--resume latest``), else
    the newest folder (ids sort by time): reading one a repository planted runs nothing."""
    from jlgcli.batch.record import BATCHES
    from jlgcli.config.started import started_here

    known_runs, known_batches = set(runs), set(batches)
    for ident in started_here(root):
        if ident in known_batches:
            return Target("batch", ident, root / BATCHES / ident, root)
        if ident in known_runs:
            owner = _owning_batch(root, ident, batches[:_OWNERS])  # a batch's task: the batch
            if owner is not None:
                return Target("batch", owner, root / BATCHES / owner, root)
            return Target("run", ident, root / ident, root)
    newest = sorted([*runs, *batches], key=_newest_key, reverse=True)
    if not newest:
        raise _nothing_yet(root)
    if newest[0] in known_batches:
        return Target("batch", newest[0], root / BATCHES / newest[0], root)
    return Target("run", newest[0], root / newest[0], root)


def _owning_batch(root: Path, run_id: str, batches: list[str]) -> str | None:
    """The batch whose task ``run_id`` is: a task's first event (in the batch's folder,
    ``<task>.events.jsonl``) names its run from the start, before the record does."""
    from jlgcli.batch.record import BATCHES

    for batch_id in batches:
        try:
            files = sorted((root / BATCHES / batch_id).glob("*.events.jsonl"))
        except OSError:
            continue
        for path in files:
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    first = handle.readline(_FIRST_LINE)
            except OSError:
                continue
            try:
                event = json.loads(first)
            except ValueError:
                continue
            if isinstance(event, dict) and event.get("runId") == run_id:
                return batch_id
    return None


def _newest_key(ident: str) -> str:
    return ident.removeprefix("batch-")


def _nothing_yet(root: Path) -> JlgError:
    return JlgError(ExitCode.USAGE, f"no run or batch yet in {root}",
                    hint="start one (jlgcli loop task.md), then watch it from another "
                    "terminal: jlgcli watch")  # fmt: skip


def parse_event(line: str, target: Target) -> dict[str, Any] | None:
    """The event on ``line`` when it is one of ``target``'s, else None (skipped)."""
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("schemaVersion") != 1:
        return None
    if not isinstance(data.get("type"), str) or not isinstance(data.get("time"), str):
        return None
    owner = data.get("batchId" if target.kind == "batch" else "runId")
    return data if owner == target.id else None


class Follower:
    """Iterate over ``target``'s events, following the file while the run or batch goes on.

    ``ending`` says why it stopped: ``ended`` (its end event), ``gone`` (no process holds
    its lock and nothing more came: it ended without writing its end, or before it wrote
    events) or ``stopped`` (``stop`` was set). ``caught_up`` is True once everything
    written so far was read; ``on_idle`` is called at every quiet poll after that (a
    view's clocks, in the iterating thread).
    """

    def __init__(
        self,
        target: Target,
        *,
        stop: threading.Event | None = None,
        on_idle: Callable[[], None] | None = None,
        poll_s: float = POLL_S,
        grace_s: float = GRACE_S,
        is_live: Callable[[], bool] | None = None,
    ) -> None:
        self.target = target
        self.tail = Tail(target.events_path)
        self.stop = stop if stop is not None else threading.Event()
        self.on_idle = on_idle
        self.poll_s, self.grace_s = poll_s, grace_s
        self.is_live = is_live or target.is_live
        self.ending: Ending | None = None
        self.caught_up = False
        self.skipped = 0  # lines that were not this target's events

    def __iter__(self) -> Iterator[dict[str, Any]]:
        end_type = END_TYPES[self.target.kind]
        gone_since: float | None = None
        while not self.stop.is_set():
            lines = self.tail.lines()
            for line in lines:
                event = parse_event(line, self.target)
                if event is None:
                    self.skipped += int(bool(line.strip()))
                    continue
                yield event
                if event["type"] == end_type:
                    self.ending = "ended"
                    return
            if not self.tail.at_end():
                continue  # more is there already (a read takes a bounded chunk)
            self.caught_up = True
            if self.is_live():
                gone_since = None
            elif gone_since is None:
                gone_since = time.monotonic()
            elif time.monotonic() - gone_since >= self.grace_s:
                self.ending = "gone"
                return
            if self.on_idle is not None:
                self.on_idle()
            self.stop.wait(self.poll_s)
        self.ending = "stopped"


def follow_events(
    target: Target, *, stop: threading.Event | None = None
) -> Iterator[dict[str, Any]]:
    """``target``'s events: those written so far, then each new one until it ends (or
    ``stop`` is set): ``Follower`` without its extras."""
    return iter(Follower(target, stop=stop))
