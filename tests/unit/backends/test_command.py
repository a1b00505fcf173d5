"""Custom command backends: config validation (exit 78), placeholders, Windows refusal, parser."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jlgcli.backends.base import BackendRequest
from jlgcli.backends.command import CommandBackend, CommandParser, parse_settings
from jlgcli.errors import ExitCode, JlgError
from jlgcli.process.model import StopReason

from .conftest import parse


def backend(raw: dict[str, Any], *, is_windows: bool = False) -> CommandBackend:
    return CommandBackend("mine", parse_settings("mine", raw), is_windows=is_windows)


@pytest.mark.parametrize(
    ("raw", "where"),
    [
        ({}, "backends.mine.argv"),
        ({"argv": []}, "backends.mine.argv"),
        ({"argv": [" "]}, "backends.mine.argv"),
        ({"argv": ["x"], "prompt": "carrier-pigeon"}, "backends.mine.prompt"),
        ({"argv": ["x"], "transport": "tty"}, "backends.mine.transport"),
        ({"argv": ["x"], "colour": "red"}, "backends.mine.colour"),
        ({"argv": ["x"], "env": {"A": 1}}, "backends.mine.env.A"),
        ({"argv": ["x"], "prompt": "file"}, "backends.mine:"),
        ({"argv": ["x"], "prompt": "argument"}, "backends.mine:"),
        ({"argv": ["x", "{prompt}"]}, "backends.mine:"),
        ({"argv": ["x"], "interactive": {}}, "backends.mine:"),
        ({"argv": ["x"], "env": {"A=B": "c"}}, "backends.mine.env"),  # issue 31: was a 70
        ({"argv": ["x"], "env": {"": "c"}}, "backends.mine.env"),
        ({"argv": ["x"], "env": {"A": "c\0"}}, "backends.mine.env"),
        (
            {"argv": ["x"], "transport": "pty", "interactive": {"done_pattern": "("}},
            "backends.mine.interactive.done_pattern",
        ),
        (
            {"argv": ["x"], "transport": "pty", "interactive": {"idle_seconds": 0}},
            "backends.mine.interactive.idle_seconds",
        ),
    ],
)
def test_invalid_settings_name_the_field(raw: dict[str, Any], where: str) -> None:
    with pytest.raises(JlgError) as caught:
        parse_settings("mine", raw)
    assert caught.value.code == ExitCode.CONFIG
    assert f"invalid custom backend setting {where}" in caught.value.message
    assert caught.value.hint


def test_stdin_prompt() -> None:
    inv = backend({"argv": ["ollama", "run", "llama3"], "env": {"OLLAMA_HOST": "h"}}).invocation(
        BackendRequest(prompt="hi {prompt}", cwd="/w", extra_args=("--verbose",))
    )
    assert inv.argv == ("ollama", "run", "llama3", "--verbose")
    assert inv.stdin == "hi {prompt}" and dict(inv.env) == {"OLLAMA_HOST": "h"}
    assert inv.transport == "pipe" and inv.interactive is None


def test_argument_prompt() -> None:
    b = backend({"argv": ["llm", "--system", "x", "-m={prompt}"], "prompt": "argument"})
    inv = b.invocation(BackendRequest(prompt="say {prompt_file}", cwd="/w"))
    assert inv.argv == ("llm", "--system", "x", "-m=say {prompt_file}") and inv.stdin is None


def test_file_prompt_given_by_the_caller() -> None:
    b = backend({"argv": ["aider", "--message-file", "{prompt_file}"], "prompt": "file"})
    inv = b.invocation(BackendRequest(prompt="p", cwd="/w", prompt_file="/t/p.md"))
    assert inv.argv == ("aider", "--message-file", "/t/p.md") and inv.stdin is None


def test_file_prompt_written_when_missing_and_removed_by_the_next_call() -> None:
    b = backend({"argv": ["aider", "--message-file={prompt_file}"], "prompt": "file"})
    first = b.invocation(BackendRequest(prompt="première ligne\n", cwd="/w"))
    path = Path(first.argv[1].split("=", 1)[1])
    assert path.read_text(encoding="utf-8") == "première ligne\n"
    second = b.invocation(BackendRequest(prompt="two", cwd="/w"))
    assert not path.exists()
    assert Path(second.argv[1].split("=", 1)[1]).read_text(encoding="utf-8") == "two"


def test_interactive_pty() -> None:
    raw = {
        "argv": ["tui-agent"],
        "transport": "pty",
        "interactive": {"ready_pattern": "> $", "done_pattern": "DONE", "idle_seconds": 5},
    }
    inv = backend(raw).invocation(BackendRequest(prompt="p", cwd="/w"))
    assert inv.transport == "pty" and inv.stdin == "p"
    assert inv.interactive is not None and inv.interactive.ready_pattern == "> $"
    assert inv.interactive.idle_seconds == 5 and inv.interactive.submit_sequence == "\r"


def test_argument_prompt_refused_for_a_cmd_shim_on_windows(tmp_path: Path) -> None:
    shim = tmp_path / "agent.cmd"
    shim.write_text("@echo off\r\n", encoding="utf-8")
    b = backend({"argv": [str(shim), "{prompt}"], "prompt": "argument"}, is_windows=True)
    with pytest.raises(JlgError) as caught:
        b.invocation(BackendRequest(prompt="a & b", cwd="/w"))
    assert caught.value.code == ExitCode.USAGE and ".cmd/.bat" in caught.value.message
    shim.chmod(0o755)
    probe = b.probe()
    assert probe.status == "unsupported" and probe.hint and '"stdin"' in probe.hint


def test_probe(system_bin: Path) -> None:
    missing = backend({"argv": ["no-such-agent-xyz"]}).probe()
    assert missing.status == "missing" and "backends.mine.argv" in (missing.hint or "")
    plain = backend({"argv": ["cat"]}).probe()
    assert (plain.status, plain.version) == ("available", None)
    versioned = backend({"argv": ["claude"], "version_args": ["--version"]}).probe()
    assert versioned.version == "2.1.197"
    text = backend({"argv": ["echo"], "version_args": ["agent", "beta"]}).probe()
    assert text.version == "agent beta"


def test_probe_version_hang(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JLGCLI_FAKE_PROBE_HANG", "1")
    a = backend({"argv": ["codex"], "version_args": ["--version"]}).probe(timeout=0.4)
    assert a.status == "unknown"


# -- parser ---------------------------------------------------------------------------------
def test_a_command_that_could_not_start_is_a_backend_error_saying_why() -> None:
    from jlgcli.process.model import ProcessOutcome

    outcome = ProcessOutcome.not_started("my-agent cannot start: Exec format error")
    r = backend({"argv": ["my-agent"]}).parser().finish(outcome)
    assert (r.ok, r.exit_code, r.error_kind) == (False, None, "backend")
    assert r.error == "my-agent cannot start: Exec format error"


def test_plain_text_output() -> None:
    parsed = parse(CommandParser("mine", clean=False), "line one\nDONE\n", "progress\n", chunk=3)
    assert parsed.result.ok and parsed.result.text == "line one\nDONE\n"
    assert parsed.shown == "line one\nDONE\n" and "progress" in parsed.result.output_tail


def test_pty_output_is_cleaned() -> None:
    parsed = parse(CommandParser("mine", clean=True), "\x1b[1mhello\x1b[0m\r\nDONE\r\n")
    assert parsed.result.text == "hello\nDONE\n" and parsed.shown == "hello\nDONE\n"


def test_failure_and_rate_limit() -> None:
    failed = parse(CommandParser("mine", clean=False), "partial\n", "boom\n", code=2).result
    assert (
        not failed.ok
        and failed.error_kind == "backend"
        and failed.error == "mine exited with code 2: boom"
    )
    limited = parse(
        CommandParser("mine", clean=False), "", "Rate limit reached, retry in 20s\n", code=1
    ).result
    assert limited.error_kind == "rate-limit" and limited.rate_limited
    assert limited.rate_limit_reset is not None


def test_stopped_and_interactive_endings() -> None:
    timed_out = parse(CommandParser("m", clean=False), "x", code=None, reason=StopReason.TIMEOUT)
    assert timed_out.result.error_kind == "timeout"
    cancelled = parse(CommandParser("m", clean=False), "x", code=None, reason=StopReason.CANCELLED)
    assert cancelled.result.error_kind is None and not cancelled.result.ok
    ended = parse(CommandParser("m", clean=True, interactive=True), "work done\r\n", code=None)
    assert ended.result.ok and ended.result.text == "work done\n"
