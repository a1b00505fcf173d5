"""The one error boundary (issue 13 item 5, issue 14) and jlgcli's own output channels."""

from __future__ import annotations

import errno
import io
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from jlgcli.boundary import DEV_CODES, JLGCLI_CODES, run_guarded
from jlgcli.errors import ExitCode, JlgError
from jlgcli.process.signals import (
    Interrupted,
    first_interruption,
    forget_interruptions,
    note_interruption,
)
from jlgcli.process.std_streams import GuardedStream, reopen_closed_descriptors, stdout_gone


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    forget_interruptions()
    yield
    forget_interruptions()


def test_jlg_error_is_error_and_hint_on_stderr_and_json_on_stdout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def body() -> int:
        raise JlgError(66, "prompt file not found: x.md", "check the path")

    assert run_guarded(body, want_json=True) == 66
    out, err = capsys.readouterr()
    assert json.loads(out)["error"] == {
        "code": 66,
        "message": "prompt file not found: x.md",
        "hint": "check the path",
    }
    assert err == "error: prompt file not found: x.md\nhint: check the path\n"


@pytest.mark.parametrize(
    ("exc", "code", "message"),
    [
        (KeyboardInterrupt(), 130, "error: interrupted\n"),
        (Interrupted(15), 143, "error: interrupted by SIGTERM\n"),
        (Interrupted(1), 129, "error: interrupted by SIGHUP\n"),
        (Interrupted(3), 131, "error: interrupted by SIGQUIT\n"),
    ],
)
def test_an_interruption_is_128_plus_its_signal(
    capsys: pytest.CaptureFixture[str], exc: BaseException, code: int, message: str
) -> None:
    def body() -> int:
        raise exc

    assert run_guarded(body, want_json=False) == code
    assert capsys.readouterr().err == message


def test_a_body_reporting_130_after_a_sigterm_exits_143() -> None:
    def body() -> int:
        note_interruption(15)  # what the handler does before the run stops
        return int(ExitCode.INTERRUPTED)

    assert run_guarded(body, want_json=False) == 143


def test_a_bug_is_70_with_a_crash_log(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr("jlgcli.crash.crash_dir", lambda: tmp_path)

    def body() -> int:
        raise RuntimeError("boom")

    assert run_guarded(body, want_json=False, codes=JLGCLI_CODES) == 70
    assert "internal error: RuntimeError: boom" in capsys.readouterr().err
    assert len(list(tmp_path.glob("crash-*.log"))) == 1


def test_the_dev_programs_keep_their_seed_003_codes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # 003 FR-8.3: 1 aborted (an interruption, whatever the signal), 3 task execution error.
    monkeypatch.setattr("jlgcli.crash.crash_dir", lambda: tmp_path)

    def interrupted() -> int:
        raise Interrupted(15)

    def bug() -> int:
        raise RuntimeError("boom")

    assert run_guarded(interrupted, want_json=False, codes=DEV_CODES) == 1
    assert "hint: continue with: aidevloop resume" in capsys.readouterr().err
    assert run_guarded(bug, want_json=False, codes=DEV_CODES) == 3
    assert run_guarded(lambda: 1, want_json=False, codes=DEV_CODES) == 1


class Breaking(io.StringIO):
    """A text stream whose every write fails with ``error`` (EPIPE: the reader went away)."""

    def __init__(self, error: int = errno.EPIPE) -> None:
        super().__init__()
        self.error = error

    def write(self, text: str) -> int:
        raise OSError(self.error, os.strerror(self.error))


def test_a_gone_stream_calls_on_gone_once_then_drops_silently() -> None:
    calls: list[str] = []
    stream = GuardedStream(Breaking(), lambda: calls.append("gone"))
    assert stream.write("a") == 1
    assert stream.write("b") == 1
    stream.flush()
    assert calls == ["gone"]
    assert stream.gone


def test_other_write_errors_are_not_hidden() -> None:
    stream = GuardedStream(Breaking(errno.ENOSPC), lambda: None)
    with pytest.raises(OSError, match="No space"):
        stream.write("a")


def test_stdout_gone_stops_like_sigpipe_unless_already_stopping() -> None:
    with pytest.raises(Interrupted) as caught:
        stdout_gone()
    assert caught.value.signum == 13
    assert first_interruption() == 13
    forget_interruptions()
    note_interruption(1)  # a hang-up came first: stdout failing after it changes nothing
    stdout_gone()
    assert first_interruption() == 1


def test_stdout_reader_gone_during_a_command_is_141_and_json_on_stderr_is_not_needed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdout", Breaking())

    def body() -> int:
        sys.stdout.write("agent text\n")
        return 0

    assert run_guarded(body, want_json=False) == 141
    assert capsys.readouterr().err == ""  # issue 49: quiet, as git and ls are


@pytest.mark.parametrize("want_json", [False, True])
def test_a_closed_reader_ends_quietly_with_its_code_for_each_program(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], want_json: bool
) -> None:
    """Issue 49: ``$(jlgcli runs -q | head -1)`` printed ``error: interrupted by SIGPIPE``."""
    from jlgcli.boundary import DEV_CODES

    def broken_write() -> int:
        raise BrokenPipeError(32, "Broken pipe")  # a write past the guarded streams

    assert run_guarded(broken_write, want_json=want_json) == 141
    assert run_guarded(broken_write, want_json=want_json, codes=DEV_CODES) == 1  # aborted
    monkeypatch.setattr(sys, "stdout", Breaking())

    def printing() -> int:
        print("20261101T000000Z-aa")
        return 0

    assert run_guarded(printing, want_json=want_json) == 141
    assert capsys.readouterr().err == ""

    def interrupted() -> int:  # any other signal is still said
        raise KeyboardInterrupt

    forget_interruptions()
    assert run_guarded(interrupted, want_json=False) == 130
    assert "error: interrupted" in capsys.readouterr().err


def test_a_broken_stderr_changes_neither_the_code_nor_the_json(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stderr", Breaking())

    def body() -> int:
        sys.stderr.write("[jlgcli] progress\n")
        raise JlgError(4, "max iterations")

    assert run_guarded(body, want_json=True) == 4
    assert json.loads(capsys.readouterr().out)["exitCode"] == 4


def test_a_closed_descriptor_is_reopened_on_the_null_device() -> None:
    fd = os.open(os.devnull, os.O_RDONLY)
    os.close(fd)  # now closed: the next open would take this number
    try:
        assert reopen_closed_descriptors((fd,)) == [fd]
        os.fstat(fd)  # open again
        assert reopen_closed_descriptors((fd,)) == []
    finally:
        os.close(fd)


def test_streams_are_restored_after_the_command() -> None:
    before = sys.stdout, sys.stderr
    run_guarded(lambda: 0, want_json=False)
    assert (sys.stdout, sys.stderr) == before
