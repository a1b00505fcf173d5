"""Can a CLI found on PATH start at all? (issue 16 item 10)

npm installs codex, copilot and gemini as scripts run by ``node``
(``#!/usr/bin/env node`` on POSIX, a ``.cmd`` shim on Windows). Without
``node`` the CLI is on PATH yet cannot start: ``env: node: No such file or
directory``, exit 127. The probe says that, with a hint to fix it, instead of
"login unknown" and a login hint. Checked without running anything (the
script's first line) and, when a probe command did run, from its exit code
(126/127) and first stderr line.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePath

from jlgcli.lazy_re import lazy_text
from jlgcli.process import resolve_executable
from jlgcli.process.model import ProcessOutcome, StopReason

_NOT_STARTED_CODES = (126, 127)  # POSIX shells and env: cannot execute / not found
_NOT_STARTED = lazy_text(
    r"No such file or directory|bad interpreter|cannot execute"
    r"|is not recognized as an internal or external command",
    re.IGNORECASE,
)
_HEAD_BYTES = 4096


def script_interpreter(executable: str, *, is_windows: bool = os.name == "nt") -> str | None:
    """The program ``executable`` needs to start, or None (a native binary, unreadable).

    POSIX: the ``#!`` line (``#!/usr/bin/env node`` → ``node``, ``#!/bin/sh`` →
    ``/bin/sh``). Windows: an npm ``.cmd``/``.bat`` shim runs ``node``.
    """
    try:
        with open(executable, "rb") as handle:
            head = handle.read(_HEAD_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    if is_windows:
        if PurePath(executable).suffix.lower() in (".cmd", ".bat") and '"_prog=node"' in head:
            return "node"
        return None
    if not head.startswith("#!"):
        return None
    words = head[2:].splitlines()[0].split() if head[2:].strip() else []
    if not words:
        return None
    if PurePath(words[0]).name == "env":
        rest = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
        return rest[0] if rest else None
    return words[0]


def missing_interpreter(
    executable: str, *, path: str | None, is_windows: bool = os.name == "nt"
) -> str | None:
    """The interpreter ``executable`` needs and cannot find, or None when it can start."""
    program = script_interpreter(executable, is_windows=is_windows)
    if program is None:
        return None
    if is_windows and program == "node" and (Path(executable).parent / "node.exe").is_file():
        return None  # the shim prefers a node.exe next to it
    if "/" in program or "\\" in program:
        return None if Path(program).exists() else program
    return None if resolve_executable(program, path=path, is_windows=is_windows) else program


def start_failure(answer: ProcessOutcome) -> str | None:
    """Why a probe command could not start (exit 126/127 + its first stderr line), or None."""
    if answer.stop_reason is StopReason.FAILED_TO_START:  # the spawn itself failed
        return answer.error or "the system could not start it"
    said = next((line.strip() for line in answer.stderr.splitlines() if line.strip()), "")
    if answer.exit_code in _NOT_STARTED_CODES or (
        answer.exit_code not in (0, None) and _NOT_STARTED.search(said) and not answer.stdout
    ):
        return f"exit {answer.exit_code}" + (f": {said[:300]}" if said else "")
    return None


def interpreter_hint(program: str, install_hint: str) -> str:
    """What to do when ``program`` is missing."""
    if PurePath(program).name in ("node", "node.exe"):
        return (
            f"install Node.js (https://nodejs.org) so `node` is on PATH, "
            f"or reinstall: {install_hint}"
        )
    return f"install `{program}` or put it on PATH, or reinstall: {install_hint}"
