"""capture(): short probes with a deadline that kill the whole tree (F-002, backends.md §7)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jlgcli.process import ExecutableNotFound, capture, resolve_executable
from jlgcli.process.tree import pid_alive


def test_captures_both_streams_and_a_failure_exit_without_raising() -> None:
    result = capture(["sh", "-c", "echo out; echo err >&2; exit 3"], timeout=10)
    assert (result.exit_code, result.stdout, result.stderr) == (3, "out\n", "err\n")
    assert not result.timed_out


def test_stdin_text_is_written_then_closed() -> None:
    result = capture(["fake-agent", "--echo-stdin"], timeout=10, stdin="héllo\nworld")
    assert result.stdout == "héllo\nworld"
    assert result.exit_code == 0


def test_stdin_defaults_to_the_null_device_so_a_reader_gets_eof() -> None:
    # An inherited open stdin would make this wait for input forever (codex, backends.md §7).
    result = capture(["fake-agent", "--echo-stdin"], timeout=10)
    assert (result.exit_code, result.stdout, result.timed_out) == (0, "", False)


def test_env_overrides_and_cwd(tmp_path: Path) -> None:
    result = capture(
        ["sh", "-c", 'echo "$JLG_PROBE_VAR"; pwd'],
        timeout=10,
        cwd=str(tmp_path),
        env={"JLG_PROBE_VAR": "v1"},
    )
    assert result.stdout.splitlines() == ["v1", str(tmp_path)]


def test_timeout_kills_the_tree_and_reports_timed_out() -> None:
    result = capture(["fake-agent", "--hang"], timeout=0.5)
    assert result.timed_out
    assert result.exit_code != 0  # it handled SIGINT and exited 130
    assert "READY" in result.stdout


def test_timeout_reaches_sigkill_when_polite_signals_are_ignored(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    result = capture(
        ["fake-agent", "--ignore-signals", "--spawn-grandchild", str(pidfile), "--hang"],
        timeout=0.5,
    )
    assert result.timed_out
    assert result.exit_code is None  # SIGKILL
    assert not pid_alive(int(pidfile.read_text()))


def test_a_grandchild_holding_the_pipe_does_not_hang_and_is_killed(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    result = capture(["fake-agent", "--spawn-grandchild", str(pidfile)], timeout=60)
    assert not result.timed_out
    assert result.exit_code == 0
    assert "READY" in result.stdout
    assert not pid_alive(int(pidfile.read_text()))


def test_invalid_utf8_is_replaced() -> None:
    result = capture(["fake-agent", "--invalid-utf8"], timeout=10)
    assert "\ufffd" in result.stdout
    assert result.stdout.startswith("bad bytes: ")


def test_missing_executable_raises_with_its_name() -> None:
    with pytest.raises(ExecutableNotFound) as info:
        capture(["no-such-agent-cli"], timeout=5)
    assert info.value.name == "no-such-agent-cli"


def test_empty_argv_is_not_found() -> None:
    with pytest.raises(ExecutableNotFound):
        capture([], timeout=5)


def test_resolve_executable_uses_path_and_returns_an_absolute_path(tmp_path: Path) -> None:
    tool = tmp_path / "mytool"
    tool.write_text("#!/bin/sh\n", encoding="utf-8")
    tool.chmod(0o755)
    found = resolve_executable("mytool", path=str(tmp_path))
    assert found == str(tool)
    assert resolve_executable("mytool", path=os.devnull) is None
    assert resolve_executable("fake-agent") is not None  # the test PATH
