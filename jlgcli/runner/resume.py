"""What ``jlgcli loop --resume RUN_ID|latest`` needs, kept with every loop run.

Every loop writes ``<runs root>/<run id>/state.json`` after each iteration and
at its end, with or without ``--artifacts``: the task, backend, completion mode,
options, iterations done, elapsed time, cost, the backend session and the last
iteration's report. It goes through the redactor like every artifact and
never holds the environment. A resumed run is a new run (its own id,
``resumedFrom`` naming the old one) whose counters start where the old one
stopped, so they count against the same budgets.

Read back, the file is input, not authority (issue 31, DESIGN "state is
input"): it is checked against ``state_schema`` (65 naming the file and the
field), and what runs, with which rights and where comes from the current
flags and trusted config (``resume_options``). ``latest`` is the newest run
this user started under the runs root (``config.started``), never the
highest name.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from jlgcli.errors import ExitCode, JlgError
from jlgcli.records import field, fields, record

STATE_FILE = "state.json"
STATE_VERSION = 1
_MAX_STATE_BYTES = 64_000_000


@record(slots=True)
class ResumeState:
    """The resumable state of one loop run."""

    run_id: str
    task: str
    prompt_source: str
    backend: str
    completion_mode: str
    options: dict[str, Any]  # the options as run (config key → value); see resume_options
    iterations: int = 0
    elapsed_ms: int = 0
    cost_usd: float | None = None
    session_id: str | None = None
    session_backend: str | None = None  # the backend whose session ``session_id`` is
    last_report: str = ""
    stop_cause: str | None = None
    metrics: list[dict[str, Any]] = field(default_factory=list)
    started_at: str | None = None  # ISO 8601 UTC, to the microsecond (``jlgcli runs``)
    question: str | None = None  # stop cause "question": what ``jlgcli answer`` answers (51)
    # an answer (``jlgcli answer``) that no call of this run has carried yet: the run stopped
    # before its first call ended; ``--resume`` puts it in the next prompt (with ``question``)
    answer: str | None = None
    version: int = STATE_VERSION

    def to_json(self) -> dict[str, Any]:
        # Shallow: every field is already JSON-ready (``asdict`` would rebuild the metrics,
        # which grow with the run and are written after each iteration).
        return {item.name: getattr(self, item.name) for item in fields(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ResumeState:
        """A state from a dict already checked by ``state_schema.validate_state``."""
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
    write_state_text(run_dir, state_text(state, redact), final=final)


def state_text(state: ResumeState, redact: Any | None = None) -> str:
    """``state.json``'s text (redacted)."""
    # Compact: only then does json use its C encoder (indent=2 took ~1 ms per iteration
    # at 20 iterations, and the metrics grow with the run; issue 18).
    text = json.dumps(state.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n"
    return text if redact is None else str(redact(text))


class StateTexts:
    """``state_text`` for the successive states of one run, each metrics entry serialized and
    redacted once (issue 50).

    The metrics grow by one entry per iteration and an entry is final once saved (the
    state keeper hands the same dicts back); redacting the whole text again after every
    iteration made each save slower than the one before. The rest of the state is
    serialized and redacted as before, at each save; each entry on its own, as the
    complete JSON object it is (a secret lies within one of its strings).
    """

    _SLOT = "jlgcli:metrics-slot"  # where the entries go: no escape, no secret's shape

    def __init__(self, redact: Any | None = None) -> None:
        self._redact = redact
        self._entries: list[tuple[dict[str, Any], str]] = []

    def text(self, state: ResumeState) -> str:
        """``state_text(state, redact)``, the entries saved before not redacted again."""
        metrics = state.metrics
        kept = 0
        while (
            kept < min(len(self._entries), len(metrics)) and self._entries[kept][0] is metrics[kept]
        ):
            kept += 1
        del self._entries[kept:]
        self._entries += [(entry, self._redacted(_compact(entry))) for entry in metrics[kept:]]
        head = self._redacted(_compact({**state.to_json(), "metrics": self._SLOT}))
        slot = head.rfind(f'"metrics":"{self._SLOT}"')  # after it: a time and a number
        if slot < 0:  # the redactor took part of it: the whole text, as state_text makes it
            return state_text(state, self._redact)
        slot += len('"metrics":')
        listed = "[" + ",".join(text for _, text in self._entries) + "]"
        return head[:slot] + listed + head[slot + len(self._SLOT) + 2 :] + "\n"

    def _redacted(self, text: str) -> str:
        return text if self._redact is None else str(self._redact(text))


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def write_state_text(
    run_dir: Path,
    text: str,
    *,
    final: bool = True,
    finish: Callable[[Callable[[], None]], None] | None = None,
) -> None:
    """Write ``state_text``'s text atomically as in ``write_state`` (73 when it cannot).

    ``finish``: where the fsync and the rename run once the bytes are written
    (``atomic_write_bytes``); they raise the same 73 there.
    """
    from jlgcli.artifacts.atomic import atomic_write_text

    def settle_later(rest: Callable[[], None]) -> None:
        def settle() -> None:
            with _cannot_write(run_dir):
                rest()

        assert finish is not None
        finish(settle)

    with _cannot_write(run_dir):
        run_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(run_dir / STATE_FILE, text, sync_directory=final,
                          finish=None if finish is None else settle_later)  # fmt: skip


@contextlib.contextmanager
def _cannot_write(run_dir: Path) -> Iterator[None]:
    try:
        yield
    except OSError as exc:  # a full disk, a read-only folder: 73, not a crash (issue 31)
        raise JlgError(
            ExitCode.CANT_CREATE,
            f"cannot write the resume state {run_dir / STATE_FILE}: {exc.strerror or exc}",
            hint="check the runs folder (--artifacts-dir): free space and permissions",
        ) from None


def find_state(runs_root: Path, ref: str) -> Path:
    """The ``state.json`` of run ``ref`` (an id, or ``latest``: the newest run this user
    started under ``runs_root``); exit 64 when there is none, or when it is still running."""
    from jlgcli.config.started import is_running, started_here

    if ref == "latest":
        for run_id in started_here(runs_root):
            path = runs_root / run_id / STATE_FILE
            if is_running(path.parent):
                raise _still_running(run_id)
            if path.is_file():
                return path
        raise JlgError(
            ExitCode.USAGE,
            f"no resumable loop run started by you in {runs_root}",
            hint="latest is the newest loop you started here; resume another run by its id "
            "(jlgcli runs), or run a loop first",
        )
    from jlgcli.artifacts.ids import is_safe_run_id

    path = runs_root / ref / STATE_FILE
    if not is_safe_run_id(ref) or not path.is_file():
        raise JlgError(
            ExitCode.USAGE,
            f"run {ref} cannot be resumed: no {STATE_FILE} in {runs_root / ref}",
            hint="list runs with: jlgcli runs (loop runs can be resumed)",
        )
    if is_running(path.parent):
        raise _still_running(ref)
    return path


def _still_running(run_id: str) -> JlgError:
    return JlgError(
        ExitCode.USAGE,
        f"run {run_id} is still running: resuming it would start a second agent on the same files",
        hint="wait for it to end (or stop it with Ctrl-C), then: jlgcli loop --resume " + run_id,
    )


def read_state(path: Path) -> ResumeState:
    """The state in ``path``, checked field by field (65 naming the file and the field)."""
    from jlgcli.runner.state_schema import RESUME_REQUIRED, damaged, validate_state

    try:
        if path.stat().st_size > _MAX_STATE_BYTES:
            raise damaged(path, f"larger than {_MAX_STATE_BYTES} bytes: not a state jlgcli wrote")
        raw = path.read_bytes()
    except OSError as exc:
        raise JlgError(ExitCode.NO_INPUT, f"cannot read {path}: {exc.strerror or exc}",
                       hint="check the file's permissions") from None  # fmt: skip
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise damaged(path, f"not UTF-8 (byte {exc.start})") from None
    except (ValueError, RecursionError) as exc:
        raise damaged(path, f"not JSON ({exc})") from None
    return ResumeState.from_json(validate_state(path, data, required=RESUME_REQUIRED))
