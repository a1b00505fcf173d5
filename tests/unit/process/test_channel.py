"""The byte channels on their own: selector (POSIX) and reader threads (the Windows path)."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from jlgcli.process.channel import CHUNK, SelectChannel, ThreadChannel

pytestmark = pytest.mark.skipif(os.name == "nt", reason="os.pipe + selectors are POSIX here")


def _drain(channel: SelectChannel | ThreadChannel) -> bytes:
    data = b""
    while channel.open:
        for _, chunk in channel.read(5):
            data += chunk
    return data


def test_select_channel_reads_until_both_ends_close() -> None:
    r1, w1 = os.pipe()
    r2, w2 = os.pipe()
    channel = SelectChannel({r1: "stdout", r2: "stderr"})
    big = b"a" * (3 * CHUNK)  # more than the pipe holds: written while we read
    writer = threading.Thread(target=lambda: (os.write(w1, big), os.close(w1)))
    writer.start()
    os.write(w2, b"err")
    os.close(w2)
    chunks: list[tuple[str, bytes]] = []
    while channel.open:
        chunks += channel.read(5)
    assert max(len(c) for _, c in chunks) <= CHUNK
    writer.join()
    assert b"".join(c for s, c in chunks if s == "stdout") == big
    assert b"".join(c for s, c in chunks if s == "stderr") == b"err"
    assert channel.read(0) == []  # nothing left to wait for
    channel.close()


def test_input_larger_than_the_pipe_is_written_while_output_is_read() -> None:
    # A child that echoes its input: writing all input first would deadlock both pipes.
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    payload = os.urandom(1 << 20)

    def echo() -> None:
        with os.fdopen(in_r, "rb") as src, os.fdopen(out_w, "wb") as dst:
            while block := src.read1(4096):
                dst.write(block)

    thread = threading.Thread(target=echo)
    thread.start()
    channel = SelectChannel({out_r: "stdout"}, in_w)
    channel.send(payload)
    channel.end_input()
    assert _drain(channel) == payload
    thread.join()
    channel.close()


def test_input_to_a_closed_reader_is_dropped_without_error() -> None:
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    os.close(in_r)
    channel = SelectChannel({out_r: "stdout"}, in_w)
    channel.send(b"x" * 10)
    channel.read(0.05)  # EPIPE: the input side is given up
    os.close(out_w)
    assert _drain(channel) == b""
    channel.send(b"ignored")  # no input any more
    channel.close()


def test_thread_channel_reads_writes_and_throttles() -> None:
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()

    def reader() -> bytes:
        return os.read(out_r, CHUNK)

    def writer(data: bytes) -> None:
        os.write(in_w, data)

    channel = ThreadChannel(
        {"stdout": reader}, writer=writer, close_input=lambda: os.close(in_w), max_chunks=1
    )
    channel.send(b"ping")
    channel.end_input()
    assert os.read(in_r, 10) == b"ping"
    assert os.read(in_r, 10) == b""  # closed after the queued input
    for _ in range(5):  # more chunks than the queue holds: the reader waits for us
        os.write(out_w, b"x" * 10)
    os.close(out_w)
    assert _drain(channel) == b"x" * 50
    channel.close()
    os.close(in_r)
    os.close(out_r)


def test_thread_channel_treats_a_read_error_as_the_end_and_ignores_input_without_writer() -> None:
    def broken() -> bytes:
        raise OSError("handle closed")

    channel = ThreadChannel({"stdout": broken})
    channel.send(b"nowhere")
    channel.end_input()
    assert _drain(channel) == b""
    assert channel.read(0) == []
    channel.close()


def test_thread_channel_close_releases_a_reader_stuck_on_a_full_queue() -> None:
    stop = threading.Event()

    def endless() -> bytes:
        return b"y"

    channel = ThreadChannel({"stdout": endless}, max_chunks=1)
    assert channel.read(5)
    channel.close()
    stop.set()
    assert not channel.open


# --- wider pipes (issue 18) -----------------------------------------------------------------

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="F_SETPIPE_SZ is Linux's"
)


@linux_only
def test_widen_pipe_gives_the_pipe_a_larger_buffer() -> None:
    import fcntl

    from jlgcli.process.pipe import PIPE_SIZE, widen_pipe

    read_end, write_end = os.pipe()
    try:
        assert fcntl.fcntl(read_end, fcntl.F_GETPIPE_SZ) < PIPE_SIZE  # 64 KiB by default
        assert widen_pipe(read_end) == PIPE_SIZE
        assert fcntl.fcntl(read_end, fcntl.F_GETPIPE_SZ) == PIPE_SIZE
    finally:
        os.close(read_end)
        os.close(write_end)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")
def test_widen_pipe_changes_nothing_where_the_system_cannot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import fcntl

    from jlgcli.process.pipe import widen_pipe

    read_end, write_end = os.pipe()
    try:
        monkeypatch.delattr(fcntl, "F_SETPIPE_SZ", raising=False)  # macOS has none
        assert widen_pipe(read_end) is None
    finally:
        os.close(read_end)
        os.close(write_end)


@linux_only
def test_widen_pipe_changes_nothing_when_the_size_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import errno
    import fcntl

    from jlgcli.process.pipe import widen_pipe

    def refuse(fd: int, cmd: int, arg: int = 0) -> int:
        raise OSError(errno.EPERM, "over /proc/sys/fs/pipe-max-size")

    monkeypatch.setattr(fcntl, "fcntl", refuse)
    assert widen_pipe(0) is None
