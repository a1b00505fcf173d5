"""Invoke tasks for jlgcli: ``invoke loop --task task.md`` from any repository's ``tasks.py``.

Install the extra (``pip install "jlgcli[invoke]"``), then in ``tasks.py``::

    from jlgcli.invoke_tasks import dev, loop, run  # noqa: F401
    # invoke loop --task task.md --max-iterations 5

or, to keep them under a ``jlg.`` prefix next to your own tasks::

    from jlgcli.invoke_tasks import ns as jlg
    ns = Collection(my_task, jlg)          # invoke jlg.loop --task task.md

``run`` and ``loop`` call ``jlgcli.api`` (the same core as the command line:
same options, same output, same exit codes) and return the ``RunSummary``, as
Invoke tasks return values; a run that did not end done raises
``invoke.Exit`` with jlgcli's exit code. Extra options for every
``run``/``loop`` can come from Invoke's config (``invoke.yaml``)::

    jlgcli:
      args: "--backend codex --artifacts"

and the task's own options always beat them (``--backend claude`` on the
``invoke`` command line wins over ``args``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

try:
    from invoke.collection import Collection
    from invoke.exceptions import Exit
    from invoke.tasks import task
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError("jlgcli's Invoke tasks need Invoke: pip install 'jlgcli[invoke]'") from exc

from jlgcli.errors import ExitCode, JlgError
from jlgcli.integrations.argv import dev_argv, door_options, split_args
from jlgcli.runner.summary import RunSummary

if TYPE_CHECKING:
    from jlgcli.runner.options import RunOptions

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


def _fail(exc: JlgError) -> Exit:
    from jlgcli.boundary import report

    return Exit(code=report(exc, want_json=False))


def _core(
    command: str, build: Callable[[list[str]], RunOptions], json: bool, c: Any, args: str
) -> RunSummary:
    """Run ``command`` through ``jlgcli.api``; a non-zero exit code becomes ``invoke.Exit``.

    ``args`` (and invoke.yaml's ``jlgcli.args``) may say ``--json`` too.
    """
    from jlgcli.api import execute
    from jlgcli.artifacts.redact import Redactor
    from jlgcli.output import emit_json, show
    from jlgcli.runner.report import human_summary

    try:
        words = [*_config_args(c), *split_args(args)]
        json = json or "--json" in words
        summary = execute(command, build(words), json_mode=json)  # type: ignore[arg-type]
    except JlgError as exc:
        raise _fail(exc) from None
    if json:
        emit_json(summary.to_json())
    else:
        show(Redactor().redact(human_summary(summary)))  # as `jlgcli loop` shows it (issue 32)
    if summary.exitCode:
        raise Exit(code=summary.exitCode)
    return summary


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
) -> RunSummary:
    """Run a prompt file once on a backend (jlgcli run); returns the RunSummary."""
    return _core("run", lambda words: door_options(
        "run", _prompt_file(task, prompt), backend=backend, timeout=timeout,
        artifacts=True if artifacts else None, extra=words,
    ), json, c, args)  # fmt: skip


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
) -> RunSummary:
    """Loop a task until the model says it is done, within guardrails; returns the RunSummary."""
    return _core("loop", lambda words: door_options(
        "loop", _prompt_file(task, prompt), backend=backend, max_iterations=max_iterations,
        timeout=timeout, completion=completion, artifacts=True if artifacts else None,
        extra=words,
    ), json, c, args)  # fmt: skip


@task(help=_DEV_HELP)
def dev(c: Any, args: str = "", backend: str | None = None) -> None:
    """The plan-driven development loop (jlgcli dev run|resume …)."""
    from jlgcli.cli import main

    try:
        argv = dev_argv(backend, split_args(args))
    except JlgError as exc:
        raise _fail(exc) from None
    code = main(argv)
    if code:
        raise Exit(code=code)


ns = Collection("jlg", run, loop, dev)
ns.configure({"jlgcli": {"args": ""}})
