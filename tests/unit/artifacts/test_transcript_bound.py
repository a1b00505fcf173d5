"""A transcript kept by default is bounded: the oldest whole lines cut, a note first (issue 51).

The limit is injected small (a few KB) so the cut happens in a test; the real one is
``DEFAULT_LIMIT`` (20 MB). The reader (``transcript_read``) follows a file cut in place.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.files import FullDisk

from jlgcli.artifacts.transcript import TranscriptSink
from jlgcli.artifacts.transcript_bound import (
    CUT_TYPE,
    DEFAULT_LIMIT,
    cut_front,
    parse_note,
)
from jlgcli.artifacts.transcript_read import records
from jlgcli.errors import ExitCode, JlgError
from jlgcli.process.model import OutputEvent

LIMIT = 4096


def _lines(path: Path) -> list[dict[str, Any]]:
    raw = path.read_bytes()
    assert raw.endswith(b"\n")  # never cut inside a line
    return [json.loads(line) for line in raw.split(b"\n") if line]


def _numbered(sink: TranscriptSink, count: int) -> None:
    _numbered_from(sink, 0, count)


def test_the_default_limit_is_20_megabytes() -> None:
    assert DEFAULT_LIMIT == 20 * 1024 * 1024


def test_a_transcript_under_its_limit_is_kept_whole(tmp_path: Path) -> None:
    path = tmp_path / "t.ndjson"
    with TranscriptSink(path, start=0.0, limit=LIMIT) as sink:
        _numbered(sink, 10)
    lines = _lines(path)
    assert [line["type"] for line in lines] == ["stdout"] * 10
    assert sink.dropped == 0


def test_past_its_limit_the_oldest_lines_go_and_a_note_says_what_was_cut(tmp_path: Path) -> None:
    path = tmp_path / "t.ndjson"
    with TranscriptSink(path, start=0.0, limit=LIMIT) as sink:
        _numbered(sink, 500)  # ~45 KB through a 4 KB bound: cut many times
        sink.write_record("iteration-end", iteration=1)
    size = path.stat().st_size
    assert size <= LIMIT
    lines = _lines(path)
    note, kept = lines[0], lines[1:]
    assert note["type"] == CUT_TYPE and note["limitBytes"] == LIMIT
    assert "older output was dropped" in note["note"]
    assert kept[-1] == {"t": kept[-1]["t"], "type": "iteration-end", "iteration": 1}
    numbers = [int(line["text"].split()[1]) for line in kept[:-1]]
    assert numbers == list(range(numbers[0], 500))  # the newest, in order, none lost inside
    # droppedBytes: exactly the bytes of the lines no longer there
    one = len(json.dumps({"t": 0.0, "type": "stdout", "text": "line 00000 " + "x" * 60 + "\n"}))
    assert note["droppedBytes"] == sink.dropped
    assert abs(note["droppedBytes"] - numbers[0] * (one - 1)) < numbers[0] * 4


def test_a_cut_keeps_three_quarters_of_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "t.ndjson"
    with path.open("w+b") as fh:
        body = b"".join(b'{"type":"stdout","text":"%04d"}\n' % i for i in range(400))
        fh.write(body)
        size, dropped = cut_front(fh, len(body), limit=8000, dropped=0, t=1.0)
    data = path.read_bytes()
    assert len(data) == size
    found = parse_note(data)
    assert found is not None and found[1] == dropped
    assert 0.7 * 8000 <= size - len(found[0]) <= 0.75 * 8000
    assert data[len(found[0]) :] == body[dropped:]


def test_a_tiny_limit_still_leaves_valid_ndjson(tmp_path: Path) -> None:
    path = tmp_path / "t.ndjson"
    with TranscriptSink(path, start=0.0, limit=200) as sink:
        _numbered(sink, 20)
    lines = _lines(path)
    assert lines[0]["type"] == CUT_TYPE
    assert lines[-1]["text"].startswith("line 00019")


def test_the_reader_follows_a_file_cut_while_it_reads(tmp_path: Path) -> None:
    path = tmp_path / "t.ndjson"
    sink = TranscriptSink(path, start=0.0, limit=LIMIT)
    count = {"n": 0}

    def running() -> bool:  # between two reads, the run writes 8 more lines
        count["n"] += 1
        if count["n"] > 40:
            return False
        _numbered_from(sink, 8 * (count["n"] - 1), 8)
        return True

    seen = list(records(path, running=running, sleep=lambda _s: None))
    sink.close()
    numbers = [int(r["text"].split()[1]) for r in seen if r["type"] == "stdout"]
    assert numbers == list(range(numbers[0], 8 * 40))  # each line once, in order
    assert sink.dropped > 0  # the file was cut while followed


def test_the_reader_says_so_when_lines_it_had_not_read_were_cut(tmp_path: Path) -> None:
    path = tmp_path / "t.ndjson"
    sink = TranscriptSink(path, start=0.0, limit=LIMIT)
    state = {"calls": 0}

    def running() -> bool:
        state["calls"] += 1
        if state["calls"] == 1:
            _numbered_from(sink, 0, 4)
            return True
        if state["calls"] == 2:
            _numbered_from(sink, 4, 300)  # far past the limit before the next read
            return True
        return False

    seen = list(records(path, running=running, sleep=lambda _s: None))
    sink.close()
    cuts = [r for r in seen if r["type"] == CUT_TYPE]
    assert cuts and cuts[0].get("whileFollowing") is True and cuts[0]["droppedBytes"] > 0
    numbers = [int(r["text"].split()[1]) for r in seen if r["type"] == "stdout"]
    assert numbers[:4] == [0, 1, 2, 3] and numbers[-1] == 303
    assert numbers == sorted(set(numbers))


def test_a_write_failure_of_a_kept_transcript_is_reported_once(tmp_path: Path) -> None:
    errors: list[JlgError] = []
    sink = TranscriptSink(tmp_path / "t.ndjson", start=0.0, limit=LIMIT, on_error=errors.append)
    sink._fh.close()
    sink._fh = FullDisk()  # type: ignore[assignment]
    sink(OutputEvent("stdout", "one\n", 0.0))
    sink(OutputEvent("stdout", "two\n", 0.0))
    sink.write_record("iteration-end", iteration=1)
    sink.close()
    assert len(errors) == 1 and errors[0].code == ExitCode.CANT_CREATE


def test_without_on_error_a_write_failure_still_raises(tmp_path: Path) -> None:
    sink = TranscriptSink(tmp_path / "t.ndjson", start=0.0)
    sink._fh.close()
    sink._fh = FullDisk()  # type: ignore[assignment]
    with pytest.raises(JlgError):
        sink(OutputEvent("stdout", "one\n", 0.0))


def test_a_damaged_line_or_a_false_note_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "t.ndjson"
    path.write_bytes(
        b'{"type":"transcript-cut","droppedBytes":-1}\n'
        b"not json\n"
        b'{"type":"stdout","b64":"aGk="}\n'
        b'{"type":"stdout","b64":"%%%"}\n'
        b"[1,2]\n"
        b'{"type":"stdout","text":"partial'
    )
    assert parse_note(path.read_bytes()) is None
    assert [r.get("text") for r in records(path)] == [None, "hi"]


def test_a_missing_file_has_no_records(tmp_path: Path) -> None:
    assert list(records(tmp_path / "none.ndjson")) == []


def _numbered_from(sink: TranscriptSink, start: int, count: int) -> None:
    for i in range(start, start + count):
        sink(OutputEvent("stdout", f"line {i:05d} " + "x" * 60 + "\n", float(i)))
