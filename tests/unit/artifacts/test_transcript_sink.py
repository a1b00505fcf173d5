"""transcript.ndjson: a record per chunk, flushed at once, redacted (F-006, RG-016, RG-007)."""

from __future__ import annotations

import base64
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jlgcli.artifacts import transcript
from jlgcli.artifacts.redact import Redactor
from jlgcli.artifacts.transcript import TranscriptSink, json_escape_utf8
from jlgcli.errors import ExitCode, JlgError
from jlgcli.process.model import OutputEvent

GHP = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def _records(path: Path) -> list[dict[str, Any]]:
    # split on b"\n" only: str.splitlines() would also split on U+0085/U+2028 inside a record
    return [json.loads(line) for line in path.read_bytes().split(b"\n") if line]


def test_one_record_per_chunk_with_relative_time(tmp_path: Path) -> None:
    path = tmp_path / "transcript.ndjson"
    with TranscriptSink(path, start=100.0) as sink:
        sink(OutputEvent("stdout", "hello\n", 100.25))
        sink(OutputEvent("stderr", "warn: x\n", 101.5004))
    assert _records(path) == [
        {"t": 0.25, "type": "stdout", "text": "hello\n"},
        {"t": 1.5, "type": "stderr", "text": "warn: x\n"},
    ]
    assert sink.records == 2


def test_each_event_is_on_disk_before_the_call_returns(tmp_path: Path) -> None:
    # F-006: a run killed midway keeps everything up to the kill — read while still open
    path = tmp_path / "transcript.ndjson"
    sink = TranscriptSink(path, start=0.0)
    try:
        for i in range(5):
            sink(OutputEvent("stdout", f"line {i}\n", float(i)))
            with path.open("rb") as reader:
                lines = reader.read().splitlines()
            assert len(lines) == i + 1
            assert json.loads(lines[-1])["text"] == f"line {i}\n"
        sink.write_record("exit", code=0)
        assert _records(path)[-1]["type"] == "exit"
    finally:
        sink.close()


def test_redacted_output_is_flushed_per_complete_line(tmp_path: Path) -> None:
    path = tmp_path / "transcript.ndjson"
    sink = TranscriptSink(path, redactor=Redactor(environ={}), start=0.0)
    try:
        sink(OutputEvent("stdout", "done line\nexport GITHUB_TOKEN=ghp_a1B2", 1.0))
        assert [r["text"] for r in _records(path)] == ["done line\n"]  # partial line held back
        sink(OutputEvent("stdout", GHP[10:] + "\nnext", 2.0))
        assert [r["text"] for r in _records(path)][-1] == "export GITHUB_TOKEN=[REDACTED]\n"
    finally:
        sink.close()
    texts = [r["text"] for r in _records(path)]
    assert texts[-1] == "next"  # the held tail is written on close
    assert GHP not in path.read_text(encoding="utf-8")


def test_runner_records_come_after_held_output_and_are_redacted(tmp_path: Path) -> None:
    path = tmp_path / "transcript.ndjson"
    redactor = Redactor(environ={})
    with TranscriptSink(path, redactor=redactor, start=0.0) as sink:
        sink(OutputEvent("stdout", "no newline yet", 1.0))
        sink(OutputEvent("stderr", "err tail", 1.5))
        sink.write_record("iteration-end", iteration=1, apiToken="abc123", note=f"saw {GHP}",
                          path=tmp_path)  # fmt: skip
    records = _records(path)
    assert [(r["type"], r.get("text")) for r in records[:2]] == [
        ("stdout", "no newline yet"),
        ("stderr", "err tail"),
    ]
    assert records[0]["t"] == 1.0
    end = records[2]
    assert end["type"] == "iteration-end" and end["iteration"] == 1
    assert end["apiToken"] == "[REDACTED]" and end["note"] == "saw [REDACTED]"
    assert end["path"] == str(tmp_path) and isinstance(end["t"], float)
    assert redactor.count == 2


_TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=300)


