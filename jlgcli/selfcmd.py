"""How jlgcli re-runs itself in a child process (replay, rebound scripts), frozen or not."""

from __future__ import annotations

import sys

PRINT_FILE_ENTRY = "__jlgcli_print_file__"


def self_argv(*, frozen: bool | None = None, executable: str | None = None) -> list[str]:
    """``[python, -m, jlgcli]`` from a package, ``[jlgcli.exe]`` from a PyInstaller build."""
    frozen = bool(getattr(sys, "frozen", False)) if frozen is None else frozen
    executable = sys.executable if executable is None else executable
    return [executable] if frozen else [executable, "-m", "jlgcli"]


def print_file_entry(path: str) -> int:
    """Hidden entry point: copy a UTF-8 file to stdout (the replay backend's child)."""
    with open(path, "rb") as source:
        while chunk := source.read(65536):
            sys.stdout.buffer.write(chunk)
    sys.stdout.buffer.flush()
    return 0
