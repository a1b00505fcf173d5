"""The process layer: run an ``Invocation`` through a pipe or a pty, stream events, kill trees.

Public surface: ``run_invocation`` (streamed runs with limits and the kill
ladder), ``run_captured`` (the same, the outcome carrying a bounded head and
tail of the output), ``capture`` (short probes), ``install_termination_handlers``,
``resolve_executable``, ``ExecutableNotFound``, ``adopt_orphans`` (the console
scripts' request to reap escaped descendants); Windows command-line rules in
``jlgcli.process.windows``; plain data in ``jlgcli.process.model``.

The names are loaded on first use (PEP 562), so importing
``jlgcli.process.model`` for its types does not load subprocess, selectors
and the transports (``--help`` stays fast).
"""

from __future__ import annotations

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    from jlgcli.process.captured import capture, run_captured
    from jlgcli.process.run import run_invocation
    from jlgcli.process.signals import install_termination_handlers
    from jlgcli.process.spawn import ExecutableNotFound, resolve_executable

_WHERE = {
    "capture": "jlgcli.process.captured",
    "run_captured": "jlgcli.process.captured",
    "run_invocation": "jlgcli.process.run",
    "install_termination_handlers": "jlgcli.process.signals",
    "ExecutableNotFound": "jlgcli.process.spawn",
    "resolve_executable": "jlgcli.process.spawn",
}

__all__ = [
    "ExecutableNotFound",
    "adopt_orphans",
    "adoption_requested",
    "capture",
    "install_termination_handlers",
    "resolve_executable",
    "run_captured",
    "run_invocation",
]


_adopting: list[bool] = []


def adopt_orphans() -> None:
    """Have orphaned descendants re-parent to us (the jlgcli program only; Linux).

    Only a flag: ``jlgcli.process.descendants`` acts on it before the first
    spawn, so a command that starts no child (``config get``) never loads it.
    """
    if not _adopting:
        _adopting.append(True)


def adoption_requested() -> bool:
    """Whether ``adopt_orphans`` was called in this process."""
    return bool(_adopting)


def warm_up() -> None:
    """Start the supervisors' fork server now, before the command's first child (Linux,
    the jlgcli program, the main thread; else nothing).

    Its interpreter then starts while jlgcli reads its options, config and prompt, and
    the first child (a version probe) is forked by it rather than under a supervisor
    started cold, which put two interpreter start-ups before a one-shot's agent call
    (the probe's supervisor, then the server): ~40 ms of every ``jlgcli run`` (issue 49).
    """
    import sys

    if not sys.platform.startswith("linux") or not adoption_requested():
        return
    from jlgcli.process.descendants import supervisor_wanted

    if supervisor_wanted():
        from jlgcli.process import warm

        warm.prestart()


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value
