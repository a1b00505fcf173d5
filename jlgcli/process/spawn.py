"""Everything spawn-related that is the same for both transports.

Executable lookup (``shutil.which``, so PATHEXT on Windows), the child's
environment, the stdin bytes, and the Popen flags that put every child in its
own process group/session so the whole tree can be signalled (STYLE.md #3, #4).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

IS_WINDOWS = sys.platform == "win32"


class ExecutableNotFound(Exception):  # noqa: N818 - the public name in the brief
    """The program to run is not on PATH (or the given path does not exist)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"executable not found: {name}")
        self.name = name


class CannotStart(Exception):  # noqa: N818 - reads as the event, like ExecutableNotFound
    """The program was found but the system could not start it (a script's missing
    interpreter, no execute permission, not a program)."""

    def __init__(self, program: str, error: OSError) -> None:
        super().__init__(f"{program} cannot start: {error.strerror or error}")
        self.program = program


def resolve_executable(name: str, *, path: str | None = None) -> str | None:
    """Absolute path of ``name`` looked up on ``path`` (default: $PATH), or None.

    ``shutil.which`` honours PATHEXT on Windows, so ``claude`` finds
    ``claude.cmd``; a name with a directory part is checked as given.
    """
    found = shutil.which(name, path=path)
    # absolute() and not resolve(): a venv's python symlink must keep its name.
    return str(Path(found).absolute()) if found else None


def resolve_argv(argv: Iterable[str], *, env: Mapping[str, str] | None = None) -> list[str]:
    """``argv`` with its program replaced by an absolute path; raises ExecutableNotFound.

    The lookup uses the child's PATH when ``env`` gives one, as a shell would.
    """
    args = list(argv)
    if not args:
        raise ExecutableNotFound("")
    search = env.get("PATH") if env is not None else None
    program = resolve_executable(args[0], path=search)
    if program is None:
        raise ExecutableNotFound(args[0])
    args[0] = program
    return args


def child_env(
    overrides: Mapping[str, str] | None = None, remove: Iterable[str] = ()
) -> dict[str, str]:
    """``os.environ`` + ``overrides`` − ``remove`` (case-insensitive names on Windows)."""
    env = dict(os.environ)
    env.update(overrides or {})
    drop = {_env_key(name) for name in remove}
    return {k: v for k, v in env.items() if _env_key(k) not in drop}


def _env_key(name: str, *, is_windows: bool = IS_WINDOWS) -> str:
    return name.upper() if is_windows else name


def stdin_bytes(stdin: str | bytes | None) -> bytes | None:
    """What to write to the child's stdin (UTF-8), or None for the null device."""
    if stdin is None:
        return None
    return stdin.encode("utf-8") if isinstance(stdin, str) else stdin


CREATE_SUSPENDED = 0x00000004  # Windows: the child runs nothing until resumed


def group_popen_kwargs(*, is_windows: bool = IS_WINDOWS, suspended: bool = False) -> dict[str, Any]:
    """Popen keywords giving the child its own process group (Windows) or session (POSIX).

    ``suspended`` (Windows): also ``CREATE_SUSPENDED``, so the child can be put in
    its Job Object before it runs (``jlgcli.process.job``; issue 33).
    """
    if is_windows:
        import subprocess  # Windows only: listing backends imports no subprocess

        flags = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0x200)
        return {"creationflags": flags | (CREATE_SUSPENDED if suspended else 0)}
    return {"start_new_session": True}
