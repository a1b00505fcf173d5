"""Terminal output: stdout carries results (one JSON object with ``--json``), stderr the rest."""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

    from jlgcli.artifacts.redact import Redacted


def configure_streams(
    *, is_windows: bool | None = None, streams: tuple[Any, ...] | None = None
) -> None:
    """Never crash on a character the console cannot encode.

    On Windows a redirected stdout uses the ANSI code page (cp1252): an emoji
    in an assistant message would raise ``UnicodeEncodeError``. Write UTF-8
    there; elsewhere keep the encoding and only replace what cannot be encoded.
    """
    is_windows = sys.platform == "win32" if is_windows is None else is_windows
    for stream in streams if streams is not None else (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:
            continue
        if is_windows and not stream.isatty():
            reconfigure(encoding="utf-8", errors="replace")
        else:
            reconfigure(errors="replace")


def emit_json(obj: Any, stream: TextIO | None = None) -> None:
    """Write exactly one JSON object (and a newline) to stdout, redacted like ``result.json``."""
    import json

    from jlgcli.artifacts.redact import Redactor

    out = sys.stdout if stream is None else stream
    out.write(json.dumps(Redactor().redact_obj(obj), ensure_ascii=False, indent=2) + "\n")
    out.flush()


def err(message: str) -> None:
    """A line on stderr, redacted."""
    from jlgcli.artifacts.redact import Redactor

    sys.stderr.write(Redactor().redact(message) + "\n")
    sys.stderr.flush()


def show(text: Redacted, stream: TextIO | None = None) -> None:
    """Text for a person on stderr, as ``run``/``loop``'s console writes it: redacted (the
    type says so: ``Redactor.redact`` gives it), without terminal control sequences other
    than colours (the Invoke and Action doors)."""
    from jlgcli.ansi import terminal_safe

    out = sys.stderr if stream is None else stream
    out.write(terminal_safe(text))
    out.flush()


def print_table(rows: list[list[str]], headers: list[str], stream: TextIO | None = None) -> None:
    """A plain aligned table (no colours: it must read well in CI logs and pipes)."""
    out = sys.stdout if stream is None else stream
    columns = zip(headers, *rows, strict=False)
    widths = [max(len(str(cell)) for cell in column) for column in columns]
    for row in [headers, *rows]:
        line = "  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=False))
        out.write(line.rstrip() + "\n")
