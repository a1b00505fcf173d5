"""Crash reports for unexpected exceptions (exit 70): the traceback, never the environment.

The report is redacted (argv such as ``--backend-arg=--api-key=…`` and exception
messages), and every crash gets its own file: the name carries the time, the pid
and a random suffix, and the file is created with ``O_EXCL`` so nothing is
overwritten (issue 15).
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import time
import traceback
from pathlib import Path

from jlgcli._version import __version__


def crash_dir() -> Path:
    """Where crash logs go: the user log dir, or the temp dir when that is not writable."""
    try:
        import platformdirs

        return Path(platformdirs.user_log_dir("jlgcli", appauthor=False))
    except Exception:  # pragma: no cover - platformdirs failing is itself unexpected
        return Path(tempfile.gettempdir())


def write_crash_report(exc: BaseException) -> Path:
    """Write the traceback with versions to a new file and return its path."""
    lines = [
        f"jlgcli {__version__} on Python {platform.python_version()} ({platform.platform()})",
        f"argv: {sys.argv!r}",
        "",
        *traceback.format_exception(type(exc), exc, exc.__traceback__),
    ]
    text = _redact("\n".join(line.rstrip("\n") for line in lines) + "\n")
    name = crash_log_name()
    for directory in (crash_dir(), Path(tempfile.gettempdir())):
        try:
            directory.mkdir(parents=True, exist_ok=True)
            path = directory / name
            _write_new(path, text.encode("utf-8", "backslashreplace"))
            return path
        except OSError:
            continue
    return Path(name)  # pragma: no cover - nowhere writable; the message still names it


def crash_log_name() -> str:
    """``crash-<UTC time>-<pid>-<random>.log``: two crashes never share a name."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return f"crash-{stamp}-{os.getpid()}-{os.urandom(4).hex()}.log"


def _write_new(path: Path, data: bytes) -> None:
    """Create ``path`` (failing if it exists: O_EXCL), owner-only, and write ``data``."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def _redact(text: str) -> str:
    from jlgcli.artifacts.redact import Redactor  # never raises

    return Redactor().redact(text)