@given(st.lists(_TEXT, min_size=1, max_size=8))
@settings(max_examples=100, deadline=None)
def test_any_text_round_trips_through_json(tmp_path_factory: pytest.TempPathFactory,
                                           chunks: list[str]) -> None:  # fmt: skip
    path = tmp_path_factory.mktemp("t") / "transcript.ndjson"
    with TranscriptSink(path, start=0.0) as sink:
        for i, chunk in enumerate(chunks):
            sink(OutputEvent("stdout", chunk, float(i)))
    records = _records(path)
    assert "".join(r["text"] for r in records) == "".join(chunks)
    assert path.read_bytes().count(b"\n") == len(records)  # one line per record, always


@given(_TEXT)
def test_escape_matches_json(text: str) -> None:
    escaped = json_escape_utf8(text.encode())
    assert json.loads(b'"' + escaped + b'"') == text
    assert b"\n" not in escaped and b"\r" not in escaped


def test_backspace_and_form_feed_are_written_as_the_passes_write_them() -> None:
    """\\u0008 / \\u000c (not \\b / \\f), and what is not strict UTF-8 is refused."""
    assert transcript.json_string_utf8('a"\b\x0c\u00e9'.encode()) == b'"a\\"\\u0008\\u000c\xc3\xa9"'
    assert transcript.json_string_utf8(b"\xff") is None
    assert transcript.json_string_utf8(b"\xed\xa0\x80") is None  # a lone surrogate, encoded


def test_keeping_a_transcript_imports_no_pydantic() -> None:
    """Issue 51 keeps every run's transcript: its escaper must not cost pydantic-core's
    import (~30 ms) on each run."""
    import subprocess
    import sys

    code = ("import sys; from jlgcli.artifacts import transcript; "
            "transcript.json_string_utf8(b'x'); print('pydantic_core' in sys.modules)")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


