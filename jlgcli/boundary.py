"""The one error boundary of every console script (``jlgcli``, ``aidevloop``, ``adl``).

``run_guarded(body, want_json=…, codes=…)`` runs a command and turns how it
ended into an exit code, per program (``JLGCLI_CODES``, ``DEV_CODES``):

* ``JlgError`` → ``error: …`` / ``hint: …`` on stderr (and the JSON error
  object on stdout with ``--json``), exit ``exc.code``;
* an interruption (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT, the Windows console
  events, or stdout's reader going away) → 128 + the signal's number for
  ``jlgcli``; ``aidevloop`` keeps its seed-003 code 1 (aborted);
* any other exception is a bug → a crash log and exit 70 (``aidevloop``: 3).

Around the body it installs the termination handlers, asks for orphaned
descendants to be adopted (Linux) and ends those left at exit (issue 33), and
secures the standard streams (``jlgcli.process.std_streams``): a closed stderr
never loses the ``--json`` object and a vanished stdout reader stops the run
like SIGPIPE (exit 141), never exit 0.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from jlgcli.errors import DevExitCode, ExitCode, JlgError


class ExitCodes:
    """How one program reports an interruption and a bug (a plain class: no dataclasses
    import on the start-up path)."""

    __slots__ = ("internal", "interrupted", "interrupted_hint", "remap_interrupted", "translate")

    def __init__(
        self,
        *,
        interrupted: Callable[[int], int],  # signal number → exit code
        internal: int,  # a bug (a crash log is written)
        interrupted_hint: str | None = None,
        remap_interrupted: bool = True,  # a body's 130 becomes 128 + the real signal
        translate: Callable[[int], int] | None = None,  # every code into the program's own
    ) -> None:
        self.translate = translate
        self.interrupted = interrupted
        self.internal = internal
        self.interrupted_hint = interrupted_hint
        self.remap_interrupted = remap_interrupted


def _signal_exit(signum: int) -> int:
    return 128 + signum


def _dev_aborted(_signum: int) -> int:
    return int(DevExitCode.ABORTED)


def dev_exit_code(code: int) -> int:
    """Any jlgcli exit code as one of seed 003's four (FR-8.3, issue 36).

    0 committed · 1 aborted (a signal, 128 + N) · 2 configuration: usage (64),
    damaged or missing input (65, 66), not logged in (6), config unreadable or
    untrusted (78) · 3 everything else (a failed run, a timeout, unwritable
    artifacts, a bug).
    """
    if code in (0, 1, 2, 3):
        return code
    if code in (ExitCode.UNAUTHENTICATED, ExitCode.USAGE, ExitCode.INVALID_JSON,
                ExitCode.NO_INPUT, ExitCode.CONFIG):  # fmt: skip
        return int(DevExitCode.CONFIGURATION)
    if 128 < code < 160:
        return int(DevExitCode.ABORTED)
    return int(DevExitCode.TASK_FAILED)


EXIT_SWEEP_GRACE_S = 1.0
JLGCLI_CODES = ExitCodes(interrupted=_signal_exit, internal=int(ExitCode.INTERNAL))
DEV_CODES = ExitCodes(
    interrupted=_dev_aborted,
    internal=int(DevExitCode.TASK_FAILED),
    interrupted_hint="continue with: aidevloop resume",
    remap_interrupted=False,
    translate=dev_exit_code,
)


def run_guarded(
    body: Callable[[], int], *, want_json: bool, codes: ExitCodes = JLGCLI_CODES
) -> int:
    """Run ``body`` (a command) and return the program's exit code; never raises."""
    from jlgcli.process import adopt_orphans
    from jlgcli.process.signals import forget_interruptions, install_termination_handlers
    from jlgcli.process.std_streams import guarded_streams

    if sys.platform == "win32":  # pragma: no cover - Windows: set for every child (issue 47)
        from jlgcli.process.spawn import no_current_folder_lookup  # typing, shutil: not elsewhere

        no_current_folder_lookup(os.environ, is_windows=True)
    adopt_orphans()
    forget_interruptions()  # a new command (tests call main() many times in one process)
    with guarded_streams(), install_termination_handlers():
        try:
            return _guarded(body, want_json, codes)
        finally:
            end_orphans_at_exit()


