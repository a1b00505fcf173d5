"""The Python half of ``action.yml``: Action inputs (``JLG_*`` env) → ``jlgcli <command>``.

The composite action passes every input through ``env:`` (never ``${{ }}``
inside a script) and runs ``python -m jlgcli.integrations.action``. This
module turns the inputs into the command line a terminal user would type and
runs it in-process. ``run``/``loop`` publish their own outputs and job summary
(``GITHUB_ACTIONS=true``); this adds ``exit-code`` for every command (also
when the inputs are wrong) and a ``status`` for ``dev``. With
``fail-on-error: false`` the step succeeds whatever jlgcli's exit code, which
stays readable in the ``exit-code`` output.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence

from jlgcli.errors import JlgError
from jlgcli.integrations.argv import command_argv, parse_bool, split_args
from jlgcli.integrations.github import write_outputs

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
}


def action_argv(env: Mapping[str, str], *, is_windows: bool = os.name == "nt") -> list[str]:
    """The jlgcli argv for these Action inputs; raises ``JlgError`` (64) for bad inputs."""

    def get(name: str) -> str:
        return env.get(INPUTS[name], "").strip()

    return command_argv(
        get("command") or "loop",
        get("prompt-file"),
        backend=get("backend"),
        max_iterations=get("max-iterations"),
        timeout=get("timeout"),
        completion=get("completion"),
        artifacts=parse_bool(get("artifacts"), name="the artifacts input"),
        extra=split_args(get("args"), is_windows=is_windows),
    )


def main(
    env: Mapping[str, str] = os.environ,
    *,
    run: Callable[[Sequence[str]], int] | None = None,
) -> int:
    """Run the Action's command; returns the step's exit code."""
    try:
        fail_on_error = parse_bool(env.get(INPUTS["fail-on-error"]), name="fail-on-error")
        argv = action_argv(env)
    except JlgError as exc:
        sys.stderr.write(f"error: {exc.message}\n" + (f"hint: {exc.hint}\n" if exc.hint else ""))
        write_outputs({"status": "error", "exit-code": str(exc.code)}, env=env)
        return exc.code
    if run is None:
        from jlgcli.cli import main as cli_main

        run = cli_main
    sys.stdout.write(f"jlgcli {' '.join(argv)}\n")
    sys.stdout.flush()
    code = run(argv)
    outputs = {"exit-code": str(code)}
    if argv[0] == "dev":  # no RunSummary: the exit code is the status
        outputs["status"] = "done" if code == 0 else "error"
    write_outputs(outputs, env=env)
    if code and fail_on_error is False:
        sys.stdout.write(f"::warning title=jlgcli::jlgcli exited {code}; "
                         "fail-on-error is false, so the step passes\n")  # fmt: skip
        return 0
    return code


if __name__ == "__main__":  # pragma: no cover - exercised through action.yml's step
    sys.exit(main())
