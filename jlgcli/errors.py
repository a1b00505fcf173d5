"""Exit codes and the one error type that carries a code, a message and a hint.

The table is DESIGN.md's "Decisions": the functional spec's codes (seed 000)
win over the PRD's (seed 001 §12: its "3 = timeout" is superseded by 75).
Everything that ends a command with a non-zero status raises ``JlgError`` (or
returns an ``ExitCode``); the error boundary in ``jlgcli.cli.main`` turns it
into ``error: …`` / ``hint: …`` on stderr, or one JSON object with ``--json``.
"""

from __future__ import annotations

import enum

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class ExitCode(enum.IntEnum):
    """Process exit codes of ``run``/``loop`` and the other core commands."""

    OK = 0
    RUN_ERROR = 1  # backend failed, or the model reported status "error"
    BACKEND_UNAVAILABLE = 2  # backend missing, or none available (RG-006)
    MAX_ITERATIONS = 4  # RG-011
    NO_PROGRESS = 5  # RG-013
    UNAUTHENTICATED = 6
    PARKED = 7  # the agent asked the user a question: ``jlgcli answer`` resumes it (issue 51)
    USAGE = 64  # EX_USAGE: bad flags, unknown config key, out-of-range value
    INVALID_JSON = 65  # EX_DATAERR: json completion found no valid object
    NO_INPUT = 66  # EX_NOINPUT: prompt file not found
    INTERNAL = 70  # EX_SOFTWARE: a bug; a crash report is written
    CANT_CREATE = 73  # EX_CANTCREAT: artifacts not writable (RG-016)
    TIMEOUT = 75  # EX_TEMPFAIL: total timeout (RG-012)
    NO_PERMISSION = 77  # EX_NOPERM: the agent's tool uses were denied again and again
    CONFIG = 78  # EX_CONFIG: config file unreadable or invalid
    HANGUP = 129  # 128 + SIGHUP: the terminal was closed
    INTERRUPTED = 130  # 128 + SIGINT: Ctrl-C
    QUIT = 131  # 128 + SIGQUIT
    BROKEN_PIPE = 141  # 128 + SIGPIPE: stdout's reader went away before the run finished
    TERMINATED = 143  # 128 + SIGTERM: e.g. a cancelled CI job


class DevExitCode(enum.IntEnum):
    """Exit codes of ``jlgcli dev`` / ``aidevloop`` (seed 003 FR-8.3)."""

    COMMITTED = 0
    ABORTED = 1
    CONFIGURATION = 2
    TASK_FAILED = 3


class JlgError(Exception):
    """An expected failure: printed as ``error: message`` + ``hint: hint``, no traceback."""

    def __init__(self, code: int, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.code = int(code)
        self.message = message
        self.hint = hint

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` shape of an error: ``{"error": {...}, "exitCode": n}``."""
        return {
            "error": {"code": self.code, "message": self.message, "hint": self.hint},
            "exitCode": self.code,
        }

    def __repr__(self) -> str:
        return f"JlgError({self.code}, {self.message!r}, hint={self.hint!r})"


def usage_error(message: str, hint: str | None = None) -> JlgError:
    """A usage error (exit 64)."""
    return JlgError(ExitCode.USAGE, message, hint)


# The exit codes of run/loop and the other core commands (``--help`` of run and loop reads
# them, so this module stays free of ``typing``): (short words for --help, README words).
EXIT_CODE_MEANINGS: dict[int, tuple[str, str]] = {
    ExitCode.OK: ("done", "done / success"),
    ExitCode.RUN_ERROR: (
        "run error",
        "run error: the backend failed, its quota is used up, or the model reported `error`",
    ),
    ExitCode.BACKEND_UNAVAILABLE: (
        "no backend",
        "backend missing or unsupported, or none available",
    ),
    ExitCode.MAX_ITERATIONS: (
        "budget spent",
        "budget spent: maximum iterations or maximum cost reached without completion",
    ),
    ExitCode.NO_PROGRESS: ("no progress", "no progress: identical or near-identical iterations"),
    ExitCode.UNAUTHENTICATED: ("not logged in", "backend installed but not logged in"),
    ExitCode.PARKED: (
        "parked",
        'parked: the agent asked a question; `jlgcli answer RUN "text"` resumes it',
    ),
    ExitCode.USAGE: ("usage", "usage error: bad flag, unknown config key, out-of-range value"),
    ExitCode.INVALID_JSON: ("invalid JSON", "json completion: no valid status object"),
    ExitCode.NO_INPUT: ("prompt not found", "prompt file not found"),
    ExitCode.INTERNAL: ("internal error", "internal error (a bug): a crash log is written"),
    ExitCode.CANT_CREATE: ("artifacts not writable", "artifacts (or config) could not be written"),
    ExitCode.TIMEOUT: (
        "timeout",
        "timeout (total, per call, or idle), a rate limit that resets too late, "
        "or a backend that stays overloaded",
    ),
    ExitCode.NO_PERMISSION: (
        "permission denied",
        "permission denied: the agent's tool uses were denied again and again, nothing changed",
    ),
    ExitCode.CONFIG: (
        "bad config",
        "config file unreadable or invalid, or an untrusted project command",
    ),
    ExitCode.HANGUP: ("hang-up", "stopped by SIGHUP (terminal closed)"),
    ExitCode.INTERRUPTED: ("interrupted", "interrupted (Ctrl-C, SIGINT)"),
    ExitCode.QUIT: ("quit", "stopped by SIGQUIT"),
    ExitCode.BROKEN_PIPE: ("stdout closed", "stopped because stdout's reader went away (SIGPIPE)"),
    ExitCode.TERMINATED: ("terminated", "stopped by SIGTERM (e.g. a cancelled CI job)"),
}


def exit_codes_epilog(width: int = 88) -> str:
    """The ``exit codes: 0 done, 1 run error, …`` paragraph of the help epilogs, its lines
    at most ``width`` long, broken at spaces only. Not ``textwrap.fill``: ``run`` and
    ``loop`` build their epilog at every start, and importing textwrap cost each ~1 ms."""
    items = ", ".join(f"{int(code)} {short}" for code, (short, _) in EXIT_CODE_MEANINGS.items())
    lines, line = [], ""
    for word in f"exit codes: {items}.".split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return "\n".join([*lines, line])
