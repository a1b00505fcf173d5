"""Reading a transcript back, whole or while its run writes it (``jlgcli runs log``, issue 51).

``records`` yields each line of ``transcript.ndjson`` as a dict (a ``b64`` output
record decoded into ``text``, replacement characters where it was not UTF-8);
a damaged line is skipped, never an error: the file is input. With ``running``
it follows the file: at its end it waits while ``running()`` says the run goes
on, then reads what the run wrote last and stops. A bounded transcript cut in
place (``transcript_bound``) is found again by its note's ``droppedBytes``: the
reader keeps its place in the whole stream, not in the file.
"""

from __future__ import annotations

import base64
import binascii
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from jlgcli.artifacts.transcript_bound import CUT_TYPE, parse_note

POLL_S = 0.2
_READ = 256 * 1024
_PEEK = 512


def records(
    path: Path,
    *,
    running: Callable[[], bool] | None = None,
    poll_s: float = POLL_S,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[dict[str, Any]]:
    """The records of the transcript at ``path``; followed while ``running()`` when given."""
    reader = _Reader(path)
    while True:
        alive = running is not None and running()  # asked first: what follows is all there
        yield from reader.read()
        if not alive:
            reader.close()
            return
        sleep(poll_s)


class _Reader:
    """Complete lines from where it stopped; finds its place again after a cut."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fh: BinaryIO | None = None
        self.pos = 0  # file offset of the next unread line
        self.note_size = 0  # the cut note's line, at the file's start (0: none)
        self.dropped = 0  # the note's droppedBytes

    def read(self) -> Iterator[dict[str, Any]]:
        if self.fh is None:
            try:
                self.fh = open(self.path, "rb")  # noqa: SIM115 - closed by close()
            except OSError:
                return  # not written yet (or gone): nothing to read now
        cut = self._resync(self.fh)
        if cut is not None:
            yield cut
        rest = b""
        self.fh.seek(self.pos)
        while chunk := self.fh.read(_READ):
            lines = (rest + chunk).split(b"\n")
            rest = lines.pop()
            for line in lines:
                self.pos += len(line) + 1
                record = _parse(line)
                if record is not None:
                    yield record

    def _resync(self, fh: BinaryIO) -> dict[str, Any] | None:
        """After a cut since the last read: the reader's new place, and a note to show when
        lines it had not read yet were cut."""
        fh.seek(0)
        found = parse_note(fh.read(_PEEK))
        if found is None:
            return None
        line, dropped = found
        if self.pos == 0 or dropped == self.dropped:
            self.note_size, self.dropped = len(line), dropped
            return None
        where = self.dropped + max(self.pos - self.note_size, 0)  # in the whole stream
        lost = max(dropped - where, 0)
        self.pos = len(line) + max(where - dropped, 0)
        self.note_size, self.dropped = len(line), dropped
        if lost:
            return {"type": CUT_TYPE, "droppedBytes": lost, "whileFollowing": True}
        return None

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()
            self.fh = None


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except ValueError:
        return None
    if not isinstance(record, dict) or not isinstance(record.get("type"), str):
        return None
    encoded = record.pop("b64", None)
    if isinstance(encoded, str) and "text" not in record:
        try:
            record["text"] = base64.b64decode(encoded, validate=True).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            return None
    return record
