"""The suite on every OS: parameters that need a POSIX name, and a Windows proxy for Linux.

``pytest.mark.parametrize`` arguments are evaluated when the test module is
imported, before any ``skipif`` can apply: a bare ``signal.SIGHUP`` there stops
the whole suite from collecting on Windows ("Interrupted: 3 errors during
collection"; issue 35). :func:`signal_param` builds the parameter from a
signal's name and skips it, with the reason, where that signal is missing.

``JLGCLI_SIMULATE_WINDOWS_NAMES=1`` makes this machine lack what Windows lacks
(:func:`simulate_windows_names`, called by ``tests/conftest.py`` before any
test module is imported): the POSIX-only signals and ``os`` functions are
deleted and the POSIX-only modules cannot be imported, so an import-time POSIX
assumption fails here, in ``.ci/run``, rather than first on a Windows runner.
``sys.platform`` stays ``linux``: jlgcli still takes its POSIX branches at run
time (their Windows twins are tested with injected flags), so the proxy
restores the names once collection is over (:func:`restore_names`) and the
tests then run as collected, the POSIX-only parameters skipped as on Windows.
"""

from __future__ import annotations

import enum
import importlib
import os
import signal
import sys
from typing import Any

import pytest

SIMULATE_VARIABLE = "JLGCLI_SIMULATE_WINDOWS_NAMES"

# What CPython's ``signal`` has on Windows (Modules/signalmodule.c; typeshed's signal.pyi).
WINDOWS_SIGNALS = ("SIGABRT", "SIGFPE", "SIGILL", "SIGINT", "SIGSEGV", "SIGTERM")
WINDOWS_SIGNAL_FUNCTIONS = frozenset(
    {"default_int_handler", "getsignal", "raise_signal", "set_wakeup_fd", "signal",
     "strsignal", "valid_signals", "Handlers", "Signals", "SIG_DFL", "SIG_IGN", "NSIG",
     "SIGBREAK", "CTRL_C_EVENT", "CTRL_BREAK_EVENT"}
)  # fmt: skip
# ``os`` names POSIX has and Windows has not (Python 3.10's Windows build; typeshed's
# ``sys.platform != "win32"`` blocks): process groups and sessions, fork, users, ttys.
POSIX_ONLY_OS = (
    "fork", "forkpty", "killpg", "getpgid", "getpgrp", "setpgid", "setpgrp", "setsid",
    "getsid", "tcgetpgrp", "tcsetpgrp", "getuid", "geteuid", "getgid", "getegid",
    "getgroups", "setuid", "setgid", "seteuid", "setegid", "sysconf", "sysconf_names",
    "set_blocking", "get_blocking", "openpty", "ttyname", "mkfifo", "getloadavg",
    "sched_getaffinity", "wait3", "wait4", "waitid", "pipe2", "nice", "uname", "chown",
    "lchown", "fchown", "WNOHANG", "WIFEXITED", "WEXITSTATUS", "WIFSIGNALED", "WTERMSIG",
)  # fmt: skip
# Modules Windows has not (and the POSIX-only dependencies pyproject installs nowhere else).
POSIX_ONLY_MODULES = (
    "fcntl", "termios", "tty", "pty", "resource", "grp", "pwd", "syslog",
    "pexpect", "ptyprocess",
)  # fmt: skip

# Dependencies that pick their implementation by ``sys.platform`` when imported (psutil's
# _pslinux imports ``resource``, invoke's terminals ``fcntl``): on Windows each imports its
# Windows twin, so the proxy imports them first, as this OS's code, and removes names after.
PLATFORM_PICKING_DEPENDENCIES = ("psutil", "invoke")

_saved: dict[str, Any] = {}


def simulating() -> bool:
    """Whether the suite runs as the Windows proxy (``JLGCLI_SIMULATE_WINDOWS_NAMES=1``)."""
    return os.environ.get(SIMULATE_VARIABLE, "") == "1"


def simulate_windows_names() -> list[str]:
    """Remove from this process what Windows lacks; what was removed is returned.

    ``signal.Signals`` becomes an enum of the Windows members only, and the
    remaining ``signal.SIG*`` constants its members, so ``signal.Signals.SIGHUP``
    fails as it does there. A module set to ``None`` in ``sys.modules`` raises
    ``ImportError`` on import (the name already bound elsewhere stays).
    """
    for dependency in PLATFORM_PICKING_DEPENDENCIES:
        importlib.import_module(dependency)
    removed: list[str] = []
    for name in dir(signal):
        if name.startswith("_") or name in WINDOWS_SIGNAL_FUNCTIONS or name in WINDOWS_SIGNALS:
            continue
        _saved[f"signal.{name}"] = getattr(signal, name)
        delattr(signal, name)
        removed.append(f"signal.{name}")
    windows = enum.IntEnum(  # type: ignore[misc]  # a functional enum with computed members
        "Signals", {name: int(getattr(signal, name)) for name in WINDOWS_SIGNALS}
    )
    _saved["signal.Signals"] = signal.Signals
    signal.Signals = windows  # type: ignore[misc]
    for name in WINDOWS_SIGNALS:
        _saved.setdefault(f"signal.{name}", getattr(signal, name))
        setattr(signal, name, windows[name])
    for name in POSIX_ONLY_OS:
        if hasattr(os, name):
            _saved[f"os.{name}"] = getattr(os, name)
            delattr(os, name)
            removed.append(f"os.{name}")
    for module in POSIX_ONLY_MODULES:
        _saved[f"module.{module}"] = sys.modules.get(module)
        sys.modules[module] = None  # type: ignore[assignment]
        removed.append(module)
    return removed


def restore_names() -> None:
    """Put back what :func:`simulate_windows_names` removed (no-op when nothing was)."""
    for key, value in _saved.items():
        kind, _, name = key.partition(".")
        if kind == "module":
            if value is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = value
        else:
            setattr(signal if kind == "signal" else os, name, value)
    _saved.clear()


def signal_param(*values: object, id: str | None = None) -> Any:
    """``pytest.param`` whose string values naming a signal (``"SIGHUP"``) become that signal.

    Where one of the named signals does not exist (SIGHUP, SIGKILL, SIGQUIT on
    Windows), the parameter keeps the name as its value and is skipped with the
    reason; ``id`` defaults to the values as pytest shows them.
    """
    named = [v for v in values if isinstance(v, str) and v.startswith("SIG") and v.isupper()]
    missing = [name for name in named if not hasattr(signal, name)]
    id = id or "-".join(str(v) for v in values)  # the same on every OS
    if missing:
        reason = f"signal.{', signal.'.join(missing)}: not on this OS (POSIX only)"
        return pytest.param(*values, marks=pytest.mark.skip(reason=reason), id=id)
    return pytest.param(*(getattr(signal, v) if v in named else v for v in values), id=id)


def chmod_stops_us() -> bool:
    """Whether taking a file's or a directory's permissions away stops this process.

    Not as root, and not on Windows (no POSIX modes, no ``os.geteuid``): a
    ``skipif`` argument, so it must not touch ``os.geteuid`` where there is none.
    """
    return hasattr(os, "geteuid") and os.geteuid() != 0
