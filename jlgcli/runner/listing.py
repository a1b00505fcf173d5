"""Reading recorded runs back: ``jlgcli runs`` and ``jlgcli runs show <id>`` (F-006, US-8).

A run directory holds ``result.json`` and ``meta.json`` with ``--artifacts``, and
``state.json`` for every loop (issue 31): the status, backends, cost and counts
come from the result when there is one, else from the state (its stop cause).
A run whose lock a live process holds is "running"; a loop whose lock was left
behind with no ending recorded was "killed" (SIGKILL, the OOM killer: issue 33);
any other run without an ending is "incomplete", one whose JSON is corrupt is "unreadable";
none makes the listing fail. Everything read here is input: shown, never run.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from jlgcli.artifacts.ids import run_id_time
from jlgcli.artifacts.iteration_rows import IterationRow, iteration_rows
from jlgcli.artifacts.layout import (
    FINAL_FILE,
    ITERATIONS_DIR,
    META_FILE,
    PROMPT_FILE,
    RESULT_FILE,
    TRANSCRIPT_FILE,
)
from jlgcli.errors import ExitCode, JlgError
from jlgcli.moments import datetime, timezone
from jlgcli.money import money
from jlgcli.records import record

INCOMPLETE = "incomplete"
UNREADABLE = "unreadable"
RUNNING = "running"
KILLED = "killed"
STATE_FILE = "state.json"
_HINT_DIR = "pass --dir DIR to read another artifacts directory"
LATEST = "latest"  # ``runs show latest``, like ``ledger show latest``


@record
class RunInfo:
    """One line of ``jlgcli runs``."""

    run_id: str
    path: Path
    # The RunSummary status, or "running", "killed" or "incomplete" (no ending recorded)
    # or "unreadable" (corrupt files).
    status: str
    started_at: datetime | None
    backend: str | None
    iterations: int | None
    duration_ms: int | None
    exit_code: int | None
    problem: str | None = None  # why the run is unreadable
    stop_cause: str | None = None  # the RunSummary stopCause ("max-iterations", "timeout" …)
    backends: tuple[str, ...] = ()  # every backend used, in order (failover: several)
    cost_usd: float | None = None

    @property
    def outcome(self) -> str:
        """The most specific word for how the run ended: the stop cause, else the status."""
        return self.stop_cause or self.status

    def to_json(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "path": str(self.path),
            "status": self.status,
            "stopCause": self.stop_cause,
            "startedAt": self.started_at.isoformat() if self.started_at else None,
            "backend": self.backend,
            "iterations": self.iterations,
            "durationMs": self.duration_ms,
            "exitCode": self.exit_code,
            "problem": self.problem,
            "backends": list(self.backends),
            "costUsd": money(self.cost_usd),
        }

    @property
    def backend_words(self) -> str:
        """``claude → codex``, the one backend, or ``-``."""
        return " → ".join(self.backends) or self.backend or "-"


@record
class IterationFiles:
    """The files of one iteration directory."""

    n: int
    path: Path
    prompt: Path | None
    final: Path | None

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "path": str(self.path),
            "prompt": str(self.prompt) if self.prompt else None,
            "final": str(self.final) if self.final else None,
        }


@record
class RunDetail:
    """What ``jlgcli runs show`` prints."""

    info: RunInfo
    meta: dict[str, Any] | None
    result: dict[str, Any] | None
    iterations: tuple[IterationFiles, ...]
    transcript: Path | None
    state: dict[str, Any] | None = None

    def rows(self) -> list[IterationRow]:
        """Each iteration in one row: duration, backend, tokens, cost, files, gates."""
        return iteration_rows(self.result, self.state)

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.info.to_json(),
            "meta": self.meta,
            "result": self.result,
            "state": self.state,
            "iterations": [it.to_json() for it in self.iterations],
            "iterationTable": [row.to_json() for row in self.rows()],
            "paths": {
                "dir": str(self.info.path),
                "meta": _str_if_file(self.info.path / META_FILE),
                "result": _str_if_file(self.info.path / RESULT_FILE),
                "state": _str_if_file(self.info.path / STATE_FILE),
                "transcript": str(self.transcript) if self.transcript else None,
            },
        }


def list_runs(root: Path, limit: int | None = 20) -> list[RunInfo]:
    """The newest ``limit`` runs under ``root`` (all when ``None``); none if it does not exist."""
    names = _run_names(root)
    if limit is not None:
        names = names[: max(limit, 0)]
    return [read_run(root / name) for name in names]


def run_ids(root: Path) -> list[str]:
    """The run ids under ``root``, newest first; none when it cannot be read."""
    try:
        return _run_names(root)
    except JlgError:
        return []


def load_run(root: Path, run_id: str) -> RunDetail:
    """One run by id, unique id prefix or ``latest``; unknown or ambiguous: ``JlgError`` 64."""
    names = _run_names(root)
    if run_id == LATEST and names and LATEST not in names:
        run_id = names[0]
    matches = [name for name in names if name == run_id] or [
        name for name in names if run_id and name.startswith(run_id)
    ]
    if len(matches) != 1:
        shown = matches[:5] if matches else names[:5]
        if matches:
            message, hint = f"run id {run_id!r} is ambiguous", "matching runs: " + ", ".join(shown)
        elif names:
            message, hint = f"no run {run_id!r} in {root}", "recent runs: " + ", ".join(shown)
        else:
            message = f"no runs recorded in {root}"
            hint = "runs are recorded where they ran (start one there first); " + _HINT_DIR
        raise JlgError(ExitCode.USAGE, message, hint=hint)
    path = root / matches[0]
    meta, _ = _read_json(path / META_FILE)
    result, _ = _read_json(path / RESULT_FILE)
    state, _ = _read_json(path / STATE_FILE)
    transcript = path / TRANSCRIPT_FILE
    return RunDetail(
        info=read_run(path),
        meta=meta,
        result=result,
        iterations=_iterations(path),
        transcript=transcript if transcript.is_file() else None,
        state=state,
    )


def read_run(path: Path) -> RunInfo:
    """Summarise one run directory; never raises for a corrupt one."""
    meta, meta_problem = _read_json(path / META_FILE)
    result, result_problem = _read_json(path / RESULT_FILE)
    state, state_problem = _read_json(path / STATE_FILE) if result is None else (None, None)
    problem = result_problem or meta_problem or state_problem
    if result is not None and not isinstance(result.get("status"), str):
        problem = f"{RESULT_FILE}: no status"
    if result is None and state is not None and not problem:
        result, problem = _result_of_state(path, state)
    if problem:
        status = UNREADABLE
    elif result is not None:
        status = result["status"]
    else:
        status = _unended(path)
    facts = {**(meta or {}), **(result or {})}
    iterations = facts.get("iterations")
    if isinstance(iterations, list):
        iterations = len(iterations)
    elif not _is_int(iterations):
        iterations = len(_iterations(path)) or None
    started = _parse_time(facts.get("startedAt")) or _parse_time(facts.get("createdAt"))
    backend = facts.get("backend")
    duration = facts.get("durationMs")
    cause = result.get("stopCause") if result is not None and not problem else None
    cost = facts.get("costUsd")
    return RunInfo(
        run_id=path.name,
        path=path,
        status=status,
        started_at=started or run_id_time(path.name),
        backend=backend if isinstance(backend, str) else None,
        iterations=iterations,
        duration_ms=_as_int(duration),
        exit_code=facts.get("exitCode") if _is_int(facts.get("exitCode")) else None,
        problem=problem,
        stop_cause=cause if isinstance(cause, str) else None,
        backends=_backends_of(facts),
        cost_usd=_as_money(cost),
    )


def _result_of_state(path: Path, data: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """What ``result.json`` would say, from a loop's ``state.json`` (checked: ``state_schema``).

    (None, None) while the run is going (no stop cause yet); (None, problem) when damaged.
    """
    from jlgcli.errors import JlgError
    from jlgcli.runner.state_schema import validate_state

    file = path / STATE_FILE
    try:
        state = validate_state(file, data)
    except JlgError as exc:
        return None, f"{STATE_FILE}: {exc.message.removeprefix(f'{file}: ')}"
    cause = state.get("stop_cause")
    metrics = state.get("metrics") or []
    used = [m["backend"] for m in metrics if isinstance(m.get("backend"), str)]
    facts: dict[str, Any] = {
        "iterations": state.get("iterations"),
        "durationMs": state.get("elapsed_ms"),
        "backend": used[-1] if used else state.get("backend"),
        "backends": [{"id": name} for name in dict.fromkeys(used)],
        "costUsd": state.get("cost_usd"),
        "startedAt": state.get("started_at"),
    }
    status = _unended(path)
    if cause is None or status == RUNNING:  # going on, or killed before it recorded its end
        return {**facts, "status": status}, None
    from jlgcli.runner.causes import CAUSES

    row = CAUSES[cause]
    code = None if cause == "interrupted" else int(row.exit_code)  # the signal is not recorded
    return {**facts, "status": row.status, "stopCause": cause, "exitCode": code}, None


def _backends_of(facts: dict[str, Any]) -> tuple[str, ...]:
    listed = facts.get("backends")
    if isinstance(listed, list):
        names = [b["id"] for b in listed if isinstance(b, dict) and isinstance(b.get("id"), str)]
        if names:
            return tuple(names)
    backend = facts.get("backend")
    return (backend,) if isinstance(backend, str) else ()


def _unended(path: Path) -> str:
    """The status of a run with no ending recorded: its lock held (running), left by a
    process that died without writing its end (killed), or neither (incomplete)."""
    from jlgcli.config.started import LOCK_FILE, is_running

    if is_running(path):
        return RUNNING
    return KILLED if (path / LOCK_FILE).is_file() else INCOMPLETE


def _run_names(root: Path) -> list[str]:
    """Run directory names, newest first (ids sort by time)."""
    try:
        entries = [e.name for e in root.iterdir() if e.is_dir() and not e.name.startswith(".")]
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise JlgError(
            ExitCode.NO_INPUT, f"cannot read {root}: {exc.strerror or exc}", hint=_HINT_DIR
        ) from None
    return sorted(entries, reverse=True)


def _read_json(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """(object, None), (None, None) when absent, or (None, what is wrong)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"{path.name}: {exc}"
    try:
        data = json.loads(text)
    except ValueError as exc:
        return None, f"{path.name}: invalid JSON ({exc})"
    if not isinstance(data, dict):
        return None, f"{path.name}: not a JSON object"
    return data, None


def _iterations(path: Path) -> tuple[IterationFiles, ...]:
    found = []
    try:
        entries = list((path / ITERATIONS_DIR).iterdir())
    except OSError:
        return ()
    for entry in entries:
        if entry.is_dir() and entry.name.isdigit():
            prompt, final = entry / PROMPT_FILE, entry / FINAL_FILE
            found.append(
                IterationFiles(
                    n=int(entry.name),
                    path=entry,
                    prompt=prompt if prompt.is_file() else None,
                    final=final if final.is_file() else None,
                )
            )
    return tuple(sorted(found, key=lambda it: it.n))


def _parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    text = value[:-1] + "+00:00" if value.endswith("Z") else value  # 3.10 refuses "Z"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _as_int(value: Any) -> int | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return int(value)
    return None


def _as_money(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _str_if_file(path: Path) -> str | None:
    return str(path) if path.is_file() else None
