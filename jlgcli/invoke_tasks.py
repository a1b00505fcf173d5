"""Invoke tasks for jlgcli: ``invoke loop --task task.md`` from any repository's ``tasks.py``.

Install the extra (``pip install "jlgcli[invoke]"``), then in ``tasks.py``::

    from jlgcli.invoke_tasks import dev, loop, run  # noqa: F401
    # invoke loop --task task.md --max-iterations 5

or, to keep them under a ``jlg.`` prefix next to your own tasks::

    from jlgcli.invoke_tasks import ns as jlg
    ns = Collection(my_task, jlg)          # invoke jlg.loop --task task.md

Each task runs the same command a terminal user would type, in-process
(``jlgcli.cli.main``: same options, same output, same exit codes) and fails
with jlgcli's exit code through ``invoke.Exit``. Extra arguments for every
``run``/``loop`` can come from Invoke's config (``invoke.yaml``)::

    jlgcli:
      args: "--backend codex --artifacts"
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

try:
    from invoke.collection import Collection
    from invoke.exceptions import Exit
    from invoke.tasks import task
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError("jlgcli's Invoke tasks need Invoke: pip install 'jlgcli[invoke]'") from exc

from jlgcli.errors import ExitCode, JlgError
from jlgcli.integrations.argv import command_argv, split_args

_COMMON_HELP = {
    "task": "the task/prompt file (UTF-8 markdown); - reads stdin",
    "prompt": "same as --task",
    "backend": "claude, codex, copilot, gemini, replay, a custom backend or auto",
    "timeout": "total time limit, e.g. 30s, 10m, 1h (exit 75)",
    "artifacts": "keep transcript and result in .jlgcli/runs/<id>/",
    "json": "print one JSON object (the RunSummary) on stdout",
    "args": "more jlgcli options, as one string (e.g. '--model sonnet -v')",
}
_LOOP_HELP = _COMMON_HELP | {
    "max_iterations": "stop after N iterations without completion (exit 4)",
    "completion": "marker (a final DONE line), json (a status object) or rebound",
}
_DEV_HELP = {
    "args": "the dev sub-command and its options (default: run), e.g. 'run TASK-003'",
    "backend": "the agent CLI of the dev loop",
}


def _config_args(c: Any) -> list[str]:
    settings = c.config.get("jlgcli", {}) or {}
    return split_args(str(settings.get("args", "") or ""))


def _prompt_file(task_file: str | None, prompt: str | None) -> str | None:
    if task_file and prompt and task_file != prompt:
        raise JlgError(ExitCode.USAGE, "give the prompt file once: --task and --prompt differ",
                       hint="--prompt is another name for --task")  # fmt: skip
    return task_file or prompt


def _call(build: Callable[[], list[str]]) -> None:
    """Run ``jlgcli <argv>`` in-process; a non-zero exit code becomes ``invoke.Exit(code)``."""
    from jlgcli.cli import main

    try:
        argv = build()
    except JlgError as exc:  # a bad option spotted before the CLI runs: same message shape
        sys.stderr.write(f"error: {exc.message}\n" + (f"hint: {exc.hint}\n" if exc.hint else ""))
        raise Exit(code=exc.code) from None
    code = main(argv)
    if code:
        raise Exit(code=code)


@task(help=_COMMON_HELP)
def run(
    c: Any,
    task: str | None = None,
    prompt: str | None = None,
    backend: str | None = None,
    timeout: str | None = None,
    artifacts: bool = False,
    json: bool = False,
    args: str = "",
) -> None:
    """Run a prompt file once on a backend (jlgcli run)."""
    _call(lambda: command_argv(
        "run", _prompt_file(task, prompt), backend=backend, timeout=timeout,
        artifacts=True if artifacts else None, json=json,
        extra=[*_config_args(c), *split_args(args)],
    ))  # fmt: skip


@task(help=_LOOP_HELP)
def loop(
    c: Any,
    task: str | None = None,
    prompt: str | None = None,
    backend: str | None = None,
    max_iterations: int | str | None = None,
    timeout: str | None = None,
    completion: str | None = None,
    artifacts: bool = False,
    json: bool = False,
    args: str = "",
) -> None:
    """Loop a task until the model says it is done, within guardrails (jlgcli loop)."""
    _call(lambda: command_argv(
        "loop", _prompt_file(task, prompt), backend=backend, max_iterations=max_iterations,
        timeout=timeout, completion=completion, artifacts=True if artifacts else None, json=json,
        extra=[*_config_args(c), *split_args(args)],
    ))  # fmt: skip


@task(help=_DEV_HELP)
def dev(c: Any, args: str = "", backend: str | None = None) -> None:
    """The plan-driven development loop (jlgcli dev run|resume …)."""
    _call(lambda: command_argv("dev", backend=backend, extra=split_args(args)))


ns = Collection("jlg", run, loop, dev)
ns.configure({"jlgcli": {"args": ""}})
