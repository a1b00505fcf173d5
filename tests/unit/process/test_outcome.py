"""One process outcome with bounded head/tail output (issue 13 item 5)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from jlgcli.artifacts.redact import Redactor
from jlgcli.process import ExecutableNotFound, run_captured
from jlgcli.process.model import Invocation, Limits, OutputEvent, ProcessOutcome, StopReason
from jlgcli.process.outcome import OutputTail, StreamTail


def _fed(head: int, tail: int, *chunks: bytes) -> StreamTail:
    stream = StreamTail(head, tail)
    for chunk in chunks:
        stream.add(chunk)
    return stream


def test_a_short_stream_is_kept_whole() -> None:
    stream = _fed(4, 4, b"abc", b"de")
    assert (stream.text(), stream.total, stream.dropped, stream.truncated) == ("abcde", 5, 0, False)
    assert stream.render(lambda n: f"[{n}]") == "abcde"


def test_head_and_tail_are_kept_and_the_middle_is_counted() -> None:
    stream = _fed(4, 4, b"0123", b"4567", b"89ab", b"cdef")
    assert stream.head_bytes() == b"0123" and stream.tail_bytes() == b"cdef"
    assert (stream.total, stream.dropped, stream.truncated) == (16, 8, True)
    assert stream.render(lambda n: f"[{n} cut]") == "0123[8 cut]cdef"
    assert stream.text() == "0123cdef"


def test_memory_stays_bounded_however_much_arrives() -> None:
    stream = StreamTail(10, 10)
    for _ in range(10_000):
        stream.add(b"x" * 100)
    assert len(stream.head_bytes()) == 10 and len(stream.tail_bytes()) == 10
    assert stream.dropped == 1_000_000 - 20
    assert len(stream._tail) <= 2 * 10 + 100  # the bound is the point


def test_cuts_fall_on_character_boundaries() -> None:
    text = "é" * 10  # two bytes each
    stream = _fed(5, 5, text.encode())
    assert stream.head_bytes().decode() == "éé"  # 4 bytes: the 5th would split a character
    assert stream.tail_bytes().decode() == "éé"
    assert "\ufffd" not in stream.render(lambda n: "|")
    assert stream.dropped == 20 - 8


def test_a_zero_tail_keeps_only_the_head() -> None:
    stream = _fed(3, 0, b"abcdef")
    assert (stream.text(), stream.dropped) == ("abc", 3)


def test_merged_tail_keeps_both_streams_in_arrival_order() -> None:
    output = OutputTail(100, 100, merged_tail=6)
    output(OutputEvent("stdout", b"out1\n", 0.0))
    output(OutputEvent("stderr", b"err\n", 0.1))
    output(OutputEvent("stdout", b"out2\n", 0.2))
    assert output.stdout.text() == "out1\nout2\n" and output.stderr.text() == "err\n"
    assert output.merged.text() == "\nout2\n"
    assert output.merged.truncated


def test_filters_transform_each_stream_and_flush_at_the_end() -> None:
    key = "sk-ant-api03-" + "Q" * 30
    output = OutputTail(1000, 1000, filters=Redactor().stream)
    output.add("stdout", key[:10].encode())  # a secret split across two chunks
    output.add("stdout", key[10:].encode())
    output.finish()
    assert key not in output.stdout.text() and "[REDACTED]" in output.stdout.text()


def test_holding_keeps_the_given_text() -> None:
    output = OutputTail.holding(stdout="héllo", stderr="oops")
    assert (output.stdout.text(), output.stderr.text()) == ("héllo", "oops")


def test_outcome_views() -> None:
    plain = ProcessOutcome(0, None, StopReason.EXITED, 0.1)
    assert plain.ok and not plain.timed_out and plain.stdout == "" and plain.stderr == ""
    assert ProcessOutcome(None, 9, StopReason.IDLE, 1.0).timed_out
    assert ProcessOutcome(None, 9, StopReason.TIMEOUT, 1.0).timed_out
    never = ProcessOutcome.not_started("x: command not found")
    assert never.stop_reason is StopReason.FAILED_TO_START and never.stop_reason.value == (
        "failed-to-start"
    )
    assert (never.ok, never.exit_code, never.error) == (False, None, "x: command not found")


def test_run_captured_carries_the_output_and_feeds_extra_sinks(tmp_path: Path) -> None:
    code = "import sys; sys.stdout.buffer.write(b'x' * 3000 + b'done'); sys.stderr.write('warn')"
    seen: list[str] = []
    outcome = run_captured(
        Invocation((sys.executable, "-c", code), cwd=str(tmp_path)),
        Limits(total_timeout=60),
        output=OutputTail(10, 10),
        sinks=(lambda event: seen.append(event.text),),
    )
    assert outcome.ok and outcome.output is not None
    assert outcome.stdout == "x" * 10 + "xxxxxxdone"
    assert outcome.stderr == "warn"
    assert outcome.output.stdout.dropped == outcome.stdout_bytes - 20
    assert "done" in "".join(seen)


def test_run_captured_says_cancelled_one_way(tmp_path: Path) -> None:
    cancel = threading.Event()
    output = OutputTail()

    def stop_on_ready(event: OutputEvent) -> None:
        if "ready" in output.stdout.text():
            cancel.set()

    code = "import time; print('ready', flush=True); time.sleep(60)"
    outcome = run_captured(
        Invocation((sys.executable, "-c", code), cwd=str(tmp_path)),
        Limits(total_timeout=120, kill_grace=0.5),
        output=output,
        sinks=(stop_on_ready,),
        cancel=cancel,
    )
    assert outcome.stop_reason is StopReason.CANCELLED and outcome.interrupted_by is None
    assert outcome.stdout.strip() == "ready"


def test_run_captured_raises_for_a_missing_program() -> None:
    with pytest.raises(ExecutableNotFound):
        run_captured(Invocation(("no-such-program-xyz",)), Limits(total_timeout=5))
