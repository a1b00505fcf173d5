"""Crash reports for unexpected exceptions (exit 70): the traceback, never the environment."""

from __future__ import annotations

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
    text = "\n".join(line.rstrip("\n") for line in lines) + "\n"
    name = f"crash-{time.strftime('%Y%m%dT%H%M%S')}-{id(exc) & 0xFFFF:04x}.log"
    for directory in (crash_dir(), Path(tempfile.gettempdir())):
        try:
            directory.mkdir(parents=True, exist_ok=True)
            path = directory / name
            path.write_text(text, encoding="utf-8")
            return path
        except OSError:
            continue
    return Path(name)  # pragma: no cover - nowhere writable; the message still names it
