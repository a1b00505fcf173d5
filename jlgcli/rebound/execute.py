"""Running one sandboxed target script (REQ_AUTO_040).

argv only, never a shell: the Python that runs jlgcli (``sys.executable``), or
in the frozen exe the exe itself through a hidden entry point
(``__jlgcli_run_script__``); cwd = project root; stdin = null device; a
timeout that kills the whole process tree (the process layer's ladder);
output streamed through a bounded head+tail sink (``OutputTail``) so a script
printing 50 MB costs a constant amount of memory.

Secrets (issue 15): the child gets an allow-listed environment (``PATH``, home,
temp, locale, and the few variables Windows needs to start a process), nothing
of jlgcli's own; on Linux jlgcli makes itself non-dumpable first, so a script
of the same (non-root) user cannot read ``/proc/<jlgcli>/environ``; and the
script's output is redacted before it is kept (it goes back to the model and
into the ledger). Root is not stopped by that: on Linux the script also runs
isolated (``jlgcli.rebound.isolation``, issue 33: its own PID and mount
namespaces, the project's own files read-only).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from jlgcli.artifacts.redact import Redactor
from jlgcli.process.model import Invocation, Limits, ProcessOutcome
from jlgcli.rebound.isolation import RUN_SCRIPT_COMMAND, Isolation
from jlgcli.records import record

__all__ = ["RUN_SCRIPT_COMMAND", "ExecutionResult", "run_script", "run_script_entry"]

# Deterministic, unbuffered UTF-8 output; no __pycache__ dropped in workbench/scripts.
_CHILD_ENV = {"PYTHONIOENCODING": "utf-8", "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"}


# The variables a script keeps (everything else is removed): REQ_AUTO_040, issue 15.
_KEPT_EVERYWHERE = frozenset({"PATH", "HOME", "USERPROFILE", "TMP", "TEMP", "TMPDIR", "LANG"})
_KEPT_ON_WINDOWS = frozenset({"SYSTEMROOT", "COMSPEC", "PATHEXT", "WINDIR"})
_PR_SET_DUMPABLE = 4


def script_env_names(environ: Mapping[str, str], *, is_windows: bool) -> tuple[str, ...]:
    """The names in ``environ`` a rebound script may see: an allow-list, not a deny-list.

    ``PATH``, ``HOME``/``USERPROFILE``, ``TMP``/``TEMP``/``TMPDIR``, ``LANG`` and
    ``LC_*``; on Windows also ``SystemRoot``, ``ComSpec``, ``PATHEXT`` and
    ``windir`` (Python cannot start without them), compared case-insensitively
    as Windows does. Case matters elsewhere (``path`` is not ``PATH``).
    """
    kept = _KEPT_EVERYWHERE | _KEPT_ON_WINDOWS if is_windows else _KEPT_EVERYWHERE
    names = []
    for name in environ:
        key = name.upper() if is_windows else name
        if key in kept or key.startswith("LC_"):
            names.append(name)
    return tuple(sorted(names))


def mark_non_dumpable(*, is_linux: bool = sys.platform.startswith("linux")) -> bool:
    """Make this process non-dumpable (Linux ``prctl(PR_SET_DUMPABLE, 0)``); True if done.

    Same-user processes (a rebound script) then cannot read
    ``/proc/<jlgcli>/environ`` or ``mem``, nor ptrace it. A no-op elsewhere.
    """
    if not is_linux:
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def script_argv(script: Path, *, frozen: bool, executable: str) -> list[str]:
    """The argv that runs ``script``: ``[python, script]`` or ``[exe, RUN_SCRIPT_COMMAND, script]``.

    Frozen (PyInstaller) there is no separate Python: the exe runs the script
    itself in a child process through the hidden command.
    """
    if frozen:
        return [executable, RUN_SCRIPT_COMMAND, str(script)]
    return [executable, str(script)]


def run_script_command(argv: Sequence[str]) -> int:
    """Hidden command ``__jlgcli_run_script__ SCRIPT [ARG...]``: ``python SCRIPT``, frozen."""
    from jlgcli.frozen import apply_python_io_environment

    sys.stdout, sys.stderr = apply_python_io_environment(os.environ, sys.stdout, sys.stderr)
    return run_script_entry(argv)


def run_script_entry(argv: Sequence[str]) -> int:
    """Hidden entry point of the frozen exe: run ``argv[0]`` as ``__main__`` with ``argv[1:]``.

    Mirrors ``python script.py``: ``sys.argv`` is the script and its
    arguments, the script's directory comes first on ``sys.path``, and
    ``SystemExit`` becomes the return code. An uncaught exception prints its
    traceback on stderr and returns 1, as Python would. ``--confine SPEC``
    first: the sandbox's last step (``confine``), then the script (none: a probe).
    """
    from jlgcli.rebound import confine

    if len(argv) >= 2 and argv[0] == "--confine":
        return confine.main([str(a) for a in argv[1:]])
    if not argv:
        print(f"usage: {RUN_SCRIPT_COMMAND} [--confine SPEC] SCRIPT [ARG...]", file=sys.stderr)
        return 2
    return confine.run_script([str(a) for a in argv])


def removed_env_names(
    environ: Mapping[str, str], *, is_windows: bool = sys.platform == "win32"
) -> tuple[str, ...]:
    """Every variable of ``environ`` a script must not see (all but ``script_env_names``)."""
    kept = set(script_env_names(environ, is_windows=is_windows))
    return tuple(sorted(name for name in environ if name not in kept))


def _omitted(dropped: int) -> str:
    return f"\n[... {dropped:,} bytes omitted by jlgcli ...]\n"


@record
class ExecutionResult:
    """One script run, as the ledger records it and the model is told: a view of its outcome."""

    argv: tuple[str, ...]
    cwd: str
    outcome: ProcessOutcome
    timeout: float | None = None
    isolation: str = "none"  # bubblewrap | unshare | unprivileged-user | none (issue 33)

    @property
    def exit_code(self) -> int | None:
        return self.outcome.exit_code

    @property
    def stop_reason(self) -> str:
        """exited | timeout | idle | cancelled | failed-to-start."""
        return self.outcome.stop_reason.value

    @property
    def duration(self) -> float:
        return self.outcome.duration

    @property
    def pid(self) -> int | None:
        return self.outcome.pid

    @property
    def error(self) -> str | None:
        return self.outcome.error

    @property
    def stdout(self) -> str:
        """The redacted head and tail of stdout, with a note where bytes were dropped."""
        output = self.outcome.output
        return output.stdout.render(_omitted) if output is not None else ""

    @property
    def stderr(self) -> str:
        output = self.outcome.output
        return output.stderr.render(_omitted) if output is not None else ""

    @property
    def stdout_bytes(self) -> int:
        return self.outcome.stdout_bytes

    @property
    def stderr_bytes(self) -> int:
        return self.outcome.stderr_bytes

    @property
    def stdout_truncated(self) -> bool:
        return self.outcome.output is not None and self.outcome.output.stdout.truncated

    @property
    def stderr_truncated(self) -> bool:
        return self.outcome.output is not None and self.outcome.output.stderr.truncated

    @property
    def ok(self) -> bool:
        return self.outcome.ok


def run_script(
    script: Path,
    *,
    root: Path,
    timeout: float,
    max_output_bytes: int,
    cancel: threading.Event | None = None,
    log: Callable[[str], None] | None = None,
    frozen: bool | None = None,
    executable: str | None = None,
    isolation: Isolation | None = None,
) -> ExecutionResult:
    """Run an already-sandbox-checked ``script`` and return what happened (never raises for it).

    Each stream keeps its first and last ``max_output_bytes // 2`` bytes, redacted.
    ``isolation``: the wrapper to run it under (default: none).
    """
    from jlgcli.process import run_captured  # the process layer pulls in threads and pexpect
    from jlgcli.process.outcome import OutputTail

    mark_non_dumpable()
    isolated = isolation or Isolation("none")
    is_frozen = bool(getattr(sys, "frozen", False)) if frozen is None else frozen
    argv = script_argv(script, frozen=is_frozen, executable=executable or sys.executable)
    env = {**_CHILD_ENV, **dict(isolated.env)}
    inv = Invocation(
        argv=tuple(isolated.wrap(argv)),
        cwd=str(root),
        env=env,
        env_remove=tuple(n for n in removed_env_names(os.environ) if n not in env),
        stdin=None,
    )
    half = max(max_output_bytes // 2, 1)
    output = OutputTail(half, half, filters=Redactor().stream)
    try:
        outcome = run_captured(
            inv, Limits(total_timeout=timeout), output=output, cancel=cancel, log=log
        )
    except Exception as exc:
        outcome = ProcessOutcome.not_started(f"{type(exc).__name__}: {exc}")
    return ExecutionResult(
        argv=tuple(argv), cwd=str(root), outcome=outcome, timeout=timeout, isolation=isolated.kind
    )
