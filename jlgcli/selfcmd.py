"""How jlgcli re-runs itself in a child process (replay, rebound scripts), frozen or not."""

from __future__ import annotations

import sys

PRINT_FILE_ENTRY = "__jlgcli_print_file__"


SAFE_PATH_SINCE = (3, 11)  # ``python -P``: nothing put first on ``sys.path``
NO_CWD_ENTRY = (
    "import sys; del sys.path[0]; from jlgcli.cli import console_script; console_script()"
)


def self_argv(
    *,
    frozen: bool | None = None,
    executable: str | None = None,
    version: tuple[int, int] | None = None,
) -> list[str]:
    """``[python, -P, -m, jlgcli]`` from a package, ``[jlgcli.exe]`` from a PyInstaller build.

    ``-m`` alone puts the working directory first on ``sys.path``, and these children run
    in a repository (the replay backend's reader, a batch's task started cold): a
    ``jlgcli`` folder there would stand in for the program. ``-P`` (Python 3.11) puts
    nothing there; on 3.10 the same is done by hand (``NO_CWD_ENTRY``, through ``-c``).
    """
    frozen = bool(getattr(sys, "frozen", False)) if frozen is None else frozen
    executable = sys.executable if executable is None else executable
    if frozen:
        return [executable]
    if (version or sys.version_info[:2]) >= SAFE_PATH_SINCE:
        return [executable, "-P", "-m", "jlgcli"]
    return [executable, "-c", NO_CWD_ENTRY]


def print_file_entry(path: str) -> int:
    """Hidden entry point: copy a UTF-8 file to stdout (the replay backend's child)."""
    with open(path, "rb") as source:
        while chunk := source.read(65536):
            sys.stdout.buffer.write(chunk)
    sys.stdout.buffer.flush()
    return 0