def _guarded(body: Callable[[], int], want_json: bool, codes: ExitCodes) -> int:
    try:
        try:
            code = int(body())
        except JlgError as exc:
            return report(_translated(exc, codes), want_json)
        except KeyboardInterrupt as exc:
            if _signum(exc) == _sigpipe():  # the reader went away: it wants nothing more
                return codes.interrupted(_sigpipe())
            return report(interruption_error(exc, codes), want_json)
        except BrokenPipeError:  # a write that bypassed the guarded streams: as SIGPIPE
            from jlgcli.process.signals import note_interruption

            note_interruption(_sigpipe())
            return codes.interrupted(_sigpipe())
        except OSError as exc:
            if _name_too_long(exc):  # a path the user gave, or made from one: not a bug
                return report(_translated(_path_too_long(exc), codes), want_json)
            return report(internal_error(exc, codes), want_json)
        except Exception as exc:  # the one place a bug becomes a crash log
            return report(internal_error(exc, codes), want_json)
        return _remapped(code, codes)
    except KeyboardInterrupt as exc:  # interrupted again while reporting
        return codes.interrupted(_signum(exc))


def _name_too_long(exc: OSError) -> bool:
    import errno

    return exc.errno == errno.ENAMETOOLONG or getattr(exc, "winerror", None) == 206


def _path_too_long(exc: OSError) -> JlgError:
    """A path past the system's limit (issue 49: ``--cwd`` of 5,000 characters was a 70)."""
    from jlgcli.input_limits import NAME_MAX, clipped, path_max

    return JlgError(
        ExitCode.USAGE,
        f"a path is too long for this system: {clipped(exc.filename)}",
        f"names may have {NAME_MAX} bytes, a path {path_max():,}: pass a shorter path",
    )


def _sigpipe() -> int:
    """SIGPIPE's number. When stdout's reader is gone (``$(jlgcli runs -q | head -1)``) the
    program ends quietly with its documented code, as git and ls do: no ``error:`` line,
    and no ``--json`` object, which has no reader either (issue 49)."""
    from jlgcli.process.signals import SIGPIPE_NUMBER

    return SIGPIPE_NUMBER


def end_orphans_at_exit() -> None:
    """End every orphan re-parented to jlgcli (issue 33), if a child was ever spawned, and
    the warm supervisor nobody used (``jlgcli.process.warm``)."""
    descendants = sys.modules.get("jlgcli.process.descendants")  # loaded by the first spawn
    if descendants is None:
        return
    import contextlib  # loaded already by the process layer

    with contextlib.suppress(Exception, KeyboardInterrupt):  # never trade the exit code for it
        warm = sys.modules.get("jlgcli.process.warm")  # a supervisor started for a next call
        if warm is not None:
            warm.retire()
        descendants.end_orphans(grace=EXIT_SWEEP_GRACE_S, log=_no_log)


def _no_log(_message: str) -> None:
    pass


def _remapped(code: int, codes: ExitCodes) -> int:
    from jlgcli.process.signals import first_interruption

    signum = first_interruption()
    if codes.remap_interrupted and code == ExitCode.INTERRUPTED and signum is not None:
        return codes.interrupted(signum)  # SIGTERM ends with 143, not Ctrl-C's 130
    return code if codes.translate is None else codes.translate(code)


def _translated(exc: JlgError, codes: ExitCodes) -> JlgError:
    """``exc`` with the program's own code (the ``--json`` object says the same code)."""
    if codes.translate is None or codes.translate(exc.code) == exc.code:
        return exc
    return JlgError(codes.translate(exc.code), exc.message, exc.hint)


def _signum(exc: BaseException) -> int:
    from jlgcli.process.signals import first_interruption, interrupt_signal

    first = first_interruption()
    return first if first is not None else interrupt_signal(exc)


def interruption_error(exc: BaseException, codes: ExitCodes = JLGCLI_CODES) -> JlgError:
    """The error reported for an interruption that reached the boundary."""
    from jlgcli.process.signals import signal_name

    signum = _signum(exc)
    name = signal_name(signum)
    message = "interrupted" if name == "SIGINT" else f"interrupted by {name}"
    return JlgError(codes.interrupted(signum), message, codes.interrupted_hint)


def internal_error(exc: Exception, codes: ExitCodes = JLGCLI_CODES) -> JlgError:
    """A bug: write the crash log and say where it is."""
    from jlgcli.crash import write_crash_report

    path = write_crash_report(exc)
    return JlgError(
        codes.internal,
        f"internal error: {type(exc).__name__}: {exc}",
        f"this is a bug; please report it with the crash log {path}",
    )


def report(exc: JlgError, want_json: bool) -> int:
    """``error:``/``hint:`` on stderr (and the JSON object on stdout); returns the code.

    A broken stderr is already harmless (``jlgcli.process.std_streams``): the JSON object
    goes out first, so nothing on stderr can stop it.
    """
    if want_json:
        from jlgcli.output import emit_json

        emit_json(exc.to_json())
    from jlgcli.colour import Palette

    colour = Palette(sys.stderr, json_output=want_json)
    sys.stderr.write(f"{colour.error('error:')} {exc.message}\n")
    if exc.hint:
        sys.stderr.write(f"{colour.hint('hint:')} {exc.hint}\n")
    sys.stderr.flush()
    return exc.code
