"""The Python API every door calls: ``run``, ``loop``, ``agent_call`` → ``RunSummary``; ``dev``.

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

``dev("run", assume_yes=True)`` runs the plan-driven development loop (seed
003) and returns its report (``DevResult``; ``InitReport`` for ``"init"``);
its failures raise ``JlgError`` with seed 003's codes 1, 2 or 3 (FR-8.3).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from jlgcli.runner.entry import execute
from jlgcli.runner.options import RunOptions

if TYPE_CHECKING:
    from jlgcli.dev.init import InitReport
    from jlgcli.dev.orchestrator import DevResult
    from jlgcli.runner.summary import RunSummary

__all__ = [
    "RunOptions",
    "agent_call",
    "dev",
    "execute",
    "loop",
    "retry_conflicts",
    "run",
    "stop",
]


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


def stop(run_id: str, *, runs_dir: str | Path) -> int:
    """Ask the running loop ``run_id`` (recorded under ``runs_dir``) to stop, as a
    termination signal does: it writes its ending and can be resumed. Returns the pid
    signalled; a run not running, or not started by this user, is ``JlgError`` 64."""
    from jlgcli.runner.stop import stop_run

    return stop_run(Path(runs_dir), run_id)


def retry_conflicts(batch_id: str, *, cwd: str | Path, runs_dir: str | Path) -> int:
    """Run batch ``batch_id``'s tasks whose merge stopped on a conflict again, on the merged
    result: ``jlgcli loop --resume BATCH_ID --retry-conflicts`` in ``cwd``, started in a
    process of its own (output in the batch's ``retry.log``); returns its pid. A batch
    with no such task is ``JlgError`` 64 before anything starts."""
    from jlgcli.batch.record import batch_dir, load
    from jlgcli.batch.retry import conflicting
    from jlgcli.errors import ExitCode, JlgError
    from jlgcli.process.detached import start_self

    root = Path(runs_dir)
    record = load(root, batch_id)
    if not conflicting(record):
        raise JlgError(ExitCode.USAGE, f"no task of {record.batchId} stopped on a conflict",
                       hint=f"see its tasks: jlgcli runs show {record.batchId}")  # fmt: skip
    argv = ["loop", "--resume", record.batchId, "--retry-conflicts", "-q",
            "--artifacts-dir", str(root.resolve())]  # fmt: skip
    return start_self(argv, cwd=Path(cwd), log=batch_dir(root, record.batchId) / "retry.log")


def dev(command: str = "run", **options: Any) -> DevResult | InitReport:
    """The development loop: ``init``, ``run`` or ``resume``; returns the dev report.

    Keyword options are the flags' long names (``task_id``, ``from_step``,
    ``directory``, ``config_path``, ``llm``, ``verbosity``, ``assume_yes``,
    ``no_input``, ``json``). Every failure is a ``JlgError`` whose code is one
    of seed 003's (1 aborted, 2 configuration, 3 task execution; FR-8.3).
    """
    from jlgcli.boundary import dev_exit_code
    from jlgcli.dev.orchestrator import DevOptions, execute_dev
    from jlgcli.errors import DevExitCode, JlgError

    if command not in ("init", "run", "resume"):
        raise JlgError(DevExitCode.CONFIGURATION, f"jlgcli.api.dev: unknown command {command!r}",
                       "use init, run or resume")  # fmt: skip
    values = dict(options)
    if values.get("directory") is not None:
        values["directory"] = Path(values["directory"])
    if values.get("config_path") is not None:
        values["config_path"] = Path(values["config_path"])
    try:
        parsed = DevOptions(command, **{k: v for k, v in values.items() if v is not None})  # type: ignore[arg-type]
    except TypeError as exc:
        raise JlgError(DevExitCode.CONFIGURATION, f"jlgcli.api.dev: {exc}",
                       "options are the flags' long names with underscores") from None  # fmt: skip
    try:
        if parsed.command == "init":
            return _dev_init(parsed)
        return execute_dev(parsed)
    except JlgError as exc:
        code = dev_exit_code(exc.code)
        if code == exc.code:
            raise
        raise JlgError(code, exc.message, exc.hint) from None


def _dev_init(options: Any) -> InitReport:
    import sys

    from jlgcli.dev.init import init_project
    from jlgcli.dev.questions import Asker

    root = options.directory.resolve()
    out = sys.stderr if options.json else sys.stdout
    quiet = options.verbosity == 0

    def say(line: str) -> None:
        if not quiet:
            out.write(line + "\n")
            out.flush()

    asker = Asker(assume_yes=options.assume_yes, no_input=options.no_input)
    return init_project(root, asker, say)


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
