"""The run's backend probe, started as soon as the options name the backend (issues 49, 50).

A run checks that its backend is installed (``probe_installed``: the program on PATH,
its version) before the first call. That check often starts the CLI (``codex
--version``), and jlgcli used to wait for it idle, after importing the run path and
before opening the run folder. Started in a thread right after the options are
resolved, the CLI's start overlaps jlgcli's own imports and set-up; the run takes
the answer (``take``) where it used to probe, and says what it would have said.

Only a named backend is probed early: ``auto`` probes them all (in ``select``), the
replay backend starts nothing, and a batch's task (``known_versions``) has its
versions handed down. The version is asked every run, never cached: what a
launcher script or a version manager's shim runs can change with the folder or the
environment, with the file unchanged.
"""

from __future__ import annotations

import sys
import threading

from jlgcli.config.backend_ids import AUTO

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.backends.base import Availability, Backend
    from jlgcli.runner.spec import RunSpec

SWITCH_INTERVAL_S = 0.0002  # while the probe runs beside the caller's imports


def installed(backend: Backend) -> Availability:
    """What a run checks of its backend: installed and its version (``probe_installed``,
    no login check: the first call says, issue 34), or the full probe where it has none."""
    fast = getattr(backend, "probe_installed", None)
    found: Availability = fast() if fast is not None else backend.probe()
    return found


class EarlyProbe:
    """``installed`` of the spec's backend, on a thread of its own until ``take``.

    The backend's modules and the spawn path are imported here, in the calling thread: the
    probe's thread then starts the CLI at once instead of importing them beside the
    caller's imports (one interpreter lock: the two would take turns).
    """

    def __init__(self, spec: RunSpec) -> None:
        import jlgcli.process.pipe  # noqa: F401 - the probe's spawn path, imported before its thread
        from jlgcli.backends.registry import get_backend

        self.backend_id = spec.backend
        self._answer: Availability | BaseException | None = None
        self._thread: threading.Thread | None = None
        try:
            backend = get_backend(spec.backend, custom=spec.custom_backends)
        except Exception as exc:  # an unknown id, invalid custom settings: raised by take()
            self._answer = exc
            return
        # a daemon: an interruption before ``take`` must not wait for the probe; its
        # process dies with jlgcli (supervised) or ends within the probe's timeout
        self._thread = threading.Thread(
            target=self._run, args=(backend, sys.getswitchinterval()), name="early-probe",
            daemon=True,
        )  # fmt: skip
        # The caller imports the run path (CPU, holding the interpreter lock): by default the
        # probe's thread would run 5 ms in 10 and start the CLI ~10 ms late. Until the probe
        # ends, the threads take turns every 0.2 ms.
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        self._thread.start()

    def _run(self, backend: Backend, interval: float) -> None:
        try:
            self._answer = installed(backend)
        except BaseException as exc:  # handed to the run by take()
            self._answer = exc
        finally:
            sys.setswitchinterval(interval)

    def take(self, backend_id: str) -> Availability | None:
        """The probe's answer for ``backend_id`` (waits for it); None for another backend.
        An error the probe raised (an invalid custom backend) is raised here."""
        if backend_id != self.backend_id:
            return None
        if self._thread is not None:
            self._thread.join()
        answer = self._answer
        if isinstance(answer, BaseException):
            raise answer
        return answer


def start(spec: RunSpec) -> EarlyProbe | None:
    """Probe the spec's backend now, in a thread; None where the run probes otherwise."""
    if spec.backend in (AUTO, "replay") or spec.known_versions:
        return None
    return EarlyProbe(spec)
