"""What the dev loop remembers about the task in progress, outside the work tree.

The context files say which step comes next (``state.py``); this record keeps
what they cannot: the work tree as it was when the task began (FR-4.2 step 8
commits only what the task changed), the agents that worked on the task and
the review iterations it took (the commit message), and the warnings the user
accepted (carried to the commit after a ``resume``).

It lives in the repository's git directory (``.git/jlgcli-dev/``), so it is
never part of the work tree, never committed, and survives an interruption.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from jlgcli.dev.fsutil import write_text_atomic
from jlgcli.errors import DevExitCode, JlgError
from jlgcli.money import money
from jlgcli.records import asdict, field, record

STATE_DIR = "jlgcli-dev"
TASK_FILE = "task.json"
FORMAT = 1
_CHUNK = 1 << 20


def file_digest(path: Path) -> str | None:
    """The sha256 of a file's bytes; None when it does not exist (or is not a file)."""
    try:
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


@record(frozen=False)
class TaskRecord:
    """The remembered facts of one task; ``dirty``/``untracked``: the work tree at step 1."""

    task_id: str
    dirty: dict[str, str | None] = field(default_factory=dict)  # path -> digest (None: absent)
    untracked: list[str] = field(default_factory=list)
    agents: list[str] = field(default_factory=list)
    review_iterations: int = 0
    warnings: list[str] = field(default_factory=list)
    baseline: bool = True  # False: made on resume, without the work tree of step 1
    # Each agent call: a recorded run of the core (kind, agent, runId, ok, costUsd, tokens).
    calls: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def begin(
        cls, task_id: str, root: Path, changed: Iterable[str], untracked: Iterable[str]
    ) -> TaskRecord:
        """The record of a task starting now, in a work tree where ``changed`` are not clean."""
        return cls(
            task_id,
            dirty={name: file_digest(root / name) for name in changed},
            untracked=sorted(set(untracked)),
        )

    def add_agent(self, name: str) -> None:
        if name not in self.agents:
            self.agents.append(name)

    def add_call(self, kind: str, agent: str, reply: Any) -> None:
        """Remember one agent call: its run id, outcome, cost and tokens (issue 13)."""
        self.calls.append(
            {
                "kind": kind,
                "agent": agent,
                "runId": getattr(reply, "run_id", None),
                "ok": bool(getattr(reply, "ok", False)),
                "costUsd": money(getattr(reply, "cost_usd", None)),
                "inputTokens": getattr(reply, "input_tokens", None),
                "outputTokens": getattr(reply, "output_tokens", None),
            }
        )

    def totals(self) -> dict[str, Any]:
        """Cost and tokens of every call of the task (None when no call reported them)."""

        def total(key: str) -> float | int | None:
            known = [call[key] for call in self.calls if call.get(key) is not None]
            return sum(known) if known else None

        return {
            "agentCalls": len(self.calls),
            "costUsd": money(total("costUsd")),
            "inputTokens": total("inputTokens"),
            "outputTokens": total("outputTokens"),
        }

    def split_changes(self, root: Path, changed: Iterable[str]) -> tuple[list[str], list[str]]:
        """(``changed`` files the task changed, files left out as they were before it began).

        Left out: a file that was untracked when the task began (whatever
        happened to it since: it is not the task's), and a file already
        changed then that still has the same content.
        """
        taken: list[str] = []
        left_out: list[str] = []
        untracked = set(self.untracked)
        for name in changed:
            before = self.dirty.get(name, _UNSEEN)
            if name in untracked or (before is not _UNSEEN and before == file_digest(root / name)):
                left_out.append(name)
            else:
                taken.append(name)
        return taken, left_out

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, **asdict(self)}

    @classmethod
    def from_json(cls, data: Any) -> TaskRecord | None:
        """The record in ``data``; None when it is not one this version wrote."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        try:
            return cls(
                str(data["task_id"]),
                {str(k): (None if v is None else str(v)) for k, v in data["dirty"].items()},
                [str(v) for v in data["untracked"]],
                [str(v) for v in data["agents"]],
                int(data["review_iterations"]),
                [str(v) for v in data["warnings"]],
                bool(data.get("baseline", True)),
                [dict(call) for call in data.get("calls", []) if isinstance(call, dict)],
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            return None


_UNSEEN = "\0unseen"  # not a digest: a file that was clean when the task began


class StateStore:
    """The dev loop's files in ``<git dir>/jlgcli-dev/``."""

    def __init__(self, git_dir: Path) -> None:
        self.directory = git_dir / STATE_DIR

    def load_task(self, task_id: str) -> TaskRecord | None:
        """The record of ``task_id``; None when there is none (or it is another task's)."""
        record = TaskRecord.from_json(_read_json(self.directory / TASK_FILE))
        return record if record is not None and record.task_id == task_id else None

    def current_task_id(self) -> str | None:
        """The id of the task this state remembers (None: no valid record)."""
        record = TaskRecord.from_json(_read_json(self.directory / TASK_FILE))
        return record.task_id if record is not None else None

    def save_task(self, record: TaskRecord) -> None:
        """Write the record; an unwritable git directory stops the run (exit 3)."""
        path = self.directory / TASK_FILE
        try:
            _write_json(path, record.to_json())
        except OSError as exc:
            raise JlgError(
                DevExitCode.TASK_FAILED,
                f"cannot save the task's state in {path}: {exc.strerror or exc}",
                "make the repository's git directory writable, then run: jlgcli dev resume",
            ) from None

    def forget_task(self) -> None:
        (self.directory / TASK_FILE).unlink(missing_ok=True)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_json(path: Path, data: Any) -> None:
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
