"""Windows: run what an npm ``.cmd`` shim runs, without cmd.exe, when cmd.exe cannot be trusted.

npm installs a CLI as a ``.cmd`` shim (npm/cmd-shim ``lib/index.js``), and cmd.exe
re-parses the shim's command line, so ``process.windows`` lets only plain
arguments reach one. Some arguments that are safe for a program are not plain:
claude's ``--json-schema`` takes the schema inline (no version takes a file:
anthropics/claude-code#56806 was closed unimplemented), ``--model sonnet[1m]``,
copilot's ``--disable-mcp-server "My server (local)"``. For those, the shim is
read and its target started directly, a real program whose command line
``list2cmdline`` quotes exactly as ``CommandLineToArgvW`` reads it back.

cmd-shim writes two forms (CRLF lines after a fixed head that sets ``dp0``,
the shim's folder with a trailing backslash)::

    IF EXIST "%dp0%\\node.exe" (
      SET "_prog=%dp0%\\node.exe"
    ) ELSE (
      SET "_prog=node"
      SET PATHEXT=%PATHEXT:;.JS;=;%
    )
    endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%" <args> "%dp0%\\<target>" %*

for a script with a ``#!`` line (``node cli.js``), and ``"%dp0%\\<target>"   %*`` for
a program without one (claude's native ``bin/claude.exe``). A shim of any other
shape (pnpm's, yarn's, a hand-written one, one that sets variables) is not
unwrapped: the argument rule applies to it as before. The interpreter of the
first form is looked up as cmd.exe would, but never in the current folder.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path, PureWindowsPath

_HEAD = frozenset(
    line.lower()
    for line in (
        "@ECHO off",
        "GOTO start",
        ":find_dp0",
        "SET dp0=%~dp0",
        "EXIT /b",
        ":start",
        "SETLOCAL",
        "CALL :find_dp0",
        ") ELSE (",
        ")",
        "SET PATHEXT=%PATHEXT:;.JS;=;%",
    )
)
_IF_EXIST = re.compile(r'IF EXIST "(?P<long>[^"]+)" \(', re.IGNORECASE)
_SET_PROG = re.compile(r'SET "_prog=(?P<prog>[^"]+)"', re.IGNORECASE)
_RUN_PROG = re.compile(
    r'endLocal & goto #_undefined_# 2>NUL \|\| title %COMSPEC% & "%_prog%" '
    r'(?P<args>[^"%]*?) *"(?P<target>[^"]+)" %\*',
    re.IGNORECASE,
)
_RUN_DIRECT = re.compile(r'"(?P<target>[^"]+)" +%\*', re.IGNORECASE)
_PLAIN_WORD = re.compile(r"[\w\-.=:/\\]+")

Exists = Callable[[str], bool]
Which = Callable[[str], "str | None"]


def shim_command(text: str, shim: str, *, exists: Exists, which: Which) -> list[str] | None:
    """The argv prefix the npm shim ``shim`` (its ``text``) runs, or None if not a cmd-shim.

    ``exists`` says whether a file exists; ``which`` looks a bare program name
    up on PATH (never in the current folder). Paths are Windows paths.
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    folder = str(PureWindowsPath(shim).parent)
    run = lines[-1] if lines else ""
    body = [line for line in lines[:-1] if line.lower() not in _HEAD]
    prog = _RUN_PROG.fullmatch(run)
    if prog is not None:
        interpreter = _interpreter(body, folder, exists=exists, which=which)
        args = prog.group("args").split()
        if interpreter is None or not all(_PLAIN_WORD.fullmatch(a) for a in args):
            return None
        target = _expand(prog.group("target"), folder)
        return [interpreter, *args, target] if exists(target) else None
    direct = _RUN_DIRECT.fullmatch(run)
    if direct is None or body:
        return None
    target = _expand(direct.group("target"), folder)
    is_program = PureWindowsPath(target).suffix.lower() in {".exe", ".com"}
    return [target] if is_program and exists(target) else None


def _interpreter(body: Sequence[str], folder: str, *, exists: Exists, which: Which) -> str | None:
    """``_prog``: the IF EXIST program when it exists, else the ELSE branch's."""
    if len(body) != 3:
        return None
    long_form, if_set, else_set = (
        _IF_EXIST.fullmatch(body[0]),
        _SET_PROG.fullmatch(body[1]),
        _SET_PROG.fullmatch(body[2]),
    )
    if long_form is None or if_set is None or else_set is None:
        return None
    beside = _expand(long_form.group("long"), folder)
    if exists(beside):
        return _expand(if_set.group("prog"), folder)
    fallback = _expand(else_set.group("prog"), folder)
    if "\\" in fallback or "/" in fallback:
        return fallback if exists(fallback) else None
    return which(fallback)


def _expand(path: str, folder: str) -> str:
    r"""``%dp0%\x`` → ``<folder>\x`` (``%dp0%`` ends with a backslash already)."""
    if path.lower().startswith("%dp0%"):
        return str(PureWindowsPath(folder, path[len("%dp0%") :].lstrip("\\/")))
    return path


def direct_argv(argv: Sequence[str], *, path: str | None) -> list[str] | None:
    """``argv`` with its npm shim replaced by the shim's target, or None (not a cmd-shim).

    ``argv[0]`` is the resolved shim; ``path`` is the child's PATH, where a bare
    interpreter name (``node``) is looked up.
    """
    from jlgcli.process.spawn import resolve_executable  # the lookup without the cwd

    try:
        text = Path(argv[0]).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    prefix = shim_command(
        text,
        argv[0],
        exists=lambda name: Path(name).is_file(),
        which=lambda name: resolve_executable(name, path=path),
    )
    return None if prefix is None else [*prefix, *argv[1:]]
