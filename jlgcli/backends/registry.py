"""The backend registry: one literal dict, custom command backends, parallel probes.

``get_backend`` returns a ready adapter for an id; ``probe_all`` probes several
at once in threads, so a CLI that hangs costs its own time budget and not the
sum (RG-004: ``jlgcli backends`` answers within ~3 s whatever happens);
``auto_select`` picks the first available one in ``BUILTIN_BACKENDS`` order.
"""

from __future__ import annotations

import importlib
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping

from jlgcli.backends.base import Availability, BackendRequest
from jlgcli.backends.cli_facts import BUILTIN_CLIS, not_on_path
from jlgcli.config.backend_ids import AUTO, BUILTIN_BACKENDS, SPECIAL_BACKENDS
from jlgcli.errors import ExitCode, JlgError
from jlgcli.process.spawn import resolve_executable

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    from jlgcli.backends.base import Backend, StreamParser
    from jlgcli.process.model import Invocation


def _adapter(name: str, class_name: str) -> Callable[[], Backend]:
    """A factory importing ``jlgcli.backends.<name>`` only when it is called."""

    def make() -> Backend:
        module = importlib.import_module(f"jlgcli.backends.{name}")
        adapter: Callable[[], Backend] = getattr(module, class_name)
        return adapter()

    return make


# Each adapter's module is imported when it is chosen: a run loads only its own (issue 18).
BUILTINS: dict[str, Callable[[], Backend]] = {
    info.id: _adapter(info.id, info.adapter) for info in BUILTIN_CLIS.values()
}
# probe_all waits at most this long past the probes' own timeout (kill ladder, thread start).
PROBE_SLACK = 0.8
MAX_PROBE_WALL = 3.0
assert tuple(BUILTINS) == BUILTIN_BACKENDS  # auto order is config/backend_ids.py's


def get_backend(
    backend_id: str, *, custom: Mapping[str, Mapping[str, Any]] | None = None
) -> Backend:
    """The adapter for ``backend_id``: a built-in, or a command backend from config ``backends``.

    Unknown id → JlgError(64) listing the known ones (closest suggested);
    invalid command-backend settings → JlgError(78) naming ``backends.<name>.<field>``.
    """
    if backend_id in BUILTINS:
        if custom and backend_id in custom:
            raise JlgError(
                ExitCode.CONFIG,
                f"custom backend backends.{backend_id} reuses the name of a built-in backend",
                hint="give the custom backend another name",
            )
        return BUILTINS[backend_id]()
    if custom and backend_id in custom:
        from jlgcli.backends.command import CommandBackend, parse_settings
        from jlgcli.config.trust import (
            untrusted_error,
            untrusted_file_of,
            untrusted_state_of,
            without_mark,
        )

        settings = custom[backend_id]
        if (source := untrusted_file_of(settings)) is not None:  # project trust (issue 15)
            state = untrusted_state_of(settings)
            raise untrusted_error(f"backend {backend_id!r}", source, state)
        return CommandBackend(backend_id, parse_settings(backend_id, without_mark(settings)))
    known = [*BUILTINS, *sorted(custom or {})]
    import difflib  # only on a miss

    close = difflib.get_close_matches(backend_id, [*known, *SPECIAL_BACKENDS, AUTO], n=1)
    hint = f"did you mean {close[0]!r}?" if close else "see: jlgcli backends"
    if backend_id in SPECIAL_BACKENDS or backend_id == AUTO:
        hint = f"{backend_id!r} is chosen by the runner, not built by the registry"
    raise JlgError(
        ExitCode.USAGE, f"unknown backend {backend_id!r} (known: {', '.join(known)})", hint=hint
    )


def all_backends(custom: Mapping[str, Mapping[str, Any]] | None = None) -> list[Backend]:
    """Every built-in backend, then every custom one (in name order).

    A custom backend from a project file that is not trusted is an
    ``UntrustedBackend``: its probe runs nothing and says how to trust it.
    """
    return [listed_backend(name, custom) for name in (*BUILTINS, *sorted(custom or {}))]


