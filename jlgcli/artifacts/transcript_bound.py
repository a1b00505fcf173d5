"""A kept transcript stays bounded: past its limit, the oldest lines go (issue 51).

Every run keeps its transcript by default, so a chatty agent must not fill the
disk: once the file would pass ``limit`` bytes, the newest ``KEEP_FRACTION`` of
the limit stays and everything before it is dropped, whole lines only, so the
file is still valid NDJSON. Its first line then says what was cut::

    {"t":…,"type":"transcript-cut","droppedBytes":N,"limitBytes":L,"note":"…"}

``droppedBytes`` counts every output byte cut so far (earlier notes left out):
a reader following the file adds it to its position in the file to know where
it is in the whole stream, and so finds its place again after a cut (see
``transcript_read``). The cut rewrites the file in place (Windows refuses to
replace a file another process has open) with a copy forward in chunks: dropping
a quarter of the limit every time makes the cost a few copies per byte at most,
and nothing at all for the runs that stay under the limit — nearly all of them.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import BinaryIO

DEFAULT_LIMIT = 20 * 1024 * 1024  # bytes: the last 20 MB of a run's output are kept
KEEP_FRACTION = 0.75
CUT_TYPE = "transcript-cut"
_CHUNK = 1024 * 1024
_NOTE_PEEK = 512  # a note line is far shorter: what a reader reads to find one


def note_line(t: float, dropped: int, limit: int) -> bytes:
    """The first line of a cut transcript."""
    megabytes = f"{limit / (1024 * 1024):g} MB"
    record = {
        "t": round(t, 3),
        "type": CUT_TYPE,
        "droppedBytes": dropped,
        "limitBytes": limit,
        "note": f"older output was dropped: a transcript keeps its newest {megabytes}",
    }
    return (json.dumps(record, separators=(",", ":")) + "\n").encode("ascii")


def cut_front(fh: BinaryIO, size: int, *, limit: int, dropped: int, t: float) -> tuple[int, int]:
    """Drop the oldest whole lines of the file ``fh`` (open ``w+b``, ``size`` bytes long).

    Returns the new size and the new total of dropped bytes; ``fh`` is left at its end.
    ``dropped``: the output bytes already cut before (from the note in place, if any).
    """
    fh.flush()
    old_note = read_note(fh)
    note_size = len(old_note[0]) if old_note else 0
    keep = max(int(limit * KEEP_FRACTION), 1)
    start = _line_start_at_or_after(fh, max(size - keep, note_size), size)
    dropped += start - note_size
    note = note_line(t, dropped, limit)
    fh.seek(start)
    if len(note) > start:  # only with a tiny limit: the tail is small, read it whole
        tail = fh.read(size - start)
        fh.seek(0)
        fh.write(note + tail)
    else:  # forward copy: each chunk is read before anything is written over it
        fh.seek(0)
        fh.write(note)
        source, target = start, len(note)
        while source < size:
            fh.seek(source)
            chunk = fh.read(min(_CHUNK, size - source))
            fh.seek(target)
            fh.write(chunk)
            source += len(chunk)
            target += len(chunk)
    new_size = len(note) + size - start
    fh.truncate(new_size)
    fh.seek(new_size)
    fh.flush()
    return new_size, dropped


def read_note(fh: BinaryIO) -> tuple[bytes, int] | None:
    """The cut note at the start of ``fh`` (its line, ``droppedBytes``), or None."""
    fh.seek(0)
    return parse_note(fh.read(_NOTE_PEEK))


def parse_note(head: bytes) -> tuple[bytes, int] | None:
    """The cut note starting ``head`` (its line, ``droppedBytes``), or None."""
    end = head.find(b"\n")
    if end < 0 or CUT_TYPE.encode() not in head[:end]:
        return None
    line = head[: end + 1]
    try:
        record = json.loads(line)
    except ValueError:
        return None
    dropped = record.get("droppedBytes") if isinstance(record, dict) else None
    if record.get("type") != CUT_TYPE or not isinstance(dropped, int) or dropped < 0:
        return None
    return line, dropped


def _line_start_at_or_after(fh: BinaryIO, position: int, size: int) -> int:
    """The start of the first whole line at or after ``position`` (``size`` if none)."""
    if position <= 0:
        return 0
    offset = position - 1  # a newline just before ``position`` makes it a line start
    while offset < size:
        fh.seek(offset)
        chunk = fh.read(min(_CHUNK, size - offset))
        found = chunk.find(b"\n")
        if found >= 0:
            return offset + found + 1
        offset += len(chunk)
    return size
