"""The error boundary of ``jlgcli.cli.main`` (DESIGN "exit codes", seed 001 §14)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jlgcli import cli
from jlgcli.errors import ExitCode, JlgError


def test_version_fast_path(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("jlgcli ")


def test_no_arguments_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == 0
    assert "commands:" in capsys.readouterr().out


def test_expected_error_prints_message_and_hint(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fail(args: object) -> int:
        raise JlgError(ExitCode.NO_INPUT, "prompt file not found: x.md", "check the path")

    monkeypatch.setattr(cli, "_dispatch", fail)
    assert cli.main(["config", "show"]) == 66
    err = capsys.readouterr().err
    assert "error: prompt file not found: x.md" in err
    assert "hint: check the path" in err
    assert "Traceback" not in err


def test_expected_error_as_json(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fail(args: object) -> int:
        raise JlgError(ExitCode.CONFIG, "bad config", "delete it")

    monkeypatch.setattr(cli, "_dispatch", fail)
    assert cli.main(["config", "show", "--json"]) == 78
    payload = json.loads(capsys.readouterr().out)
    assert payload == {
        "error": {"code": 78, "message": "bad config", "hint": "delete it"},
        "exitCode": 78,
    }


def test_usage_error_with_json_flag_is_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["config", "get", "--json", "--bogus"]) == 64
    assert json.loads(capsys.readouterr().out)["exitCode"] == 64


def test_ctrl_c_is_130(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def interrupt(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_dispatch", interrupt)
    assert cli.main(["config", "show"]) == ExitCode.INTERRUPTED
    assert "interrupted" in capsys.readouterr().err


def test_bug_is_70_with_a_crash_log(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def crash(args: object) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "_dispatch", crash)
    monkeypatch.setattr("jlgcli.crash.crash_dir", lambda: tmp_path / "logs")
    assert cli.main(["config", "show"]) == ExitCode.INTERNAL
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: boom" in err
    logs = list((tmp_path / "logs").glob("crash-*.log"))
    assert len(logs) == 1
    content = logs[0].read_text(encoding="utf-8")
    assert "RuntimeError: boom" in content and "jlgcli" in content


def test_broken_pipe_is_sigpipe_not_success(monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 14: a reader that went away never makes an unfinished command exit 0.
    def broken(args: object) -> int:
        raise BrokenPipeError

    monkeypatch.setattr(cli, "_dispatch", broken)
    assert cli.main(["config", "show"]) == 141


def test_print_file_entry(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    message = tmp_path / "final.md"
    message.write_bytes("héllo\nDONE\n".encode())
    assert cli.main(["__jlgcli_print_file__", str(message)]) == 0
    assert capsysbinary.readouterr().out == "héllo\nDONE\n".encode()


def test_configure_streams_windows_branch() -> None:
    calls: list[dict[str, str]] = []

    class Stream:
        def __init__(self, tty: bool) -> None:
            self.tty = tty

        def isatty(self) -> bool:
            return self.tty

        def reconfigure(self, **kwargs: str) -> None:
            calls.append(kwargs)

    from jlgcli.output import configure_streams

    configure_streams(is_windows=True, streams=(Stream(False), Stream(True), object()))
    assert calls == [{"encoding": "utf-8", "errors": "replace"}, {"errors": "replace"}]