def listed_backend(name: str, custom: Mapping[str, Mapping[str, Any]] | None = None) -> Backend:
    """``get_backend``, except that an untrusted custom backend is an ``UntrustedBackend``
    and a built-in one a ``ListedBuiltin`` (its adapter imported only if its CLI is found)."""
    from jlgcli.config.trust import untrusted_file_of, untrusted_state_of, without_mark

    if name in BUILTINS and not (custom and name in custom):
        return ListedBuiltin(name)

    settings = custom.get(name, {}) if custom else {}
    source = untrusted_file_of(settings)
    if source is not None and name not in BUILTINS:
        from jlgcli.backends.command import parse_settings

        parse_settings(name, without_mark(settings))  # checking runs nothing: errors show early
        return UntrustedBackend(name, source, untrusted_state_of(settings))
    return get_backend(name, custom=custom)


class ListedBuiltin:
    """A built-in backend as listed (``jlgcli backends``, ``doctor``; issue 18).

    Its adapter module (parsers, limit patterns, the probe machinery: ~25 ms of
    imports for the four) is imported on first use, and the probe of a CLI that
    is not on PATH uses none of it: the status comes from ``cli_facts`` alone,
    the same one ``probe_cli`` gives.
    """

    def __init__(self, name: str) -> None:
        self.id = name
        self._adapter: Backend | None = None

    def adapter(self) -> Backend:
        """The real adapter (imported now if it was not)."""
        if self._adapter is None:
            self._adapter = BUILTINS[self.id]()
        return self._adapter

    def probe(self, timeout: float = 2.0) -> Availability:
        """``missing`` when the CLI is not on PATH, else the adapter's own probe."""
        info = BUILTIN_CLIS[self.id]
        if resolve_executable(info.executable, path=os.environ.get("PATH")) is None:
            return not_on_path(info)
        return self.adapter().probe(timeout=timeout)

    def invocation(self, request: BackendRequest) -> Invocation:
        """The adapter's invocation."""
        return self.adapter().invocation(request)

    def parser(self) -> StreamParser:
        """The adapter's parser."""
        return self.adapter().parser()


class UntrustedBackend:
    """A custom backend whose project file is not trusted: listed, never run (issue 15)."""

    def __init__(self, name: str, source: str, state: str) -> None:
        self.id = name
        self.source = source
        self.state = state  # "not trusted" | "changed since trusted"

    def probe(self, timeout: float = 2.0) -> Availability:
        """Runs nothing: says the backend is not trusted, and how to trust it."""
        return Availability(
            self.id,
            "unknown",
            detail=f"not trusted: its command comes from {self.source} ({self.state})",
            hint=f"{self.state}: read {self.source}, then run: jlgcli config trust {self.source}",
        )

    def _refuse(self) -> JlgError:
        from jlgcli.config.trust import untrusted_error

        return untrusted_error(f"backend {self.id!r}", self.source, self.state)

    def invocation(self, request: BackendRequest) -> Invocation:
        """Never: the command is not trusted (exit 78)."""
        raise self._refuse()

    def parser(self) -> StreamParser:
        """Never: the command is not trusted (exit 78)."""
        raise self._refuse()


def probe_all(backends: Iterable[Backend], *, timeout: float = 2.0) -> list[Availability]:
    """Probe every backend in parallel; results in the given order.

    A probe still running after ``timeout`` + slack (never more than 3 s in all)
    is reported ``unknown``; its thread finishes its own cleanup (kill ladder)
    in the background and is joined at interpreter exit, so no child survives.
    """
    items = list(backends)
    results: list[Availability | None] = [None] * len(items)

    def run(index: int, backend: Backend) -> None:
        try:
            results[index] = backend.probe(timeout=timeout)
        except Exception as exc:  # a probe bug must not hide the other backends
            results[index] = Availability(
                backend.id,
                "unknown",
                detail=f"probe failed: {exc!r}",
                hint="report this as a jlgcli bug",
            )

    threads = [
        threading.Thread(target=run, args=pair, name=f"probe-{pair[1].id}")
        for pair in enumerate(items)
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + min(timeout + PROBE_SLACK, max(MAX_PROBE_WALL, timeout))
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    return [
        result
        if result is not None
        else Availability(
            backend.id,
            "unknown",
            detail=f"the probe did not finish within {timeout:g}s",
            hint=f"the {backend.id} CLI may be waiting for something (first run, update, "
            "network); run it by hand once",
        )
        for backend, result in zip(items, results, strict=True)
    ]


def auto_select(availabilities: Iterable[Availability]) -> str | None:
    """The first ``available`` built-in backend in ``BUILTIN_BACKENDS`` order, or None."""
    ready = {a.id for a in availabilities if a.status == "available"}
    return next((name for name in BUILTIN_BACKENDS if name in ready), None)
