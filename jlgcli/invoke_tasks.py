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
``invoke.Exit`` with jlgcli's exit code. The options of ``run``/``loop``
have defaults in Invoke's config under ``jlgcli``, with the task's parameter
names (``invoke.yaml``, or ``INVOKE_JLGCLI_BACKEND`` and the like); ``args``
adds any other jlgcli option::

    jlgcli:
      backend: codex
      max_iterations: 5
      args: "--artifacts --model sonnet"

The options on the ``invoke`` command line always beat them (``--backend
claude`` wins over both), and a key no task knows is an error naming it
(``jlgcli.invoke_config``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

try:
    from invoke.collection import Collection
    from invoke.exceptions import Exit
    from invoke.tasks import task
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError("jlgcli's Invoke tasks need Invoke: pip install 'jlgcli[invoke]'") from exc

from jlgcli.config.backend_ids import BUILTIN_BACKENDS, SPECIAL_BACKENDS
from jlgcli.errors import ExitCode, JlgError
from jlgcli.integrations.argv import dev_argv, door_options, split_args
from jlgcli.runner.summary import RunSummary

if TYPE_CHECKING:
    from jlgcli.runner.options import RunOptions

_COMMON_HELP = {
    "task": "the task/prompt file (UTF-8 markdown); - reads stdin",
    "prompt": "same as --task",
    "backend": f"{', '.join((*BUILTIN_BACKENDS, *SPECIAL_BACKENDS))}, a custom backend or auto",
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


def _options(c: Any, command: str, given: dict[str, Any]) -> dict[str, Any]:
    """The task's options: the command line's, else ``jlgcli.*`` in Invoke's config."""
    import os

    from jlgcli.integrations.invoke_config import merged, task_defaults

    config = getattr(c, "config", None)
    settings = config.get("jlgcli", None) if config is not None else None
    prefix = str(getattr(config, "_env_prefix", None) or "INVOKE")  # Invoke's env prefix
    return merged(given, task_defaults(command, settings, os.environ, prefix))


def _prompt_file(task_file: str | None, prompt: str | None) -> str | None:
    if task_file and prompt and task_file != prompt:
        raise JlgError(ExitCode.USAGE, "give the prompt file once: --task and --prompt differ",
                       hint="--prompt is another name for --task")  # fmt: skip
    return task_file or prompt


def _build(command: str, options: dict[str, Any], words: list[str]) -> RunOptions:
    return door_options(
        command, _prompt_file(options.get("task"), options.get("prompt")),
        backend=options.get("backend"), max_iterations=options.get("max_iterations"),
        timeout=options.get("timeout"), completion=options.get("completion"),
        artifacts=True if options.get("artifacts") else None, extra=words,
    )  # fmt: skip


def _fail(exc: JlgError) -> Exit:
    from jlgcli.boundary import report

    return Exit(code=report(exc, want_json=False))


def _core(command: str, given: dict[str, Any], c: Any, args: str) -> RunSummary:
    """Run ``command`` through ``jlgcli.api``; a non-zero exit code becomes ``invoke.Exit``.

    ``given``: the task's options from the command line; each beats its config
    default. ``args`` comes after the config's ``jlgcli.args`` (so it wins), and
    either may say ``--json`` too.
    """
    from jlgcli.api import execute
    from jlgcli.artifacts.redact import Redactor
    from jlgcli.output import emit_json, show
    from jlgcli.runner.report import human_summary

    try:
        options = _options(c, command, given)
        words = [*split_args(str(options.get("args") or "")), *split_args(args)]
        json = bool(options.get("json")) or "--json" in words
        summary = execute(command, _build(command, options, words), json_mode=json)  # type: ignore[arg-type]
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
    given = {"task": task, "prompt": prompt, "backend": backend, "timeout": timeout,
             "artifacts": artifacts, "json": json}  # fmt: skip
    return _core("run", given, c, args)


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
    given = {"task": task, "prompt": prompt, "backend": backend, "max_iterations": max_iterations,
             "timeout": timeout, "completion": completion, "artifacts": artifacts,
             "json": json}  # fmt: skip
    return _core("loop", given, c, args)


@task(help=_DEV_HELP)
def dev(c: Any, args: str = "", backend: str | None = None) -> None:
    """The plan-driven development loop (jlgcli dev run|resume …)."""
    from jlgcli.commands import dev_program  # jlgcli.api.dev through the dev loop's boundary

    try:
        argv = dev_argv(backend, split_args(args))
    except JlgError as exc:
        raise _fail(exc) from None
    code = dev_program.run_door(argv)
    if code:
        raise Exit(code=code)


ns = Collection("jlg", run, loop, dev)
ns.configure({"jlgcli": {"args": ""}})
