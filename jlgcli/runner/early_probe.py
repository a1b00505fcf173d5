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

import threading
from typing import TYPE_CHECKING

from jlgcli.config.backend_ids import AUTO

if TYPE_CHECKING:
    from jlgcli.backends.base import Availability, Backend
    from jlgcli.runner.spec import RunSpec


def installed(backend: Backend) -> Availability:
    """What a run checks of its backend: installed and its version (``probe_installed``,
    no login check: the first call says, issue 34), or the full probe where it has none."""
    fast = getattr(backend, "probe_installed", None)
    found: Availability = fast() if fast is not None else backend.probe()
    return found


class EarlyProbe:
    """``installed`` of the spec's backend, on a thread of its own until ``take``."""

    def __init__(self, spec: RunSpec) -> None:
        self.backend_id = spec.backend
        self._custom = spec.custom_backends
        self._answer: Availability | BaseException | None = None
        # a daemon: an interruption before ``take`` must not wait for the probe; its
        # process dies with jlgcli (supervised) or ends within the probe's timeout
        self._thread = threading.Thread(target=self._run, name="early-probe", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            from jlgcli.backends.registry import get_backend

            self._answer = installed(get_backend(self.backend_id, custom=self._custom))
        except BaseException as exc:  # handed to the run by take()
            self._answer = exc

    def take(self, backend_id: str) -> Availability | None:
        """The probe's answer for ``backend_id`` (waits for it); None for another backend.
        An error the probe raised (an invalid custom backend) is raised here."""
        if backend_id != self.backend_id:
            return None
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