@pytest.fixture(params=["hyperscan", "python"])
def probes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Large chunks asked of the Hyperscan probes, or of Python when there is none."""
    monkeypatch.setattr(transcript, "_probes", {})
    if request.param == "python":
        monkeypatch.setattr(transcript.BytesProbe, "compile", classmethod(lambda cls, p: None))
    return str(request.param)


_SHARED_FIXTURE = [HealthCheck.function_scoped_fixture]  # the probe choice holds for every input
# Large enough for the probes (PROBE_MIN): padding around text that may need any escape.
_PAD = "padding text, no escapes at all " * 300


@given(text=_TEXT)
@settings(max_examples=100, deadline=None, suppress_health_check=_SHARED_FIXTURE)
def test_escape_of_large_chunks_matches_json(probes: str, text: str) -> None:
    data = (_PAD + text + _PAD).encode()
    assert len(data) >= transcript.PROBE_MIN
    assert json.loads(b'"' + json_escape_utf8(data) + b'"') == _PAD + text + _PAD


@given(data=st.binary(max_size=40))
@settings(max_examples=100, deadline=None, suppress_health_check=_SHARED_FIXTURE)
def test_large_chunks_are_utf8_exactly_when_they_decode(probes: str, data: bytes) -> None:
    padded = _PAD.encode() + data + "é".encode()  # not ASCII: the probe, not isascii, decides
    # strict UTF-8 is exactly what survives a decode with replacement unchanged
    assert transcript.is_utf8(padded) is (padded.decode("utf-8", "replace").encode() == padded)
    assert transcript.is_utf8(data) is (data.decode("utf-8", "replace").encode() == data)


@given(data=st.binary(max_size=40), text=_TEXT, ascii_only=st.booleans())
@settings(max_examples=150, deadline=None, suppress_health_check=_SHARED_FIXTURE)
def test_one_probe_of_a_large_chunk_writes_what_every_escape_pass_writes(
    probes: str, data: bytes, text: str, ascii_only: bool
) -> None:
    """Issue 43 (speed): one scan asks a large chunk which escapes it needs (and, when it
    is not ASCII, whether it is UTF-8); the body written is byte for byte the same."""
    body = (
        bytes(b & 0x7F for b in data) + text.encode("ascii", "ignore")
        if ascii_only
        else (data + text.encode() + "é".encode())
    )
    padded = _PAD.encode() + body
    assert padded.isascii() is ascii_only
    utf8 = padded.decode("utf-8", "replace").encode() == padded
    expected = transcript._escaped(padded, None) if utf8 else None  # every escape, no probe
    assert transcript.json_body_utf8(padded) == expected
    assert json_escape_utf8(padded) == expected or not utf8
    if expected is not None:
        assert json.loads(b'"' + expected + b'"') == padded.decode()


def test_large_reads_with_control_and_bad_bytes_round_trip(probes: str, tmp_path: Path) -> None:
    """A 256 KiB read holding an ANSI colour, a tab, a CR and, later, a byte that is not UTF-8."""
    path = tmp_path / "t.ndjson"
    clean = ("\x1b[32mok\x1b[0m\tdone\r\n" + _PAD).encode()
    broken = _PAD.encode() + b"\xff cut \xe2\x9c in the middle"
    with TranscriptSink(path, start=0.0) as sink:
        sink(OutputEvent("stdout", clean, 0.0))
        sink(OutputEvent("stderr", broken, 1.0))
    first, second = _records(path)
    assert first["text"].encode() == clean
    assert base64.b64decode(second["b64"]) == broken


def test_bytes_that_are_not_utf8_are_kept_exactly(tmp_path: Path) -> None:
    """The transport hands bytes on (issue 18): a byte that is not UTF-8 is kept as base64."""
    import base64

    path = tmp_path / "t.ndjson"
    with TranscriptSink(path, start=0.0) as sink:
        sink(OutputEvent("stdout", b"bad \x80 byte", 0.0))
    assert base64.b64decode(_records(path)[0]["b64"]) == b"bad \x80 byte"


def test_cannot_create_is_exit_73_with_a_hint(tmp_path: Path) -> None:
    # RG-016: a path under a regular file fails for root too (unlike chmod)
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(JlgError) as caught:
        TranscriptSink(blocker / "transcript.ndjson")
    assert caught.value.code == ExitCode.CANT_CREATE == 73
    assert str(blocker) in caught.value.message
    assert caught.value.hint and "--artifacts-dir" in caught.value.hint


def test_write_failure_is_exit_73_and_sticks(tmp_path: Path) -> None:
    sink = TranscriptSink(tmp_path / "t.ndjson", start=0.0)

    class FullDisk:
        def write(self, data: bytes) -> int:
            raise OSError(28, "No space left on device")

        def flush(self) -> None: ...

        def close(self) -> None: ...

    sink._fh = FullDisk()  # type: ignore[assignment]
    with pytest.raises(JlgError) as caught:
        sink(OutputEvent("stdout", "x\n", 0.0))
    assert caught.value.code == 73 and "No space left" in caught.value.message
    assert sink.error is caught.value
    with pytest.raises(JlgError):
        sink.write_record("exit", code=0)  # the run must not go on as if it were written
    sink.close()  # closing a failed sink does not raise again


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_real_full_device_is_exit_73() -> None:
    sink = TranscriptSink(Path("/dev/full"), start=0.0)
    with pytest.raises(JlgError) as caught:
        sink(OutputEvent("stdout", "x" * 10, 0.0))
    assert caught.value.code == 73
    sink.close()


def test_close_failure_is_exit_73(tmp_path: Path) -> None:
    sink = TranscriptSink(tmp_path / "t.ndjson", start=0.0)
    real = sink._fh

    class FailsOnClose:
        def write(self, data: bytes) -> int:
            return real.write(data)

        def flush(self) -> None:
            real.flush()

        def close(self) -> None:
            real.close()
            raise OSError(5, "Input/output error")

    sink._fh = FailsOnClose()  # type: ignore[assignment]
    with pytest.raises(JlgError) as caught:
        sink.close()
    assert caught.value.code == 73


def test_after_close_events_are_dropped_and_close_is_idempotent(tmp_path: Path) -> None:
    path = tmp_path / "t.ndjson"
    sink = TranscriptSink(path, redactor=Redactor(environ={}), start=0.0)
    sink(OutputEvent("stdout", "a\n", 0.0))
    sink.close()
    sink.close()
    sink(OutputEvent("stdout", "late\n", 1.0))  # a reader thread finishing after the run
    assert [r["text"] for r in _records(path)] == ["a\n"]


def test_default_start_is_creation_time(tmp_path: Path) -> None:
    import time

    path = tmp_path / "t.ndjson"
    with TranscriptSink(path) as sink:
        sink(OutputEvent("stdout", "x", time.monotonic()))
    assert 0 <= _records(path)[0]["t"] < 60


def test_two_reader_threads_never_interleave_records(tmp_path: Path) -> None:
    path = tmp_path / "t.ndjson"
    chunk = "y" * 5000 + "\n"
    with TranscriptSink(path, redactor=Redactor(environ={}), start=0.0) as sink:

        def pump(stream: Any) -> None:
            for i in range(200):
                sink(OutputEvent(stream, chunk, float(i)))

        threads = [threading.Thread(target=pump, args=(s,)) for s in ("stdout", "stderr")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    records = _records(path)
    assert len(records) == 400
    assert {r["type"] for r in records} == {"stdout", "stderr"}
    assert all(r["text"] == chunk for r in records)


# --- bytes events (issue 18) ------------------------------------------------------------


class _BytesEvent:
    """The shape of the transport's bytes events: ``data`` plus a lazy ``text``."""

    def __init__(self, stream: str, data: bytes, t: float = 0.0) -> None:
        self.stream, self.data, self.t = stream, data, t

    @property
    def text(self) -> str:
        raise AssertionError("the sink must write the bytes, not decode them")


