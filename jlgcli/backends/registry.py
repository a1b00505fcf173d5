"""The backend registry: one literal dict, custom command backends, parallel probes.

``get_backend`` returns a ready adapter for an id; ``probe_all`` probes several
at once in threads, so a CLI that hangs costs its own time budget and not the
sum (RG-004: ``jlgcli backends`` answers within ~3 s whatever happens);
``auto_select`` picks the first available one in ``BUILTIN_BACKENDS`` order.
"""

from __future__ import annotations

import difflib
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from jlgcli.backends.base import Availability, Backend
from jlgcli.backends.claude import ClaudeBackend
from jlgcli.backends.codex import CodexBackend
from jlgcli.backends.copilot import CopilotBackend
from jlgcli.backends.gemini import GeminiBackend
from jlgcli.backends.ids import AUTO, BUILTIN_BACKENDS, SPECIAL_BACKENDS
from jlgcli.errors import ExitCode, JlgError

BUILTINS: dict[str, Callable[[], Backend]] = {
    "claude": ClaudeBackend,
    "codex": CodexBackend,
    "copilot": CopilotBackend,
    "gemini": GeminiBackend,
}
# probe_all waits at most this long past the probes' own timeout (kill ladder, thread start).
PROBE_SLACK = 0.8
MAX_PROBE_WALL = 3.0
assert tuple(BUILTINS) == BUILTIN_BACKENDS  # auto order is ids.py's


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

        return CommandBackend(backend_id, parse_settings(backend_id, custom[backend_id]))
    known = [*BUILTINS, *sorted(custom or {})]
    close = difflib.get_close_matches(backend_id, [*known, *SPECIAL_BACKENDS, AUTO], n=1)
    hint = f"did you mean {close[0]!r}?" if close else "see: jlgcli backends"
    if backend_id in SPECIAL_BACKENDS or backend_id == AUTO:
        hint = f"{backend_id!r} is chosen by the runner, not built by the registry"
    raise JlgError(
        ExitCode.USAGE, f"unknown backend {backend_id!r} (known: {', '.join(known)})", hint=hint
    )


def all_backends(custom: Mapping[str, Mapping[str, Any]] | None = None) -> list[Backend]:
    """Every built-in backend, then every custom one (in name order)."""
    return [get_backend(name, custom=custom) for name in (*BUILTINS, *sorted(custom or {}))]


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
