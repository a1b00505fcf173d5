"""One mapping from a door's named options to jlgcli's command line.

The Invoke tasks and the GitHub Action both take named options (``backend``,
``max_iterations``, ``timeout`` …) and run the same command a terminal user
would type, in-process through ``jlgcli.cli.main``: same parser, same
validation, same exit codes. This module builds that argv.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from jlgcli.errors import ExitCode, JlgError

COMMANDS = ("run", "loop", "dev")


def split_args(text: str, *, is_windows: bool = os.name == "nt") -> list[str]:
    """Split a free-form ``args`` string into words, the way this OS's shell would.

    POSIX ``shlex`` rules on macOS/Linux; the Windows C runtime rules on
    Windows, where ``shlex`` would eat the backslashes of ``C:\\path``.
    """
    from jlgcli.dev.cmdline import split_command

    try:
        return split_command(text, is_windows=is_windows)
    except ValueError as exc:  # shlex: "No closing quotation"
        raise JlgError(ExitCode.USAGE, f"cannot split the extra arguments {text!r}: {exc}",
                       hint="check the quotes in args") from None  # fmt: skip


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def command_argv(
    command: str,
    prompt: str | None = None,
    *,
    backend: str | None = None,
    max_iterations: int | str | None = None,
    timeout: str | None = None,
    completion: str | None = None,
    artifacts: bool | None = None,
    json: bool = False,
    extra: Sequence[str] = (),
) -> list[str]:
    """The argv (without the program name) of ``jlgcli <command>`` with these options.

    Empty strings mean "not given" (Action inputs default to ``""``).
    ``dev`` takes its sub-command and flags from ``extra`` (``run`` when
    ``extra`` starts with an option or is empty). Raises ``JlgError`` (64) for
    an unknown command, a missing prompt, or a loop-only option on ``run``.
    """
    if command not in COMMANDS:
        raise JlgError(ExitCode.USAGE, f"unknown command {command!r}",
                       hint="use one of: " + ", ".join(COMMANDS))  # fmt: skip
    if command == "dev":
        words = list(extra)
        if not words or words[0].startswith("-"):
            words.insert(0, "run")
        argv = ["dev", *words]
        if not _blank(backend):  # the dev loop names its agent CLI --llm (seed 003 FR-3.3)
            argv += ["--llm", str(backend).strip()]
        return argv + (["--json"] if json else [])
    if _blank(prompt):
        raise JlgError(ExitCode.USAGE, f"jlgcli {command} needs a prompt file",
                       hint="pass the task/prompt file (for example task.md)")  # fmt: skip
    argv = [command, str(prompt).strip()]
    loop_only = {"max-iterations": max_iterations, "completion": completion}
    for flag, value in (("backend", backend), ("timeout", timeout), *loop_only.items()):
        if _blank(value):
            continue
        if command == "run" and flag in loop_only:
            raise JlgError(ExitCode.USAGE, f"--{flag} applies to loop, not run",
                           hint="use the loop command, or drop that option")  # fmt: skip
        argv += [f"--{flag}", str(value).strip()]
    if artifacts is not None:
        argv.append("--artifacts" if artifacts else "--no-artifacts")
    if json:
        argv.append("--json")
    return argv + list(extra)


def parse_bool(value: str | None, *, name: str) -> bool | None:
    """``true``/``false`` (any case, also yes/no/1/0) → bool; empty → None; else a usage error."""
    text = (value or "").strip().lower()
    if not text:
        return None
    if text in ("true", "yes", "1", "on"):
        return True
    if text in ("false", "no", "0", "off"):
        return False
    raise JlgError(ExitCode.USAGE, f"{name} must be true or false, not {value!r}")
