"""RunSpec: everything a run needs, resolved from flags, env and config files."""

from __future__ import annotations

from pathlib import Path

from jlgcli.prompts import Prompt
from jlgcli.records import field, record

TYPE_CHECKING = False

# Types only: a run imports no typing (issue 49); a resumed run's state is loaded only by
# `loop --resume`.
if TYPE_CHECKING:
    from typing import Any, Literal

    from jlgcli.backends.base import Permissions
    from jlgcli.runner.resume import ResumeState

    Command = Literal["run", "loop"]
    SessionMode = Literal["fresh", "continue"]


@record
class RunSpec:
    """One ``run`` or ``loop`` (F-003, F-004)."""

    command: Command
    prompt: Prompt
    backend: str
    cwd: Path
    completion_mode: str = "marker"  # marker | json | rebound (loop); ignored by run
    max_iterations: int = 20
    timeout_ms: int = 1_800_000
    iteration_timeout_ms: int = 0
    idle_timeout_ms: int = 600_000
    no_progress_limit: int = 3
    session_mode: SessionMode = "fresh"
    model: str | None = None
    permissions: Permissions | None = None
    extra_args: tuple[str, ...] = ()
    artifacts: bool = False
    artifacts_dir: Path = Path(".jlgcli/runs")
    transcript: bool = True  # keep the redacted transcript in the run folder (issue 51)
    replay_dir: Path | None = None
    custom_backends: dict[str, dict[str, Any]] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)  # what meta.json records
    # rebound
    script_timeout_s: float = 60.0
    ledger_dir: Path | None = None
    rebound_isolation: str = "best"  # best | strict | one level (issue 46)
    rebound_network: bool = False
    # failover, gates, budgets, events, resume (issues 16, 17)
    fallbacks: tuple[str, ...] = ()
    gates: tuple[str, ...] = ()
    max_cost_usd: float | None = None
    events_path: str | None = None  # "-" for stdout
    notify: tuple[str, ...] = ()  # desktop | webhook:URL (issue 51)
    notify_limit_wait_s: float = 300.0  # a rate-limit wait this long is notified
    resume: ResumeState | None = None
    answer: str | None = None  # ``jlgcli answer``: the first prompt carries it (issue 51)
    notes: tuple[str, ...] = ()  # shown at the start (a resume's options not read back)
    resumable: bool = True  # keep state.json for --resume (the demo leaves no file behind)
    # what the user asked (options_record.asked, as JSON): kept in their config folder at the
    # run's start, what a resume applies again (issue 44)
    asked: dict[str, Any] = field(default_factory=dict)
    # a batch's task (issue 44): its id, the batch's shared rate limits, the versions it probed
    batch_task: str | None = None
    shared_limits: Path | None = None
    known_versions: tuple[tuple[str, str], ...] = ()

    @property
    def is_loop(self) -> bool:
        return self.command == "loop"
