"""Everything spawn-related that is the same for both transports.

Executable lookup (``shutil.which``; on Windows a PATH-only search with
PATHEXT that never lands in the current folder), the child's environment, the
stdin bytes, and the Popen flags that put every child in its own process
group/session so the whole tree can be signalled (STYLE.md #3, #4).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterable, Mapping, MutableMapping
from pathlib import Path

TYPE_CHECKING = False

if TYPE_CHECKING:
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


def resolve_executable(
    name: str, *, path: str | None = None, is_windows: bool | None = None
) -> str | None:
    """Absolute path of ``name`` looked up on ``path`` (default: $PATH), or None.

    PATHEXT applies on Windows, so ``claude`` finds ``claude.cmd``; a name with a
    directory part is checked as given. On Windows the current folder is never
    searched (issue 47): ``shutil.which`` puts it first there (CPython 3.10/3.11
    always, 3.12+ unless ``NoDefaultCurrentDirectoryInExePath`` is set), and jlgcli
    runs in a repository it did not write: its ``claude.cmd`` or ``git.exe`` must
    never be what runs. ``is_windows`` defaults to this system's.
    """
    windows = IS_WINDOWS if is_windows is None else is_windows
    found = windows_which(name, path=path) if windows else shutil.which(name, path=path)
    # absolute() and not resolve(): a venv's python symlink must keep its name.
    return str(Path(found).absolute()) if found else None


# CPython's default when PATHEXT is unset (Lib/shutil.py).
DEFAULT_PATHEXT = ".COM;.EXE;.BAT;.CMD;.VBS;.JS;.WS;.MSC"


def windows_which(name: str, *, path: str | None = None, pathext: str | None = None) -> str | None:
    """``shutil.which`` as Windows needs it, without the current folder (issue 47).

    Only absolute PATH entries are searched: an empty or relative entry ("", ".",
    "bin") would name a folder of the repository jlgcli runs in. Each candidate
    is the name itself when it already ends in a PATHEXT extension, else the
    name with each extension in PATHEXT order, as cmd.exe tries them.
    """
    extensions = (pathext or os.environ.get("PATHEXT") or DEFAULT_PATHEXT).split(os.pathsep)
    extensions = [e.lower() for e in extensions if e.strip()]
    if name.lower().endswith(tuple(extensions)):
        candidates = [name]
    else:
        candidates = [name + extension for extension in extensions]
    if "/" in name or "\\" in name:  # C:\tools\x, .\x: checked as given, never searched
        return next((c for c in candidates if Path(c).is_file()), None)
    search = os.environ.get("PATH", os.defpath) if path is None else path
    for folder in search.split(os.pathsep):
        if not folder or not Path(folder).is_absolute():
            continue
        for candidate in candidates:
            if (Path(folder) / candidate).is_file():
                return str(Path(folder) / candidate)
    return None


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
    overrides: Mapping[str, str] | None = None,
    remove: Iterable[str] = (),
    *,
    is_windows: bool | None = None,
) -> dict[str, str]:
    """``os.environ`` + ``overrides`` − ``remove`` (case-insensitive names on Windows).

    On Windows it always carries ``NoDefaultCurrentDirectoryInExePath=1``
    (``no_current_folder_lookup``), whatever the overrides say.
    """
    windows = IS_WINDOWS if is_windows is None else is_windows
    env = dict(os.environ)
    env.update(overrides or {})
    drop = {_env_key(name, is_windows=windows) for name in remove}
    kept = {k: v for k, v in env.items() if _env_key(k, is_windows=windows) not in drop}
    no_current_folder_lookup(kept, is_windows=windows)
    return kept


NO_CURRENT_FOLDER = "NoDefaultCurrentDirectoryInExePath"


def no_current_folder_lookup(environ: MutableMapping[str, str], *, is_windows: bool) -> None:
    """Windows: tell every program that searches for another one to skip the current folder.

    With ``NoDefaultCurrentDirectoryInExePath`` set, ``CreateProcessW`` and cmd.exe
    (npm's ``.cmd`` shims look ``node`` up through it) and CPython 3.12+'s
    ``shutil.which`` (``NeedCurrentDirectoryForExePathW``) no longer search the
    current folder first, which is the repository an agent works in (GitPython's
    CVE-2024-22190 fix). Set in jlgcli's own environment at start (so every child
    inherits it) and in every child's. Off Windows: nothing.
    """
    if is_windows:
        for key in [k for k in environ if k.upper() == NO_CURRENT_FOLDER.upper()]:
            del environ[key]
        environ[NO_CURRENT_FOLDER] = "1"


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
