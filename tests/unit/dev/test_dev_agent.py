"""The agent protocol over the real backend registry and process layer (seed 003 FR-6).

Runs the scripted fake ``claude`` from ``tests/fakes`` (first on PATH) through
the real spawn path, and a custom command backend from a ``.jlgcli.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from jlgcli.config.write import trust_files
from jlgcli.dev.agent import BackendAgent, custom_backends_for
from jlgcli.errors import DevExitCode, JlgError


def script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *turns: dict[str, object]) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": list(turns), "repeat_last": False}), encoding="utf-8")
    monkeypatch.setenv("JLGCLI_FAKE_SCRIPT", str(path))
    return path


def test_call_edits_files_and_streams_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = script(
        tmp_path,
        monkeypatch,
        {"text": "notes written", "files": {"context/implementation-notes.md": "## Summary\n"}},
    )
    work = tmp_path / "work"
    work.mkdir()
    shown: list[str] = []
    agent = BackendAgent("claude", on_text=shown.append)
    agent.check()
    reply = agent.call("implement TASK-001", work)
    assert reply.ok, reply.error
    assert reply.text == "notes written"
    assert "claude" in reply.command
    assert (work / "context" / "implementation-notes.md").read_text() == "## Summary\n"
    assert "".join(shown).strip().endswith("notes written")
    prompts = Path(f"{path}.prompts")
    assert (prompts / "000.txt").read_text() == "implement TASK-001"
    argv = json.loads((prompts / "000.argv.json").read_text())
    assert "acceptEdits" in argv  # permissions="edit"


def test_failed_call_is_a_reply_not_an_exception(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script(tmp_path, monkeypatch, {"text": "", "error": "backend"})
    reply = BackendAgent("claude").call("x", tmp_path)
    assert not reply.ok
    assert reply.error


def test_logged_out_backend_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JLGCLI_FAKE_LOGGED_OUT", "1")
    with pytest.raises(JlgError) as info:
        BackendAgent("claude").check()
    assert info.value.code == DevExitCode.CONFIGURATION
    assert "llm claude is not logged in" in info.value.message


def test_missing_cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(JlgError) as info:
        BackendAgent("copilot").check()
    assert "llm copilot is not installed" in info.value.message
    reply = BackendAgent("copilot").call("x", tmp_path)
    assert not reply.ok and "backend copilot is not installed" in (reply.error or "")


def test_unknown_backend_id() -> None:
    with pytest.raises(JlgError) as info:
        BackendAgent("nope").check()
    assert info.value.code == DevExitCode.CONFIGURATION


WRITER = (
    "import pathlib, sys; prompt = sys.stdin.read(); "
    "pathlib.Path('context').mkdir(exist_ok=True); "
    "pathlib.Path('context/implementation-notes.md').write_text('notes for ' + prompt[:8]); "
    "print('wrote the notes')"
)


def test_custom_command_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".jlgcli.json").write_text(
        json.dumps({"backends": {"mine": {"argv": [sys.executable, "-c", WRITER]}}}),
        encoding="utf-8",
    )
    assert custom_backends_for("claude", tmp_path) == {}
    trust_files([tmp_path / ".jlgcli.json"])  # issue 15: a project's commands run once trusted
    custom = custom_backends_for("mine", tmp_path)
    assert "mine" in custom
    agent = BackendAgent("mine", custom=custom)
    agent.check()
    reply = agent.call("TASK-001 please", tmp_path)
    assert reply.ok, reply.error
    assert "wrote the notes" in reply.text
    assert (tmp_path / "context" / "implementation-notes.md").read_text() == "notes for TASK-001"


def test_refused_invocation_is_a_failed_reply(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from jlgcli.backends.registry import get_backend

    agent = BackendAgent("claude")
    backend = get_backend("claude")

    def refuse(_self: object, request: object) -> object:
        raise JlgError(64, "prompt too long for the command line", "use a file")

    monkeypatch.setattr(type(backend), "invocation", refuse)  # the core opens its own
    reply = agent.call("x", tmp_path)
    assert (reply.ok, reply.error) == (False, "prompt too long for the command line (use a file)")


def test_process_layer_refusal_is_a_failed_reply(tmp_path: Path) -> None:
    reply = BackendAgent("claude").call("x", tmp_path / "missing-dir")
    assert not reply.ok
    assert reply.error is not None and "is not a directory" in reply.error


def test_each_call_is_a_recorded_run_with_its_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 13: a dev agent call is a run of the core: recorded, with cost and tokens."""
    script(tmp_path, monkeypatch, {"text": "done"})  # the fake claude reports $0.0123
    reply = BackendAgent("claude").call("x", tmp_path)
    assert reply.ok and reply.run_id
    assert reply.cost_usd == pytest.approx(0.0123)
    result = json.loads((tmp_path / ".jlgcli" / "runs" / reply.run_id / "result.json").read_text())
    assert result["command"] == "run" and result["costUsd"] == pytest.approx(0.0123)


def test_a_hanging_agent_is_stopped_by_the_run_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 13: without agent.timeoutSeconds a dev call still gets the run's idle timeout
    (here set through the config layer, JLGCLI_IDLE_TIMEOUT_MS, as a user would)."""
    script(tmp_path, monkeypatch, {"hang": True})
    monkeypatch.setenv("JLGCLI_FAKE_HANG_MAX", "60")
    monkeypatch.setenv("JLGCLI_IDLE_TIMEOUT_MS", "1500")
    reply = BackendAgent("claude").call("x", tmp_path)
    assert not reply.ok and "printed nothing for too long" in (reply.error or "")


def test_a_short_rate_limit_is_waited_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 13: a dev-loop call that hits a rate limit waits like a loop does."""
    path = script(tmp_path, monkeypatch, {"error": "rate-limit", "reset_in_seconds": 1},
                  {"text": "implemented"})  # fmt: skip
    lines: list[str] = []
    reply = BackendAgent("claude", on_line=lines.append).call("x", tmp_path)
    assert reply.ok and reply.text == "implemented"
    assert len(list(Path(f"{path}.prompts").glob("[0-9][0-9][0-9].txt"))) == 2
    assert any("rate-limited" in line and "waiting" in line for line in lines)
