"""What ``jlgcli loop --resume RUN_ID|latest`` needs, kept with every loop run.

Every loop writes ``<runs root>/<run id>/state.json`` after each iteration,
with or without ``--artifacts``: the task, backend, completion mode, limits,
iterations done, elapsed time, cost, the backend session and the last
iteration's report. It goes through the redactor like every artifact and
never holds the environment. A resumed run is a new run (its own id,
``resumedFrom`` naming the old one) whose counters start where the old one
stopped, so they count against the same budgets.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jlgcli.errors import ExitCode, JlgError
from jlgcli.records import field, fields, record

STATE_FILE = "state.json"
STATE_VERSION = 1


@record(slots=True)
class ResumeState:
    """The resumable state of one loop run."""

    run_id: str
    task: str
    prompt_source: str
    backend: str
    completion_mode: str
    options: dict[str, Any]  # the limits and choices to carry on (config key → value)
    iterations: int = 0
    elapsed_ms: int = 0
    cost_usd: float | None = None
    session_id: str | None = None
    last_report: str = ""
    stop_cause: str | None = None
    metrics: list[dict[str, Any]] = field(default_factory=list)
    version: int = STATE_VERSION

    def to_json(self) -> dict[str, Any]:
        # Shallow: every field is already JSON-ready (``asdict`` would rebuild the metrics,
        # which grow with the run and are written after each iteration).
        return {item.name: getattr(self, item.name) for item in fields(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ResumeState:
        names = {item.name for item in fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in names})


def write_state(
    run_dir: Path, state: ResumeState, redact: Any | None = None, *, final: bool = True
) -> None:
    """Write ``state.json`` atomically (redacted); raises ``JlgError`` 73 when it cannot.

    Between iterations (``final=False``) one fsync: the data, not the directory
    entry, so a crash can leave the previous iteration's state (complete, one
    step behind), never a torn one. The last state of a run is fully durable.
    """
    from jlgcli.artifacts.atomic import atomic_write_text

    # Compact: only then does json use its C encoder (indent=2 took ~1 ms per iteration
    # at 20 iterations, and the metrics grow with the run; issue 18).
    text = json.dumps(state.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n"
    if redact is not None:
        text = redact(text)
    run_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(run_dir / STATE_FILE, text, sync_directory=final)


def load_state(runs_root: Path, ref: str) -> ResumeState:
    """The state of run ``ref`` (an id, or ``latest``) under ``runs_root``; exit 64 if none."""
    if ref == "latest":
        candidates = sorted(
            (p for p in runs_root.glob(f"*/{STATE_FILE}") if p.is_file()),
            key=lambda p: p.parent.name,
        )
        if not candidates:
            raise JlgError(
                ExitCode.USAGE,
                f"no resumable loop run in {runs_root}",
                hint="every jlgcli loop records one; run a loop first, or pass --artifacts-dir",
            )
        path = candidates[-1]
    else:
        from jlgcli.artifacts.ids import is_safe_run_id

        path = runs_root / ref / STATE_FILE
        if not is_safe_run_id(ref) or not path.is_file():
            raise JlgError(
                ExitCode.USAGE,
                f"run {ref} cannot be resumed: no {STATE_FILE} in {runs_root / ref}",
                hint="list runs with: jlgcli runs (loop runs can be resumed)",
            )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return ResumeState.from_json(data)
    except (OSError, ValueError, TypeError) as exc:
        raise JlgError(ExitCode.USAGE, f"cannot read {path}: {exc}",
                       hint="resume another run, or start the task again") from None  # fmt: skip
