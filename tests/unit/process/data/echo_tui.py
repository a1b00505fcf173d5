"""A fake interactive program that echoes what is typed, like a TUI's input box (issue 17).

Usage: ``echo_tui.py RECORD``. Raw mode, bracketed paste enabled (it sends
``ESC[?2004h``). Typed characters are echoed; CR outside a paste submits, CR
inside a paste is a newline. Each submission is appended to RECORD as one JSON
line. After a submission it waits up to 0.5 s for early input: anything typed
before its reply (e.g. an exit sequence sent because the echo was taken for
the reply) is recorded as ``early`` and it exits 3. Then it prints
``working`` and ``DONE`` and a new ``> `` prompt. ``/exit`` ends it (0).
"""

from __future__ import annotations

import json
import os
import select
import sys
import tty

PASTE_START, PASTE_END = b"\x1b[200~", b"\x1b[201~"


def main() -> int:
    record = open(sys.argv[1], "a", encoding="utf-8")  # noqa: SIM115 - for the whole run
    fd = sys.stdin.fileno()
    tty.setraw(fd)
    out = sys.stdout.buffer

    def say(data: bytes) -> None:
        out.write(data)
        out.flush()

    say(b"\x1b[?2004hwelcome\r\n> ")
    pending, line, pasting = b"", b"", False
    while True:
        data = os.read(fd, 4096)
        if not data:
            return 0
        pending += data
        while pending:
            if pending.startswith(PASTE_START) or pending.startswith(PASTE_END):
                pasting = pending.startswith(PASTE_START)
                pending = pending[len(PASTE_START) :]
                continue
            if pending[:1] == b"\x1b" and len(pending) < len(PASTE_START):
                break  # the rest of an escape is on its way
            char, pending = pending[:1], pending[1:]
            if char != b"\r":
                line += char
                say(char)
            elif pasting:
                line += b"\n"
                say(b"\r\n")
            else:
                text = line.decode("utf-8", "replace")
                record.write(json.dumps({"submitted": text}) + "\n")
                record.flush()
                line = b""
                say(b"\r\n")
                if text == "/exit":
                    return 0
                if pending or select.select([fd], [], [], 0.5)[0]:
                    record.write(json.dumps({"early": True}) + "\n")
                    record.flush()
                    return 3
                say(b"working\r\nDONE\r\n> ")


if __name__ == "__main__":
    sys.exit(main())
