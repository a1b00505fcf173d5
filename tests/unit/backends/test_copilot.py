"""copilot adapter: JSONL session-event parser, argv per option, token/login probes (F-002)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jlgcli.backends.base import BackendRequest
from jlgcli.backends.copilot import CopilotBackend, CopilotParser, check_login, gh_config_dirs
from jlgcli.backends.probing import ProbeContext

from .conftest import lines, parse

AUTH_ERROR = (
    "Error: No authentication information found.\n"
    "Copilot can be authenticated with GitHub using an OAuth Token or a Fine-Grained Personal "
    "Access Token.\n"
)


def event(kind: str, **data: object) -> str:
    return json.dumps({"type": kind, "data": data, "id": "e", "timestamp": "2026-01-01T00:00:00Z"})


def final(code: int = 0, **extra: object) -> str:
    return json.dumps(
        {
            "type": "result",
            "timestamp": 1,
            "sessionId": "s-1",
            "exitCode": code,
            "usage": {"premiumRequests": 1, "codeChanges": {}},
            **extra,
        }
    )


SUCCESS = lines(
    event("session.start", sessionId="s-0"),
    event("user.message", content="do it"),
    event("assistant.turn_start", turnId="0"),
    event("assistant.message", messageId="m1", content="Looking.", toolRequests=[{"name": "view"}]),
    event("tool.execution_start", toolCallId="c1", toolName="view", arguments={"path": "a.py"}),
    event("tool.execution_complete", toolCallId="c1", success=True),
    event("assistant.message_delta", messageId="m2", deltaContent="Done."),
    event("assistant.message_delta", messageId="m2", deltaContent="\nDONE"),
    event("assistant.message", messageId="m2", content="Done.\nDONE", toolRequests=[]),
    event("assistant.turn_end", turnId="0"),
    final(),
)


def test_success_stream() -> None:
    parsed = parse(CopilotParser(), SUCCESS)
    r = parsed.result
    assert r.ok and r.text == "Done.\nDONE" and r.session_id == "s-1"
    assert r.extra["premium_requests"] == "1" and r.cost_usd is None and r.input_tokens is None
    assert parsed.shown == "Looking.\n[tool] view a.py\nDone.\nDONE\n"


def test_recorded_auth_error_is_plain_text_on_stderr() -> None:
    r = parse(CopilotParser(), "", AUTH_ERROR, code=1).result
    assert not r.ok and r.error_kind == "auth" and "No authentication" in (r.error or "")


def test_exit_code_one_in_result() -> None:
    stream = lines(
        event("session.error", errorType="model_call", message="Execution failed: 500"), final(1)
    )
    parsed = parse(CopilotParser(), stream, code=1)
    assert not parsed.result.ok and parsed.result.error == "Execution failed: 500"
    assert parsed.result.error_kind == "backend"
    assert "[copilot] error: Execution failed: 500" in parsed.shown


def test_rate_limit_session_error() -> None:
    message = "Sorry, you've hit a rate limit. Please try again in 30 seconds."
    stream = lines(event("session.error", errorType="rate_limit", message=message), final(1))
    r = parse(CopilotParser(), stream, code=1).result
    assert r.error_kind == "rate-limit" and r.rate_limited and r.rate_limit_reset is not None


def test_blocked_outcome() -> None:
    r = parse(
        CopilotParser(), lines(final(1, outcome="blocked", blocker="session limit")), code=1
    ).result
    assert (
        not r.ok and "blocked: session limit" in (r.error or "") and r.extra["outcome"] == "blocked"
    )


def test_failure_without_session_error_uses_stderr() -> None:
    r = parse(CopilotParser(), lines(final(1)), "something odd\n", code=1).result
    assert not r.ok and "something odd" in (r.error or "")


def test_warning_and_unknown_events() -> None:
    stream = lines(event("session.warning", message="Permission denied"), event("x.y"), final())
    parsed = parse(CopilotParser(), stream)
    assert parsed.shown == "[copilot] warning: Permission denied\n" and parsed.result.ok


def test_truncated_and_silent_exit() -> None:
    truncated = parse(CopilotParser(), '{"type":"assistant.message","data":{"mess', code=1).result
    assert truncated.error_kind == "protocol"
    silent = parse(CopilotParser(), "", code=0).result  # copilot-cli#3189: exits silently
    assert not silent.ok and silent.error_kind == "protocol"


# -- invocation -----------------------------------------------------------------------------
BASE = ("copilot", "--output-format", "json", "--no-color", "--no-auto-update")
# issue 34: edit and read-only allow no shell, no URL tool and no MCP server
# (docs.github.com, Copilot CLI command reference: --deny-tool, --disable-builtin-mcps).
NO_SHELL = ("--deny-tool", "shell", "--deny-tool", "url", "--disable-builtin-mcps")
EDIT = ("--allow-all-tools", *NO_SHELL)


@pytest.mark.parametrize(
    ("fields", "tail"),
    [
        ({}, EDIT),
        ({"permissions": "read-only"}, ("--allow-all-tools", "--deny-tool", "write", *NO_SHELL)),
        ({"permissions": "edit"}, EDIT),
        ({"permissions": "full"}, ("--allow-all",)),
        ({"model": "gpt-5"}, (*EDIT, "--model", "gpt-5")),
        ({"resume_session": "s-1"}, (*EDIT, "--resume=s-1")),
        ({"extra_args": ("--log-level", "error")}, (*EDIT, "--log-level", "error")),
    ],
)
def test_invocation_argv(fields: dict[str, object], tail: tuple[str, ...]) -> None:
    inv = CopilotBackend().invocation(BackendRequest(prompt="p", cwd="/w", **fields))  # type: ignore[arg-type]
    assert inv.argv == BASE + tail and inv.stdin == "p" and "-p" not in inv.argv
    assert dict(inv.env) == {"COPILOT_AUTO_UPDATE": "false"}  # pinned for the run (issue 34)


def test_edit_disables_every_configured_mcp_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Servers from ~/.copilot/mcp-config.json and the project's .mcp.json are switched off."""
    home = tmp_path / "copilot-home"
    home.mkdir()
    (home / "mcp-config.json").write_text(
        json.dumps({"mcpServers": {"calendar": {}, "-x": {}}}), encoding="utf-8"
    )
    project = tmp_path / "project"
    project.mkdir()
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"docs": {}, "calendar": {}}}), encoding="utf-8"
    )
    monkeypatch.setenv("COPILOT_HOME", str(home))
    argv = CopilotBackend().invocation(BackendRequest(prompt="p", cwd=str(project))).argv
    assert argv[-4:] == ("--disable-mcp-server", "calendar", "--disable-mcp-server", "docs")
    assert "-x" not in argv  # never a name that reads as a flag
    full = BackendRequest(prompt="p", cwd=str(project), permissions="full")
    assert "--disable-mcp-server" not in CopilotBackend().invocation(full).argv


