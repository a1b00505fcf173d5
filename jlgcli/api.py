"""The Python API every door calls: ``run``, ``loop`` and ``agent_call``, each → ``RunSummary``.

    from jlgcli.api import loop
    summary = loop("task.md", backend="claude", max_iterations=5)
    if summary.exitCode: ...

Keyword options are the command line's flags (``max_iterations`` for
``--max-iterations``…) and beat the environment and config files, exactly as
flags do (flags > ``JLGCLI_*`` env > project config > user config > defaults).
Live output and progress go to the terminal as with the CLI (``verbosity=0``
keeps it quiet: only ``run`` prints its final answer, on stdout, as ``run -q``
does); the summary is returned, never printed. Usage or config problems raise
``JlgError`` (with ``code``, ``message``, ``hint``); run outcomes — done,
budget spent, timeout, backend failure, interrupted — are summaries.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jlgcli.runner.options import RunOptions

if TYPE_CHECKING:
    from jlgcli.runner.console import Console
    from jlgcli.runner.spec import Command
    from jlgcli.runner.summary import RunSummary

__all__ = ["RunOptions", "agent_call", "execute", "loop", "run"]


def run(prompt: str | Path, **options: Any) -> RunSummary:
    """One call to the backend with the prompt file ``prompt`` (``-``: stdin)."""
    return execute("run", _options(prompt, options))


def loop(task: str | Path, **options: Any) -> RunSummary:
    """Loop ``task`` (a file, ``-`` for stdin) until done or a guardrail stops it."""
    return execute("loop", _options(task, options))


def agent_call(prompt_text: str, *, cwd: str | Path, **options: Any) -> RunSummary:
    """One agent call with the prompt given as text (the dev loop's calls).

    The call gets every guardrail of a run — rate-limit waits, the default
    timeouts, Ctrl-C — and, with ``artifacts=True``, its own recorded run.
    """
    values = {"prompt_text": prompt_text, "cwd": str(cwd), **options}
    return execute("run", _options(None, values))


def _options(prompt: str | Path | None, options: dict[str, Any]) -> RunOptions:
    values = dict(options)
    for name in ("backend_args", "fallback", "gates"):
        if isinstance(values.get(name), str):
            values[name] = (values[name],)
        elif values.get(name) is not None:
            values[name] = tuple(values[name])
    if prompt is not None:
        values["prompt"] = str(prompt)
    try:
        return RunOptions(**values)
    except TypeError as exc:
        from jlgcli.errors import usage_error

        raise usage_error(f"jlgcli.api: {exc}", hint="options are the flags' long names "
                          "with underscores, e.g. max_iterations=5") from None  # fmt: skip


def execute(
    command: Command,
    options: RunOptions,
    *,
    console: Console | None = None,
    json_mode: bool = False,
    cancel: threading.Event | None = None,
) -> RunSummary:
    """Resolve ``options`` into a RunSpec and run it (the CLI passes its own console)."""
    from jlgcli.process import install_termination_handlers
    from jlgcli.runner.engine import execute as run_spec
    from jlgcli.runner.options import build_spec

    spec, verbosity = build_spec(options, command)
    if console is None:
        from jlgcli.runner.console import Console

        # --events - owns stdout as --json does: the live text goes to stderr (issue 31)
        console = Console(verbosity, json_mode=json_mode or spec.events_path == "-")
    with install_termination_handlers():
        return run_spec(spec, console, cancel=cancel)