def test_bytes_events_are_written_as_they_are(tmp_path: Path) -> None:
    path = tmp_path / "t.ndjson"
    with TranscriptSink(path, start=0.0) as sink:
        sink(_BytesEvent("stdout", 'quote " back \\ tab \t esc \x1b é\n'.encode()))
        sink(_BytesEvent("stderr", b"\xff\xfe not utf-8\n"))
    first, second = (json.loads(line) for line in path.read_text("utf-8").splitlines())
    assert first["text"] == 'quote " back \\ tab \t esc \x1b é\n'
    assert base64.b64decode(second["b64"]) == b"\xff\xfe not utf-8\n"


@given(st.binary(max_size=300))
def test_any_bytes_round_trip_through_a_valid_json_line(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.ndjson"
        with TranscriptSink(path, start=0.0) as sink:
            sink(_BytesEvent("stdout", data))
        lines = path.read_bytes().splitlines()
    if not data:
        assert lines == []
        return
    assert b"".join(_record_bytes(json.loads(line)) for line in lines) == data


def test_a_character_cut_between_two_chunks_stays_text(tmp_path: Path) -> None:
    path = tmp_path / "t.ndjson"
    data = "café ✓ 日本\n".encode()
    with TranscriptSink(path, start=0.0) as sink:
        for i in range(len(data)):
            sink(_BytesEvent("stdout", data[i : i + 1]))
        sink(_BytesEvent("stderr", b"end \xe2\x9c"))  # cut for good: kept, as base64
    records = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    text = "".join(r["text"] for r in records if r["type"] == "stdout")
    assert text == "café ✓ 日本\n"
    tail = [r for r in records if r["type"] == "stderr"]
    assert b"".join(_record_bytes(r) for r in tail) == b"end \xe2\x9c"
    assert "b64" in tail[-1]


def _record_bytes(record: dict[str, Any]) -> bytes:
    return base64.b64decode(record["b64"]) if "b64" in record else record["text"].encode()


def test_events_redacted_at_ingress_are_written_without_a_second_pass(tmp_path: Path) -> None:
    # issue 32: run_invocation(filters=...) redacted them and says so; other events
    # (no filter upstream) are still redacted here.
    redactor = Redactor(environ={})
    path = tmp_path / "transcript.ndjson"
    with TranscriptSink(path, redactor=redactor, start=0.0) as sink:
        sink(OutputEvent("stdout", b"token [REDACTED] at ingress\n", 0.1, redacted=True))
        assert redactor.count == 0
        sink(OutputEvent("stderr", f"raw {GHP}\n".encode(), 0.2))
    assert redactor.count == 1
    assert [record["text"] for record in _records(path)] == [
        "token [REDACTED] at ingress\n",
        "raw [REDACTED]\n",
    ]
