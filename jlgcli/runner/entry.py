"""The core's one entry: options → a resolved ``RunSpec`` → a run → ``RunSummary``.

Every door reaches it through ``jlgcli.api`` (``run``, ``loop``, ``agent_call``,
``execute``); the modes below ``api`` (the dev loop's agent calls) call it here, so
that nothing imports upward; they reach an agent CLI only through here (``probe_backend``
before the first call), never through ``jlgcli.backends``.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from functools import partial

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    from jlgcli.backends.base import Availability
    from jlgcli.runner.console import Console
    from jlgcli.runner.options import RunOptions
    from jlgcli.runner.spec import Command
    from jlgcli.runner.summary import RunSummary


def execute(
    command: Command,
    options: RunOptions,
    *,
    console: Console | None = None,
    json_mode: bool = False,
    cancel: threading.Event | None = None,
) -> RunSummary:
    """Resolve ``options`` into a RunSpec and run it (the CLI passes its own console)."""
    from jlgcli.process import install_termination_handlers, warm_up

    warm_up()  # the fork server starts while the options are resolved (issue 49)
    from jlgcli.runner import early_probe
    from jlgcli.runner.options import build_spec

    spec, verbosity = build_spec(options, command)
    probe = early_probe.start(spec)  # the backend's start overlaps the imports below
    from jlgcli.runner.engine import execute as run_spec
    from jlgcli.runner.select import select_backend

    if console is None:
        from jlgcli.runner.console import Console

        # --events - owns stdout as --json does: the live text goes to stderr (issue 31)
        console = Console(verbosity, json_mode=json_mode or spec.events_path == "-")
    with install_termination_handlers():
        return run_spec(spec, console, cancel=cancel, select=partial(select_backend, early=probe))


def probe_backend(
    backend_id: str, custom: Mapping[str, Mapping[str, Any]] | None = None
) -> Availability:
    """Whether ``backend_id`` (a built-in, or a custom command backend of ``custom``) can run
    here; an unknown id or invalid custom settings raise ``JlgError`` (64, 78)."""
    from jlgcli.backends.registry import get_backend

    return get_backend(backend_id, custom=custom).probe()
