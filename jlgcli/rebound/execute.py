"""Running one sandboxed target script (REQ_AUTO_040).

argv only, never a shell: the Python that runs jlgcli (``sys.executable``), or
in the frozen exe the exe itself through a hidden entry point
(``__jlgcli_run_script__``); cwd = project root; stdin = null device; a
timeout that kills the whole process tree (the process layer's ladder);
output streamed through a bounded head+tail sink so a script printing 50 MB
costs a constant amount of memory.

Secrets (issue 15): the child gets an allow-listed environment (``PATH``, home,
temp, locale, and the few variables Windows needs to start a process), nothing
of jlgcli's own; on Linux jlgcli makes itself non-dumpable first, so a script
cannot read ``/proc/<jlgcli>/environ``; and the script's output is redacted
before it is kept (it goes back to the model and into the ledger).
"""

from __future__ import annotations

import os
import runpy
import sys
import threading
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from jlgcli.artifacts.redact import Redactor, StreamRedactor
from jlgcli.process.model import Invocation, Limits, OutputEvent

RUN_SCRIPT_COMMAND = "__jlgcli_run_script__"

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


def run_script_entry(argv: Sequence[str]) -> int:
    """Hidden entry point of the frozen exe: run ``argv[0]`` as ``__main__`` with ``argv[1:]``.

    Mirrors ``python script.py``: ``sys.argv`` is the script and its
    arguments, the script's directory comes first on ``sys.path``, and
    ``SystemExit`` becomes the return code. An uncaught exception prints its
    traceback on stderr and returns 1, as Python would.
    """
    if not argv:
        print(f"usage: {RUN_SCRIPT_COMMAND} SCRIPT [ARG...]", file=sys.stderr)
        return 2
    script = str(argv[0])
    sys.argv = [script, *argv[1:]]
    sys.path.insert(0, str(Path(script).resolve().parent))
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        return _exit_status(exc.code)
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def removed_env_names(
    environ: Mapping[str, str], *, is_windows: bool = sys.platform == "win32"
) -> tuple[str, ...]:
    """Every variable of ``environ`` a script must not see (all but ``script_env_names``)."""
    kept = set(script_env_names(environ, is_windows=is_windows))
    return tuple(sorted(name for name in environ if name not in kept))


class BoundedText:
    """Keeps the first and last ``limit // 2`` characters of a stream, counts the rest."""

    def __init__(self, limit: int) -> None:
        self._half = max(limit // 2, 1)
        self._head: list[str] = []
        self._head_len = 0
        self._tail = ""
        self.total_chars = 0

    def add(self, text: str) -> None:
        self.total_chars += len(text)
        room = self._half - self._head_len
        if room > 0:
            self._head.append(text[:room])
            self._head_len += min(room, len(text))
            text = text[room:]
        if text:
            self._tail = (self._tail + text)[-self._half :]

    @property
    def truncated(self) -> bool:
        return self.total_chars > self._head_len + len(self._tail)

    def render(self) -> str:
        """The kept text, with a note where characters were dropped."""
        head = "".join(self._head)
        if not self.truncated:
            return head + self._tail
        omitted = self.total_chars - self._head_len - len(self._tail)
        return f"{head}\n[... {omitted:,} characters omitted by jlgcli ...]\n{self._tail}"


@dataclass(frozen=True)
class ExecutionResult:
    """One script run, as the ledger records it and the model is told."""

    argv: tuple[str, ...]
    cwd: str
    exit_code: int | None
    stop_reason: str  # exited | timeout | idle | cancelled | failed-to-start
    duration: float
    stdout: str
    stderr: str
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    pid: int | None = None
    timeout: float | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.stop_reason == "exited" and self.exit_code == 0


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
) -> ExecutionResult:
    """Run an already-sandbox-checked ``script`` and return what happened (never raises for it)."""
    from jlgcli.process import run_invocation  # the process layer pulls in threads and pexpect

    mark_non_dumpable()
    is_frozen = bool(getattr(sys, "frozen", False)) if frozen is None else frozen
    argv = script_argv(script, frozen=is_frozen, executable=executable or sys.executable)
    inv = Invocation(
        argv=tuple(argv),
        cwd=str(root),
        env=_CHILD_ENV,
        env_remove=tuple(n for n in removed_env_names(os.environ) if n not in _CHILD_ENV),
        stdin=None,
    )
    streams = {"stdout": BoundedText(max_output_bytes), "stderr": BoundedText(max_output_bytes)}
    redactor = Redactor()
    redacting: dict[str, StreamRedactor] = {name: redactor.stream() for name in streams}
    lock = threading.Lock()

    def sink(event: OutputEvent) -> None:
        with lock:
            streams[event.stream].add(redacting[event.stream].feed_text(event.text))

    try:
        outcome = run_invocation(
            inv, limits=Limits(total_timeout=timeout), sinks=(sink,), cancel=cancel, log=log
        )
    except Exception as exc:
        return ExecutionResult(
            argv=inv.argv, cwd=str(root), exit_code=None, stop_reason="failed-to-start",
            duration=0.0, stdout="", stderr="", timeout=timeout,
            error=f"{type(exc).__name__}: {exc}",
        )  # fmt: skip
    for name, stream in redacting.items():
        streams[name].add(stream.flush().decode("utf-8", "surrogatepass"))
    out, err = streams["stdout"], streams["stderr"]
    return ExecutionResult(
        argv=inv.argv,
        cwd=str(root),
        exit_code=outcome.exit_code,
        stop_reason=outcome.stop_reason.value,
        duration=outcome.duration,
        stdout=out.render(),
        stderr=err.render(),
        stdout_bytes=outcome.stdout_bytes,
        stderr_bytes=outcome.stderr_bytes,
        stdout_truncated=out.truncated,
        stderr_truncated=err.truncated,
        pid=outcome.pid,
        timeout=timeout,
    )
