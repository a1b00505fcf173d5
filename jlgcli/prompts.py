"""Reading the prompt (DESIGN "prompt source"): always a file path, ``-`` reads stdin.

``jlgcli run "some text"`` is not a prompt: a missing file is exit 66 with a
hint, an empty prompt is exit 64. UTF-8, a BOM is tolerated, invalid bytes
are replaced rather than crashing.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import BinaryIO, TextIO

from jlgcli.errors import ExitCode, JlgError
from jlgcli.records import record


@record
class Prompt:
    """The prompt text and where it came from (``-`` for stdin)."""

    text: str
    source: str


def _decode(data: bytes) -> str:
    return data.decode("utf-8-sig", errors="replace").replace("\r\n", "\n")


def end_of_input_keys(windows: bool | None = None) -> str:
    """The keys that end typed input on this OS's terminals (the one OS difference here)."""
    if windows is None:
        windows = os.name == "nt"
    return "Ctrl-Z then Enter" if windows else "Ctrl-D"


def _announce_terminal_read(stream: BinaryIO, stderr: TextIO | None) -> None:
    """A person typing the prompt is told so; a pipe or a file is read silently."""
    try:
        interactive = stream.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream: not a person typing
        interactive = False
    if interactive:
        out = stderr if stderr is not None else sys.stderr
        out.write(f"reading the prompt from stdin ({end_of_input_keys()} to end)\n")
        out.flush()


def read_prompt(
    source: str,
    *,
    stdin: BinaryIO | None = None,
    cwd: Path | None = None,
    stderr: TextIO | None = None,
) -> Prompt:
    """Read the prompt from a file path or ``-`` (stdin)."""
    if source == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        _announce_terminal_read(stream, stderr)
        text = _decode(stream.read())
        origin = "-"
    else:
        path = Path(source)
        if cwd is not None and not path.is_absolute():
            path = cwd / path
        try:
            text = _decode(path.read_bytes())
        except FileNotFoundError:
            looks_like_text = " " in source or not Path(source).suffix
            hint = (
                "the prompt is always a file: write it to a file (or pass - and pipe it on stdin)"
                if looks_like_text
                else "check the path, or pass - to read the prompt from stdin"
            )
            raise JlgError(ExitCode.NO_INPUT, f"prompt file not found: {source}", hint) from None
        except IsADirectoryError:
            raise JlgError(
                ExitCode.NO_INPUT,
                f"prompt path is a directory: {source}",
                "pass a file (for example task.md)",
            ) from None
        except OSError as exc:
            raise JlgError(
                ExitCode.NO_INPUT,
                f"cannot read prompt file {source}: {exc.strerror or exc}",
                "check its permissions",
            ) from None
        origin = str(path)
    if not text.strip():
        raise JlgError(
            ExitCode.USAGE,
            f"the prompt from {origin} is empty",
            hint="write the task in the file (or on stdin)",
        )
    return Prompt(text=text, source=origin)
