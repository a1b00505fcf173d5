"""Issue 43: redaction never changes a decision, and every event line stays the same JSON.

Event lines of the four CLIs' shapes (research/backends.md section 5: claude
stream-json, codex ``exec --json``, gemini stream-json with its message deltas,
copilot session events with message deltas) carry replies made of look-alikes
(``password =`` in code, ``token:`` in YAML, ``secret`` in prose), secrets and
arbitrary text, in every string field. After the stream redactor (read in
arbitrary chunks): every line parses, with the same structure; no secret's body
is left; and when the reply holds nothing to mask, the parser's result (text,
verdict, kind, session id, cost, denials) and the marker and json completion
verdicts are those of the unredacted stream. A reply holding a secret still
completes as it would have.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from jlgcli.artifacts.redact import Redactor
from jlgcli.backends.claude import ClaudeParser
from jlgcli.backends.codex import CodexParser
from jlgcli.backends.copilot import CopilotParser
from jlgcli.backends.gemini import GeminiParser
from jlgcli.backends.stream import JsonStreamParser
from jlgcli.completion import decide
from jlgcli.process.model import ProcessOutcome, StopReason

SID = "729cdb41-4b3a-41eb-94f8-35c81d4c2e78"
LOOK_ALIKES = [
    'password = os.environ["DB_PASSWORD"]',
    "token: str",
    "api_key: Optional[str] = None",
    "secret: ${{ secrets.DEPLOY_KEY }}",
    "the secret is to keep going",
    'if password == "":',
    "password_hash = bcrypt(password)",
    "def get_token(self) -> str:",
    "  token: ${TOKEN}",
    "pass the key to sort()",
    "`curl -u $USER:$PASS`",
    "C:\\Users\\dev\\new\\token.txt",
    'tab\there, quote" and back\\slash',
]
SECRETS = [
    ("password=hunter2", "hunter2"),
    ('x = "password=hunter2"', "hunter2"),
    ("API_TOKEN=abcdefghijklmnop12", "abcdefghijklmnop12"),
    ("client_secret: Zq7Xw2Lm9Pk4Rt6V", "Zq7Xw2Lm9Pk4Rt6V"),
    ("use sk-ant-api03-Zq7Xw2Lm9Pk4Rt6Vb8Nc3Hd5Jf1Gs0Ya now", "Zq7Xw2Lm9Pk4Rt6Vb8Nc3Hd5"),
    ("Authorization: Bearer Zq7Xw2Lm9Pk4Rt6Vb8Nc3", "Zq7Xw2Lm9Pk4Rt6Vb8Nc3"),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAzq7Xw2Lm9Pk4\n"
        "-----END RSA PRIVATE KEY-----",
        "MIIEowIBAAKCAQEAzq7Xw2Lm9Pk4",
    ),
]
ENDINGS = ["DONE", "not yet", '{"status": "done", "summary": "ok"}', '{"status": "continue"}']


def claude(reply: str) -> list[dict[str, Any]]:
    return [
        {"type": "system", "subtype": "init", "session_id": SID, "tools": ["Bash"]},
        {"type": "assistant", "session_id": SID,
         "message": {"role": "assistant", "content": [{"type": "text", "text": reply}]}},
        {"type": "result", "subtype": "success", "is_error": False, "result": reply,
         "session_id": SID, "num_turns": 1, "total_cost_usd": 0.0123},
    ]  # fmt: skip


def codex(reply: str) -> list[dict[str, Any]]:
    return [
        {"type": "thread.started", "thread_id": SID},
        {"type": "turn.started"},
        {"type": "item.completed",
         "item": {"id": "item_0", "type": "agent_message", "text": reply}},
        {"type": "turn.completed",
         "usage": {"input_tokens": 10, "cached_input_tokens": 0, "output_tokens": 5}},
    ]  # fmt: skip


def gemini(reply: str) -> list[dict[str, Any]]:
    half = len(reply) // 2
    return [
        {"type": "init", "timestamp": "2026-11-22T01:49:53.233Z", "session_id": SID,
         "model": "auto"},
        *({"type": "message", "timestamp": "2026-11-22T01:49:54.000Z", "role": "assistant",
           "content": piece, "delta": True} for piece in (reply[:half], reply[half:])),
        {"type": "result", "timestamp": "2026-11-22T01:49:55.000Z", "status": "success",
         "stats": {"total_tokens": 15, "input_tokens": 10, "output_tokens": 5, "tool_calls": 0}},
    ]  # fmt: skip


def copilot(reply: str) -> list[dict[str, Any]]:
    half = len(reply) // 2
    return [
        {"type": "session.start", "data": {"sessionId": SID, "version": 1}, "id": "e0"},
        *({"type": "assistant.message_delta", "data": {"messageId": "m", "deltaContent": piece},
           "id": "e1", "ephemeral": True} for piece in (reply[:half], reply[half:])),
        {"type": "assistant.message", "data": {"messageId": "m", "content": reply,
                                                "toolRequests": []}, "id": "e2"},
        {"type": "result", "sessionId": SID, "exitCode": 0, "usage": {"premiumRequests": 1}},
    ]  # fmt: skip


CLIS: dict[str, tuple[Callable[[str], list[dict[str, Any]]], type[JsonStreamParser]]] = {
    "claude": (claude, ClaudeParser),
    "codex": (codex, CodexParser),
    "gemini": (gemini, GeminiParser),
    "copilot": (copilot, CopilotParser),
}


def shape(value: Any) -> Any:
    """The structure of a JSON value: its keys and types, strings left out."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    return type(value).__name__ if isinstance(value, str) else value


