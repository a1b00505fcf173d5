"""gemini adapter: stream-json parser, fatal exit codes, argv per option, auth probes (F-002)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jlgcli.backends.base import BackendRequest
from jlgcli.backends.gemini import GeminiBackend, GeminiParser, check_login
from jlgcli.backends.probing import ProbeContext
from jlgcli.process.model import StopReason

from .conftest import lines, parse

# backends.md §5.3, observed (offline, after ~4.6 min of retries)
INIT = (
    '{"type":"init","timestamp":"2026-11-22T01:49:53.233Z",'
    '"session_id":"729cdb41-4b3a-41eb-94f8-35c81d4c2e78","model":"auto"}'
)
USER = '{"type":"message","timestamp":"2026-11-22T01:49:53.235Z","role":"user","content":"say hi"}'
OFFLINE_RESULT = (
    '{"type":"result","timestamp":"2026-11-22T01:54:29.388Z","status":"error","error":'
    '{"type":"unknown","message":"[API Error: exception TypeError: fetch failed sending request]"},'
    '"stats":{"total_tokens":0,"input_tokens":0,"output_tokens":0,"cached":0,"input":0,'
    '"duration_ms":0,"tool_calls":0,"models":{}}}'
)


def delta(text: str) -> str:
    return json.dumps({"type": "message", "role": "assistant", "content": text, "delta": True})


SUCCESS = lines(
    INIT,
    USER,
    delta("I will write "),
    delta("the file."),
    json.dumps({"type": "tool_use", "tool_name": "write_file", "tool_id": "w1", "parameters": {}}),
    json.dumps({"type": "tool_result", "tool_id": "w1", "status": "success", "output": "ok"}),
    delta("Done."),
    delta("\nDONE"),
    json.dumps(
        {"type": "result", "status": "success", "stats": {"input_tokens": 120, "output_tokens": 30}}
    ),
)


def test_success_keeps_only_the_last_turn() -> None:
    parsed = parse(GeminiParser(), SUCCESS)
    r = parsed.result
    assert r.ok and r.text == "Done.\nDONE"
    assert r.session_id == "729cdb41-4b3a-41eb-94f8-35c81d4c2e78" and r.extra["model"] == "auto"
    assert (r.input_tokens, r.output_tokens) == (120, 30)
    assert parsed.shown == "I will write the file.\n[tool] write_file\nDone.\nDONE\n"


def test_tool_call_as_the_last_thing_keeps_the_previous_turn() -> None:
    stream = lines(
        INIT,
        delta("Answer."),
        json.dumps({"type": "tool_use", "tool_name": "x"}),
        json.dumps({"type": "result", "status": "success"}),
    )
    assert parse(GeminiParser(), stream).result.text == "Answer."


def test_recorded_offline_failure() -> None:
    r = parse(GeminiParser(), lines(INIT, USER, OFFLINE_RESULT), code=1).result
    assert not r.ok and r.error_kind == "backend" and "fetch failed" in (r.error or "")


def test_quota_error_is_a_rate_limit() -> None:
    message = (
        '[API Error: got status: 429 Too Many Requests. {"status": "RESOURCE_EXHAUSTED", '
        '"message": "You exceeded your current quota. Please retry in 37.5s."}]'
    )
    stream = lines(
        INIT,
        json.dumps(
            {"type": "result", "status": "error", "error": {"type": "api", "message": message}}
        ),
    )
    r = parse(GeminiParser(), stream, code=1).result
    assert r.error_kind == "rate-limit" and r.rate_limited and r.rate_limit_reset is not None


@pytest.mark.parametrize(
    ("code", "stderr", "kind", "words"),
    [
        (
            41,
            "Please set an Auth method in your /h/.gemini/settings.json or specify …\n",
            "auth",
            "no usable authentication",
        ),
        (
            42,
            "Error resuming session: No previous sessions found for this project.\n",
            "input",
            "rejected its input",
        ),
        (53, "Reached max session turns for this session.\n", "backend", "max session turns"),
        (
            55,
            "\x1b[31mGemini CLI is not running in a trusted directory.\x1b[0m\n",
            "backend",
            "does not trust",
        ),
    ],
)
def test_fatal_exit_codes(code: int, stderr: str, kind: str, words: str) -> None:
    r = parse(GeminiParser(), "", stderr, code=code).result
    assert not r.ok and r.error_kind == kind and words in (r.error or "")
    assert "\x1b" not in (r.error or "")


def test_success_status_with_nonzero_exit() -> None:
    stream = lines(INIT, json.dumps({"type": "result", "status": "success"}))
    r = parse(GeminiParser(), stream, code=1).result
    assert not r.ok and "exited with code 1" in (r.error or "")


def test_notices() -> None:
    stream = lines(
        INIT,
        json.dumps({"type": "error", "message": "Loop detected"}),
        json.dumps({"type": "tool_result", "status": "error", "error": {"message": "denied"}}),
    )
    stderr = "Attempt 1 failed. Retrying with backoff... Error: fetch failed\nat stack trace\n"
    parsed = parse(GeminiParser(), stream, stderr, code=None, reason=StopReason.TIMEOUT)
    assert "[gemini] Attempt 1 failed." in parsed.shown and "stack" not in parsed.shown
    assert "[gemini] Loop detected\n" in parsed.shown and "[tool] failed: denied\n" in parsed.shown
    assert parsed.result.error_kind == "timeout"


def test_truncated() -> None:
    r = parse(GeminiParser(), lines(INIT) + '{"type":"message","role":"assist', code=1).result
    assert r.error_kind == "protocol"


# -- invocation -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("fields", "tail"),
    [
        ({}, ()),
        ({"model": "gemini-2.5-pro"}, ("-m", "gemini-2.5-pro")),
        ({"permissions": "read-only"}, ("--approval-mode", "plan")),
        ({"permissions": "edit"}, ("--approval-mode", "auto_edit")),
        ({"permissions": "full"}, ("--approval-mode", "yolo")),
        ({"extra_args": ("--raw-output",)}, ("--raw-output",)),
    ],
)
def test_invocation_argv(fields: dict[str, object], tail: tuple[str, ...]) -> None:
    inv = GeminiBackend().invocation(BackendRequest(prompt="p", cwd="/w", **fields))  # type: ignore[arg-type]
    assert inv.argv == ("gemini", "-o", "stream-json", *tail) and inv.stdin == "p"
    assert dict(inv.env) == {"GEMINI_CLI_TRUST_WORKSPACE": "true"}


def test_resume_by_session_id() -> None:
    # issue 34: gemini 0.61 resumes by uuid (sessionUtils.ts; the init event repeats the id)
    inv = GeminiBackend().invocation(BackendRequest(prompt="p", cwd="/w", resume_session="s1"))
    assert inv.argv[-2:] == ("--resume", "s1") and inv.stdin == "p"
    assert GeminiBackend.resume_since == (0, 61, 0)


# -- probes ---------------------------------------------------------------------------------
def ctx(env: dict[str, str]) -> ProbeContext:
    return ProbeContext("gemini", 0.0, env)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_auth_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "home"
    env = {"HOME": str(home)}
    assert check_login(ctx(env)).state == "missing"
    assert check_login(ctx({**env, "GEMINI_API_KEY": "k"})).state == "ok"
    vertex = {**env, "GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "p"}
    assert check_login(ctx(vertex)).state == "ok"
    assert check_login(ctx({**env, "GOOGLE_GENAI_USE_GCA": "true"})).state == "ok"
    write(
        home / ".gemini" / "settings.json",
        '{"security": {"auth": {"selectedType": "gemini-api-key"}}}',
    )
    assert check_login(ctx(env)).state == "missing"
    write(home / ".gemini" / ".env", "export GEMINI_API_KEY=abc\n")
    assert check_login(ctx(env)).state == "ok"


def test_oauth_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "h"
    write(home / ".gemini" / "settings.json", '{"selectedAuthType": "oauth-personal"}')
    assert check_login(ctx({"HOME": str(home)})).state == "missing"
    write(home / ".gemini" / "oauth_creds.json", "{}")
    assert check_login(ctx({"HOME": str(home)})).state == "ok"
    moved = tmp_path / "moved"
    write(moved / ".gemini" / "oauth_creds.json", "{}")
    assert check_login(ctx({"HOME": str(home / "x"), "GEMINI_CLI_HOME": str(moved)})).state == "ok"


def test_project_dotenv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "proj" / ".env", "GEMINI_API_KEY=abc\n")
    (tmp_path / "proj" / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "proj" / "sub")
    assert check_login(ctx({"HOME": str(tmp_path / "h")})).state == "ok"


def test_probe_through_the_fake(monkeypatch: pytest.MonkeyPatch) -> None:
    assert GeminiBackend().probe().status == "unauthenticated"
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    a = GeminiBackend().probe()
    assert (a.status, a.version) == ("available", "0.61.0")
    monkeypatch.setenv("JLGCLI_FAKE_PROBE_HANG", "1")
    assert GeminiBackend().probe(timeout=0.4).status == "unknown"
