"""Reading the prompt (DESIGN "prompt source"): always a file path, ``-`` reads stdin.

``jlgcli run "some text"`` is not a prompt: a missing file is exit 66 with a
hint, an empty prompt is exit 64. UTF-8, a BOM is tolerated.

Bounds (issue 31): the prompt is read in chunks and stops with exit 66 as soon
as it passes ``maxPromptBytes`` (``jlgcli run /dev/zero`` grew to gigabytes
and, inside one endless read, never saw SIGTERM; between chunks the signal
handlers run). A prompt that is not UTF-8 (latin-1, binary, UTF-16) or holds a
NUL byte is exit 66 naming the byte offset, instead of reaching the agent with
U+FFFD in place of what the user wrote.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from jlgcli.errors import ExitCode, JlgError
from jlgcli.records import record

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import BinaryIO, TextIO


@record
class Prompt:
    """The prompt text and where it came from (``-`` for stdin)."""

    text: str
    source: str


DEFAULT_MAX_PROMPT_BYTES = 4 * 1024 * 1024  # the maxPromptBytes default (config_keys)
_CHUNK_BYTES = 64 * 1024
_BOM = b"\xef\xbb\xbf"


def _read_bounded(stream: BinaryIO, limit: int, origin: str) -> bytes:
    """At most ``limit`` bytes of ``stream``; exit 66 once there are more (never read whole)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        wanted = min(_CHUNK_BYTES, limit + 1 - size)
        chunk = stream.read(wanted)
        size += len(chunk)
        if size > limit:
            raise JlgError(
                ExitCode.NO_INPUT,
                f"the prompt from {origin} is larger than maxPromptBytes ({limit} bytes)",
                hint="shorten it, or raise the limit: jlgcli config set maxPromptBytes N "
                "(or JLGCLI_MAX_PROMPT_BYTES)",
            )
        chunks.append(chunk)
        # A buffered read is short only at the end. A terminal's end (Ctrl-D) is not
        # sticky: reading again would wait for a second one.
        if len(chunk) < wanted:
            return b"".join(chunks)


def _decode(data: bytes, origin: str) -> str:
    """The prompt's text: UTF-8 (a BOM tolerated), else exit 66 naming the first bad byte."""
    skipped = len(_BOM) if data.startswith(_BOM) else 0
    try:
        text = data.decode("utf-8-sig")
        bad = data.find(b"\0")
        reason = "a NUL byte (binary data)"
    except UnicodeDecodeError as exc:
        bad = skipped + exc.start
        reason = f"byte 0x{data[bad]:02x}, which is not UTF-8"
    if bad >= 0:
        raise JlgError(
            ExitCode.NO_INPUT,
            f"the prompt from {origin} is not UTF-8 text: {reason} at byte {bad}",
            hint="save the prompt as UTF-8 (for example: iconv -f latin1 -t utf-8 FILE)",
        )
    return text.replace("\r\n", "\n")


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
    max_bytes: int = DEFAULT_MAX_PROMPT_BYTES,
) -> Prompt:
    """Read the prompt from a file path or ``-`` (stdin), at most ``max_bytes`` of it."""
    if source == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        _announce_terminal_read(stream, stderr)
        origin = "stdin"
        text = _decode(_read_bounded(stream, max_bytes, origin), origin)
        origin = "-"
    else:
        path = Path(source)
        if cwd is not None and not path.is_absolute():
            path = cwd / path
        try:
            with path.open("rb") as stream:
                data = _read_bounded(stream, max_bytes, source)
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
        text = _decode(data, source)
        origin = str(path)
        if text.startswith("---"):  # a batch's depends-on is jlgcli's, not the agent's
            from jlgcli.front_matter import split

            text = split(text, origin).body
    if not text.strip():
        raise JlgError(
            ExitCode.USAGE,
            f"the prompt from {origin} is empty",
            hint="write the task in the file (or on stdin)",
        )
    return Prompt(text=text, source=origin)