# -- probes ---------------------------------------------------------------------------------
def ctx(env: dict[str, str]) -> ProbeContext:
    return ProbeContext("copilot", 0.0, env)


@pytest.mark.parametrize("name", ["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"])
def test_token_variables(name: str, tmp_path: Path) -> None:
    assert check_login(ctx({name: "github_pat_x", "HOME": str(tmp_path)})).state == "ok"


def test_classic_token_is_refused(tmp_path: Path) -> None:
    verdict = check_login(ctx({"GH_TOKEN": "ghp_abc", "HOME": str(tmp_path)}))
    assert verdict.state == "missing" and "classic" in verdict.detail


@pytest.mark.parametrize("key", ["loggedInUsers", "logged_in_users"])
def test_stored_copilot_login(tmp_path: Path, key: str) -> None:
    (tmp_path / ".copilot").mkdir()
    (tmp_path / ".copilot" / "config.json").write_text(
        f'// written by copilot\n{{"{key}": [{{"host": "https://github.com", "login": "me"}}]}}',
        encoding="utf-8",
    )
    assert check_login(ctx({"HOME": str(tmp_path)})).state == "ok"
    assert (
        check_login(ctx({"HOME": str(tmp_path), "COPILOT_HOME": str(tmp_path)})).state == "missing"
    )


def test_gh_login_and_byok(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    assert check_login(ctx(env)).state == "missing"
    (tmp_path / "cfg" / "gh").mkdir(parents=True)
    (tmp_path / "cfg" / "gh" / "hosts.yml").write_text(
        "github.com:\n    user: me\n", encoding="utf-8"
    )
    assert check_login(ctx(env)).state == "ok"
    byok = check_login(ctx({"HOME": str(tmp_path), "COPILOT_PROVIDER_BASE_URL": "http://x"}))
    assert byok.state == "ok"


def test_gh_config_dirs_per_platform() -> None:
    assert gh_config_dirs({"GH_CONFIG_DIR": "/g"}, is_windows=False) == [Path("/g")]
    assert gh_config_dirs({"APPDATA": r"C:\Users\me\AppData\Roaming"}, is_windows=True) == [
        Path(r"C:\Users\me\AppData\Roaming") / "GitHub CLI"
    ]
    assert gh_config_dirs({"HOME": "/h"}, is_windows=False) == [Path("/h/.config/gh")]


def test_probe_through_the_fake(monkeypatch: pytest.MonkeyPatch) -> None:
    assert CopilotBackend().probe().status == "unauthenticated"  # isolated HOME, no token
    monkeypatch.setenv("COPILOT_GITHUB_TOKEN", "github_pat_test")
    a = CopilotBackend().probe()
    assert (a.status, a.version) == ("available", "1.0.102")
    monkeypatch.setenv("JLGCLI_FAKE_VERSION", "0.0.330")
    assert CopilotBackend().probe().status == "unsupported"
