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

``find_run_or_batch("latest", cwd=".")`` finds a run or a batch of a project and
``follow_events(target, stop=event)`` yields its events (``events.ndjson``) as they are
written, until it ends; ``watch`` is ``jlgcli watch``; ``transcript_lines(run, cwd=".")``
is ``jlgcli runs log``. They only read: nothing is stopped.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from jlgcli.runner.entry import execute
from jlgcli.runner.options import RunOptions

TYPE_CHECKING = False

if TYPE_CHECKING:
    import threading
    from typing import Any

    from jlgcli.batch.follow import Target
    from jlgcli.dev.init import InitReport
    from jlgcli.dev.orchestrator import DevResult
    from jlgcli.runner.summary import RunSummary

__all__ = [
    "RunOptions",
    "agent_call",
    "answer",
    "answer_in_background",
    "dev",
    "execute",
    "find_run_or_batch",
    "follow_events",
    "loop",
    "retry_conflicts",
    "run",
    "stop",
    "transcript_lines",
    "watch",
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


def stop(run_id: str, *, runs_dir: str | Path, wait_s: float | None = None) -> int:
    """Ask the running loop or batch ``run_id`` (recorded under ``runs_dir``) to stop, as a
    termination signal does: it writes its ending and can be resumed. Returns the pid
    signalled. With ``wait_s``, returns once it has ended, or raises ``JlgError`` 75 when
    it is still going after that many seconds. A run not running, or not started by this
    user, is ``JlgError`` 64."""
    from jlgcli.errors import ExitCode, JlgError
    from jlgcli.runner.stop import stop_run, stop_started, wait_ended

    root = Path(runs_dir)
    folder = root / run_id
    if run_id.startswith("batch-"):
        from jlgcli.batch.record import batch_dir, list_batches

        if run_id not in list_batches(root):
            raise JlgError(ExitCode.USAGE, f"no batch {run_id!r} in {root}",
                           hint="see the batches with: jlgcli runs")  # fmt: skip
        folder = batch_dir(root, run_id)
        pid = stop_started(root, run_id, folder, kind="batch")
    else:
        pid = stop_run(root, run_id)
    if wait_s is not None and not wait_ended(folder, wait_s):
        raise JlgError(ExitCode.TIMEOUT, f"{run_id} was asked to stop but still runs after "
                       f"{wait_s:g} s", hint=f"its process is {pid}; see it with: jlgcli watch "
                       f"{run_id}")  # fmt: skip
    return pid


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


def answer(run: str, text: str, *, cwd: str | Path = ".", **options: Any) -> RunSummary:
    """Answer the question a parked run asked, and resume it with the answer (issue 51).

    ``run``: a run id, ``latest`` or a batch id (its one parked task). The run goes on as
    ``loop --resume`` does — your options at its start applied again, ``options`` (the
    flags' long names) winning — with the answer in its next prompt, in the session that
    asked where the backend has one. A batch's task resumes in its worktree and the batch
    commits and merges it as it would have. Raises ``JlgError`` (64) for an empty answer,
    an unknown run, or a run that is not parked on a question.
    """
    from jlgcli.batch.lookup import locate
    from jlgcli.errors import JlgError, usage_error
    from jlgcli.runner.options import runs_root_of

    if not text.strip():
        raise usage_error("the answer is empty", hint='jlgcli answer RUN "your answer"')
    values = _options(None, {**options, "cwd": str(Path(cwd).resolve())})
    found = locate(run, runs_root_of(values))
    if found is None:  # a single loop's run
        from jlgcli import records

        return execute("loop", records.replace(values, resume=run, answer=text))
    from jlgcli.batch.answer import answer_task

    code, summary = answer_task(found, text, values)
    if summary is None:
        raise JlgError(code, f"task {found.task} of {found.batch_id} printed no summary",
                       hint=f"see its log: jlgcli loop --resume {found.batch_id}")  # fmt: skip
    return summary


def answer_in_background(run_id: str, text: str, *, cwd: str | Path, runs_dir: str | Path) -> int:
    """``answer`` for a door that must not wait for the run (the board): the run recorded
    under ``runs_dir`` is checked to be parked on a question, then ``jlgcli answer RUN
    --answer-file -`` starts in ``cwd`` as a process of its own, the answer on its stdin
    (never on a command line), its output in the run's ``answer.log``; returns its pid.
    An empty answer, or a run not parked, is ``JlgError`` 64 before anything starts."""
    from jlgcli.artifacts.ids import is_safe_run_id
    from jlgcli.errors import ExitCode, JlgError, usage_error
    from jlgcli.process.detached import start_self
    from jlgcli.runner.listing import read_run

    if not text.strip():
        raise usage_error("the answer is empty", hint="write what the agent should know")
    root = Path(runs_dir)
    if not is_safe_run_id(run_id) or read_run(root / run_id).stop_cause != "question":
        hint = "only a run that asked a question can be answered (see jlgcli runs)"
        raise JlgError(ExitCode.USAGE, f"run {run_id} is not parked on a question", hint=hint)
    argv = ["answer", run_id, "--answer-file", "-", "--cwd", str(Path(cwd).resolve()), "-q"]
    return start_self(argv, cwd=Path(cwd), log=root / run_id / "answer.log",
                      stdin=text.encode("utf-8"))  # fmt: skip


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


def find_run_or_batch(
    name: str | None = "latest", cwd: str | Path = ".", *, runs_dir: str | None = None
) -> Target:
    """The run or batch ``name`` (``latest``, an id or a unique prefix of one) of the project
    holding ``cwd``; ``JlgError`` 64 when there is none, or the prefix is ambiguous."""
    from jlgcli.batch.follow import find_run_or_batch as find

    return find(name, Path(cwd).resolve(), runs_dir=runs_dir)


def follow_events(
    target: Target | str | None = "latest",
    *,
    cwd: str | Path = ".",
    stop: threading.Event | None = None,
) -> Iterator[dict[str, Any]]:
    """The events of a run or batch (a ``Target`` or a name for ``find_run_or_batch``): those
    written so far, then each new one as it is written, until its end event (``run-ended``,
    ``batch-ended``), its process gone, or ``stop`` set. Each is a validated JSON object."""
    from jlgcli.batch.follow import Target as Found
    from jlgcli.batch.follow import follow_events as follow

    found = target if isinstance(target, Found) else find_run_or_batch(target, cwd)
    return follow(found, stop=stop)


def watch(
    name: str | None = "latest",
    *,
    cwd: str | Path = ".",
    runs_dir: str | None = None,
    json_mode: bool = False,
    stop: threading.Event | None = None,
) -> int:
    """``jlgcli watch``: show a run or batch as its own terminal does, to its end (0);
    Ctrl-C detaches (130) and stops nothing."""
    from jlgcli.batch.watch import watch as follow_and_show

    return follow_and_show(name, cwd=Path(cwd).resolve(), runs_dir=runs_dir,
                           json_mode=json_mode, stop=stop)  # fmt: skip


def transcript_lines(
    run: str,
    *,
    cwd: str | Path,
    iteration: int | None = None,
    follow: bool = False,
    runs_dir: str | Path | None = None,
) -> Iterator[str]:
    """A recorded run's transcript as a person reads it, one line at a time (``runs log``).

    ``run``: a run id, a unique prefix of one, or ``"latest"``; ``cwd``: a folder of the
    project. The assistant's text as text, each tool call on one line, a header per
    iteration, no terminal control sequences, secrets masked. ``iteration``: only that
    one; ``follow``: go on while the run is running, until it ends. Raises ``JlgError``
    (64) for an unknown run, one that kept no transcript, or an iteration it does not have.
    """
    from jlgcli.runner.run_log import transcript_entries

    entries = transcript_entries(
        run, cwd=Path(cwd), iteration=iteration, follow=follow, runs_dir=runs_dir
    )  # each line's iteration: ``jlgcli.runner.run_log.transcript_entries``
    return (line for _, line in entries)
