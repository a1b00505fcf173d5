"""The Python half of ``action.yml``: Action inputs (``JLG_*`` env) → ``jlgcli.api``.

The composite action passes every input through ``env:`` (never ``${{ }}``
inside a script) and runs ``python -m jlgcli.integrations.action``. ``run`` and
``loop`` go through ``jlgcli.api`` like every door; this door publishes the
summary as step outputs and a job summary, and adds ``exit-code`` for every
command (also when the inputs are wrong) and a ``status`` for ``dev``. With
``fail-on-error: false`` the step succeeds whatever jlgcli's exit code, which
stays readable in the ``exit-code`` output.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from jlgcli.errors import ExitCode, JlgError
from jlgcli.integrations.argv import dev_argv, door_options, parse_bool, split_args
from jlgcli.integrations.github import (
    workflow_commands_stopped,
    write_error_summary,
    write_outputs,
)

if TYPE_CHECKING:
    from jlgcli.runner.options import RunOptions
    from jlgcli.runner.summary import RunSummary

INPUTS = {
    "command": "JLG_COMMAND",
    "prompt-file": "JLG_PROMPT_FILE",
    "backend": "JLG_BACKEND",
    "max-iterations": "JLG_MAX_ITERATIONS",
    "timeout": "JLG_TIMEOUT",
    "completion": "JLG_COMPLETION",
    "artifacts": "JLG_ARTIFACTS",
    "args": "JLG_ARGS",
    "fail-on-error": "JLG_FAIL_ON_ERROR",
    "branch": "JLG_BRANCH",  # a matrix task (issue 37): publish its branch when done
    "publish": "JLG_PUBLISH",
}
COMMANDS = ("run", "loop", "dev")


def _input(env: Mapping[str, str], name: str) -> str:
    return env.get(INPUTS[name], "").strip()


def action_command(env: Mapping[str, str]) -> str:
    """The Action's command input (``loop`` by default); exit 64 for an unknown one."""
    command = _input(env, "command") or "loop"
    if command not in COMMANDS:
        raise JlgError(ExitCode.USAGE, f"unknown command {command!r}",
                       hint="use one of: " + ", ".join(COMMANDS))  # fmt: skip
    return command


def action_options(env: Mapping[str, str], *, is_windows: bool = os.name == "nt") -> RunOptions:
    """The run/loop options of these Action inputs; raises ``JlgError`` (64) for bad inputs."""
    return door_options(
        action_command(env),
        _input(env, "prompt-file"),
        backend=_input(env, "backend"),
        max_iterations=_input(env, "max-iterations"),
        timeout=_input(env, "timeout"),
        completion=_input(env, "completion"),
        artifacts=parse_bool(_input(env, "artifacts"), name="the artifacts input"),
        extra=split_args(_input(env, "args"), is_windows=is_windows),
    )


def run_core(command: str, options: RunOptions, env: Mapping[str, str]) -> RunSummary:
    """Run through ``jlgcli.api``, then print the human summary and publish it."""
    from jlgcli.api import execute
    from jlgcli.artifacts.redact import Redactor
    from jlgcli.integrations.github import publish
    from jlgcli.output import show
    from jlgcli.runner.report import human_summary

    summary = execute(command, options)  # type: ignore[arg-type]
    show(Redactor().redact(human_summary(summary)))  # as `jlgcli loop` shows it (issue 32)
    publish(summary, env=env, force=True)
    return summary


def main(
    env: Mapping[str, str] = os.environ,
    *,
    run_dev: Callable[[Sequence[str]], int] | None = None,
) -> int:
    """Run the Action's command; returns the step's exit code.

    Everything the model or the agent may write is printed while workflow
    commands are stopped (issue 33): a ``::error::`` or ``::add-mask::`` line of
    theirs is only text in the log. The Action's own ``::warning`` comes after.
    """
    try:
        with workflow_commands_stopped():
            fail_on_error = parse_bool(env.get(INPUTS["fail-on-error"]), name="fail-on-error")
            command = action_command(env)
            if command == "dev":
                code = _dev(env, run_dev)
            else:
                code = run_core(command, action_options(env), env).exitCode
    except JlgError as exc:
        from jlgcli.boundary import report

        with workflow_commands_stopped():
            report(exc, want_json=False)
        write_outputs({"status": "error", "exit-code": str(exc.code)}, env=env)
        write_error_summary("jlgcli: the run did not start", exc.message, exc.hint,
                            env=env)  # fmt: skip
        return exc.code
    if command == "dev":  # run/loop outputs (exit-code included) come with their summary
        write_outputs({"exit-code": str(code)}, env=env)
    if code and fail_on_error is False:
        sys.stdout.write(f"::warning title=jlgcli::jlgcli exited {code}; "
                         "fail-on-error is false, so the step passes\n")  # fmt: skip
        return 0
    return code


def _dev(env: Mapping[str, str], run_dev: Callable[[Sequence[str]], int] | None) -> int:
    argv = dev_argv(_input(env, "backend"), split_args(_input(env, "args")))
    if run_dev is None:  # jlgcli.api.dev, through the dev loop's own boundary (0/1/2/3)
        from jlgcli.commands.dev_program import run_door

        run_dev = run_door
    sys.stdout.write(f"jlgcli {' '.join(argv)}\n")
    sys.stdout.flush()
    code = run_dev(argv)
    write_outputs({"status": "done" if code == 0 else "error"}, env=env)
    return code


if __name__ == "__main__":  # pragma: no cover - exercised through action.yml's step
    sys.exit(main())
