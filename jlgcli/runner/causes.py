"""Why a run stopped: the one table of stop causes, and the exit-code meanings.

Each row says a cause's exit code, its coarse status, the words a person
reads and the hint that helps. The ``StopCause`` literal and the RunSummary
JSON Schema are derived from (or checked against) this module; adding a stop
reason is one row here. What each exit code means (the help epilogs' line, the
README table) is ``jlgcli.errors.EXIT_CODE_MEANINGS``. Exit codes are DESIGN.md's
"Decisions" table (seed 000 wins over seed 001's "3 = timeout").
"""

from __future__ import annotations

from jlgcli.errors import ExitCode

TYPE_CHECKING = False

if TYPE_CHECKING:  # types only: a run imports no typing (issue 49)
    from typing import Literal

    StopCause = Literal[
        "done",
        "error",
        "backend-error",
        "backend-missing",
        "backend-unauthenticated",
        "quota-exhausted",
        "rate-limited",
        "overloaded",
        "permission-denied",
        "max-iterations",
        "max-cost",
        "no-progress",
        "invalid-json",
        "timeout",
        "iteration-timeout",
        "idle-timeout",
        "artifacts-error",
        "sandbox-violation",
        "interrupted",
        "question",
    ]
    Status = Literal["done", "error", "incomplete", "interrupted", "parked"]

STATUSES: tuple[Status, ...] = ("done", "error", "incomplete", "interrupted", "parked")


class Cause:
    """One stop cause: its exit code, status, plain words and hint.

    A plain class: this module is read by every command's ``--help`` (the exit-code
    line of the epilogs), which loads neither ``dataclasses`` (``inspect``, ~5 ms) nor
    ``jlgcli.records`` (whose first instance of a class compiles its ``__init__``).
    """

    __slots__ = ("exit_code", "hint", "name", "status", "text")

    def __init__(
        self, name: StopCause, exit_code: int, status: Status, text: str, hint: str | None = None
    ) -> None:
        self.name = name
        self.exit_code = exit_code
        self.status = status
        self.text = text
        self.hint = hint

    def __repr__(self) -> str:
        return f"Cause({self.name!r}, {self.exit_code})"


_ROWS = (
    Cause("done", ExitCode.OK, "done", "the task is done"),
    Cause("error", ExitCode.RUN_ERROR, "error", "the model reported an error",
          "read the model's summary; fix the cause and run again"),
    Cause("backend-error", ExitCode.RUN_ERROR, "error", "the backend failed",
          "read the output tail above; run the backend CLI by hand to see more"),
    Cause("backend-missing", ExitCode.BACKEND_UNAVAILABLE, "error", "no usable backend",
          "see 'jlgcli backends'"),
    Cause("backend-unauthenticated", ExitCode.UNAUTHENTICATED, "error",
          "the backend is not logged in", "log in to the backend CLI, then run again"),
    Cause("quota-exhausted", ExitCode.RUN_ERROR, "error",
          "the backend's quota or credit is used up",
          "add credit or wait for the quota to renew; --fallback BACKEND goes on with another"),
    Cause("rate-limited", ExitCode.TIMEOUT, "incomplete", "the backend is rate-limited",
          "wait for the limit to reset, or pass --fallback BACKEND"),
    Cause("overloaded", ExitCode.TIMEOUT, "incomplete",
          "the backend stayed overloaded after its own retries and jlgcli's back-off",
          "run again later, or pass --fallback BACKEND"),
    Cause("permission-denied", ExitCode.NO_PERMISSION, "incomplete",
          "the agent's tool uses were denied, iteration after iteration, and nothing changed",
          "allow what it needs (--permissions edit, or full for shell and network), "
          "or change the task"),
    Cause("max-iterations", ExitCode.MAX_ITERATIONS, "incomplete",
          "maximum iterations reached", "raise --max-iterations, or make the task smaller"),
    Cause("max-cost", ExitCode.MAX_ITERATIONS, "incomplete", "the cost budget is spent",
          "raise --max-cost, or make the task smaller"),
    Cause("no-progress", ExitCode.NO_PROGRESS, "incomplete", "no progress between iterations",
          "the model repeats itself: refine the task, or raise --no-progress-limit"),
    Cause("invalid-json", ExitCode.INVALID_JSON, "error",
          "no valid JSON status object in the reply",
          "the model must end its reply with a JSON object like "
          '{"status": "done", "summary": "..."}; or use --completion marker'),
    Cause("timeout", ExitCode.TIMEOUT, "incomplete", "total timeout reached",
          "raise --timeout (for example --timeout 1h)"),
    Cause("iteration-timeout", ExitCode.TIMEOUT, "incomplete",
          "one backend call took too long", "raise --iteration-timeout"),
    Cause("idle-timeout", ExitCode.TIMEOUT, "incomplete",
          "the backend printed nothing for too long",
          "raise --idle-timeout, or check the backend (network, login)"),
    Cause("artifacts-error", ExitCode.CANT_CREATE, "error", "artifacts could not be written",
          "check the artifacts directory (--artifacts-dir): free space and permissions"),
    Cause("sandbox-violation", ExitCode.RUN_ERROR, "error",
          "the model kept asking for scripts outside the sandbox",
          "scripts must live under workbench/scripts/; see 'jlgcli ledger show latest'"),
    Cause("interrupted", ExitCode.INTERRUPTED, "interrupted", "interrupted",
          "run it again; the backend's process tree was stopped"),
    Cause("question", ExitCode.PARKED, "parked", "the agent asked a question: it waits for you",
          'answer it: jlgcli answer latest "your answer" (or --answer-file FILE)'),
)  # fmt: skip

CAUSES: dict[str, Cause] = {row.name: row for row in _ROWS}


def cause(name: str) -> Cause:
    """The row of ``name``; an unknown cause is a bug (KeyError names it)."""
    return CAUSES[name]


def exit_code_of(name: str, *, signal_number: int | None = None) -> int:
    """The exit code of a stop cause; an interruption by signal N exits 128 + N."""
    if name == "interrupted" and signal_number:
        return 128 + signal_number
    return int(CAUSES[name].exit_code)
