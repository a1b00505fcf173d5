"""One mapping from a door's named options to ``jlgcli.api``'s ``RunOptions``.

The Invoke tasks and the GitHub Action both take named options (``backend``,
``max_iterations``, ``timeout`` …) plus a free-form ``args`` string. The
string is parsed by the real command-line parser of ``run``/``loop`` (same
flags, same validation, exit 64 on a bad one), and the named options are laid
over it: an explicit option always beats ``args`` and config. ``dev`` keeps
its own command line (``dev_argv``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from jlgcli.errors import ExitCode, JlgError

if TYPE_CHECKING:
    from jlgcli.runner.options import RunOptions

COMMANDS = ("run", "loop", "dev")


def split_args(text: str, *, is_windows: bool = os.name == "nt") -> list[str]:
    """Split a free-form ``args`` string into words, the way this OS's shell would.

    POSIX ``shlex`` rules on macOS/Linux; the Windows C runtime rules on
    Windows, where ``shlex`` would eat the backslashes of ``C:\\path``.
    """
    from jlgcli.cmdline import split_command

    try:
        return split_command(text, is_windows=is_windows)
    except ValueError as exc:  # shlex: "No closing quotation"
        raise JlgError(ExitCode.USAGE, f"cannot split the extra arguments {text!r}: {exc}",
                       hint="check the quotes in args") from None  # fmt: skip


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def door_options(
    command: str,
    prompt: str | None = None,
    *,
    backend: str | None = None,
    max_iterations: int | str | None = None,
    timeout: str | None = None,
    completion: str | None = None,
    artifacts: bool | None = None,
    extra: Sequence[str] = (),
) -> RunOptions:
    """The ``RunOptions`` of ``run``/``loop`` for a door's named options and extra words.

    Empty strings mean "not given" (Action inputs default to ``""``). Raises
    ``JlgError`` (64) for an unknown command, a bad extra flag, or a loop-only
    option on ``run``.
    """
    from jlgcli.runner.options import RunOptions

    if command not in ("run", "loop"):
        raise JlgError(ExitCode.USAGE, f"unknown command {command!r}",
                       hint="use one of: " + ", ".join(COMMANDS))  # fmt: skip
    loop_only = {"max-iterations": max_iterations, "completion": completion}
    for flag, value in loop_only.items():
        if command == "run" and not _blank(value):
            raise JlgError(ExitCode.USAGE, f"--{flag} applies to loop, not run",
                           hint="use the loop command, or drop that option")  # fmt: skip
    base = RunOptions.from_namespace(parse_extra(command, extra)) if extra else RunOptions()

    def given(value: object) -> object:
        return None if _blank(value) else (value.strip() if isinstance(value, str) else value)

    explicit = RunOptions(
        prompt=given(prompt),  # type: ignore[arg-type]
        backend=given(backend),  # type: ignore[arg-type]
        max_iterations=given(max_iterations),  # type: ignore[arg-type]
        timeout=given(timeout),  # type: ignore[arg-type]
        completion=given(completion),  # type: ignore[arg-type]
        artifacts=artifacts,
    )
    options = base.under(explicit)
    if options.prompt is None and options.resume is None:
        raise JlgError(ExitCode.USAGE, f"jlgcli {command} needs a prompt file",
                       hint="pass the task/prompt file (for example task.md)")  # fmt: skip
    return options


def parse_extra(command: str, words: Sequence[str]) -> Any:
    """Parse extra flags with the real parser of ``command`` (exit 64 on a bad flag)."""
    from jlgcli.commands.parser import build_parser

    placeholder = [] if command == "loop" else ["-"]
    args = build_parser().parse_args([command, *placeholder, *words])
    if command == "run":
        args.prompt = None
    return args


def dev_argv(
    backend: str | None = None, extra: Sequence[str] = (), json: bool = False
) -> list[str]:
    """The dev loop's command line: its sub-command (``run`` by default) and flags."""
    words = list(extra)
    if not words or words[0].startswith("-"):
        words.insert(0, "run")
    argv = ["dev", *words]
    if not _blank(backend) and words[0] != "init":  # the agent CLI is --llm (seed 003 FR-3.3)
        argv += ["--llm", str(backend).strip()]
    return argv + (["--json"] if json else [])


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
