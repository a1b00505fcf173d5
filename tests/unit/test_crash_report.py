"""Crash logs: unique names, redacted argv and messages (issue 15)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from jlgcli import crash

KEY = "sk-ant-api03-" + "C" * 24


@pytest.fixture
def log_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(crash, "crash_dir", lambda: tmp_path)
    return tmp_path


def _boom(message: str) -> BaseException:
    try:
        raise RuntimeError(message)
    except RuntimeError as exc:
        return exc


def test_argv_and_message_are_redacted(log_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["jlgcli", "loop", f"--backend-arg=--api-key={KEY}"])
    path = crash.write_crash_report(_boom("cannot reach postgres://admin:pw12345@db/app"))
    text = path.read_text(encoding="utf-8")
    assert path.parent == log_dir
    assert KEY not in text and "pw12345" not in text
    assert "--backend-arg=--api-key=[REDACTED]" in text
    assert "RuntimeError" in text


def test_two_crashes_in_the_same_second_keep_two_logs(
    log_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    epoch = crash.time.gmtime(0)
    monkeypatch.setattr(crash.time, "gmtime", lambda *_: epoch)
    first = crash.write_crash_report(_boom("first"))
    second = crash.write_crash_report(_boom("second"))
    assert first != second
    assert "first" in first.read_text() and "second" in second.read_text()
    assert len(list(log_dir.glob("crash-*.log"))) == 2


def test_an_existing_file_is_never_overwritten(
    log_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = iter(["crash-same.log", "crash-same.log"])
    monkeypatch.setattr(crash, "crash_log_name", lambda: next(names))
    crash.write_crash_report(_boom("kept"))
    with pytest.raises(FileExistsError):
        crash._write_new(log_dir / "crash-same.log", b"x")
    assert "kept" in (log_dir / "crash-same.log").read_text()


def test_a_key_behind_an_escaped_newline_in_the_message_is_redacted(log_dir: Path) -> None:
    # issue 32: repr() of a message writes a newline as \n, gluing it to the key
    key = "sk-ant-api03-" + "CrashKey0123456789ABCDEFabcdef"
    error = _boom(repr(f"config:\n{key}\n"))
    text = crash.write_crash_report(error).read_text(encoding="utf-8")
    assert "\\n" + key not in text and key[13:] not in text
    assert "[REDACTED]" in text