def redacted_stream(raw: str, cuts: list[int]) -> str:
    data = raw.encode()
    bounds = sorted({min(cut, len(data)) for cut in cuts} | {0, len(data)})
    stream = Redactor(environ={}).stream()
    out = b"".join(stream.feed(data[lo:hi]) for lo, hi in itertools.pairwise(bounds))
    return (out + stream.flush()).decode()


def decisions(parser: JsonStreamParser, stdout: str) -> tuple[Any, ...]:
    parser.feed("stdout", stdout)
    result = parser.finish(ProcessOutcome(0, None, StopReason.EXITED, 1.0))
    return (
        result.ok, result.text, result.error_kind, result.error, result.session_id,
        result.cost_usd, result.rate_limited, result.denials,
        decide("marker", result.text).status, decide("json", result.text).status,
    )  # fmt: skip


prose = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30
).filter(lambda text: Redactor(environ={}).redact(text) == text)
fragment = st.one_of(st.sampled_from(LOOK_ALIKES), prose)
separator = st.sampled_from(["\n", " ", "\t", "\n\n", ": "])


@st.composite
def replies(draw: st.DrawFn) -> tuple[str, list[str]]:
    parts = draw(st.lists(st.tuples(fragment, separator), max_size=6))
    secrets = draw(st.lists(st.sampled_from(SECRETS), max_size=2))
    at = [draw(st.integers(0, len(parts))) for _ in secrets]
    text = [a + b for a, b in parts]
    for position, (secret, _) in sorted(zip(at, secrets, strict=True), reverse=True):
        text.insert(position, secret + "\n")
    reply = "".join(text) + "\n" + draw(st.sampled_from(ENDINGS))
    return reply, [body for _, body in secrets]


@settings(max_examples=80, deadline=None)
@given(
    cli=st.sampled_from(sorted(CLIS)),
    reply=replies(),
    cuts=st.lists(st.integers(0, 3000), max_size=5),
)
def test_lines_stay_json_secrets_are_masked_and_decisions_do_not_change(
    cli: str, reply: tuple[str, list[str]], cuts: list[int]
) -> None:
    text, secrets = reply
    make, parser = CLIS[cli]
    raw = "".join(json.dumps(event) + "\n" for event in make(text))
    out = redacted_stream(raw, cuts)
    before = [json.loads(line) for line in raw.splitlines()]
    after = [json.loads(line) for line in out.splitlines()]
    assert [shape(event) for event in after] == [shape(event) for event in before]
    for body in secrets:
        assert body not in out, (body, out)
    said, heard = decisions(parser(), raw), decisions(parser(), out)
    if not secrets and Redactor(environ={}).redact(text) == text:
        assert out == raw
        assert heard == said
    else:  # masked, and still read the same way: done stays done
        assert heard[0] == said[0] and heard[2:3] == said[2:3] and heard[4:] == said[4:], (
            heard,
            said,
        )
