"""Issue 43: a secret cut across two delta events is masked in both.

The CLIs stream replies as delta events (research/backends.md §5: gemini
``message{content, delta:true}`` from its StreamJsonFormatter, claude
``stream_event`` content_block_delta with ``--include-partial-messages``,
copilot ``assistant.message_delta{deltaContent}``, codex ``item.plan.delta``).
A key whose halves arrive in two events must leave no part of its body in the
redacted stream, however the stream is cut into reads, and every line must
still parse with its structure unchanged.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jlgcli.artifacts.deltas import delta_text
from jlgcli.artifacts.redact import MASK, Redactor

BODY = "Zq7Xw2Lm9Pk4Rt6Vb8Nc3Hd5Jf1Gs0Ya"
KEY = "sk-ant-api03-4oalek" + BODY + BODY + "AA"
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA" + BODY + "\n" + BODY[::-1] + "\n"
    "-----END RSA PRIVATE KEY-----"
)


def gemini(text: str) -> dict[str, Any]:
    return {"type": "message", "timestamp": "2026-11-22T01:49:53.235Z", "role": "assistant",
            "content": text, "delta": True}  # fmt: skip


def claude(text: str) -> dict[str, Any]:
    return {"type": "stream_event", "event": {"type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": text}}, "session_id": "s-1"}  # fmt: skip


def copilot(text: str) -> dict[str, Any]:
    return {"type": "assistant.message_delta", "data": {"messageId": "m1", "deltaContent": text},
            "id": "e1", "ephemeral": True}  # fmt: skip


def codex(text: str) -> dict[str, Any]:
    return {"type": "item.plan.delta", "item_id": "item_1", "delta": text}


SHAPES: dict[str, Callable[[str], dict[str, Any]]] = {
    "gemini": gemini, "claude": claude, "copilot": copilot, "codex": codex,
}  # fmt: skip


def redact_stream(chunks: list[bytes]) -> bytes:
    stream = Redactor(environ={}).stream()
    return b"".join(stream.feed(chunk) for chunk in chunks) + stream.flush()


def events(shape: Callable[[str], dict[str, Any]], pieces: list[str]) -> bytes:
    lines = [json.dumps(shape(piece)) for piece in pieces]
    lines.append(json.dumps({"type": "result", "status": "success", "session_id": "s-1"}))
    return ("\n".join(lines) + "\n").encode()


def texts(out: bytes) -> list[Any]:
    return [json.loads(line) for line in out.decode().splitlines()]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("at", [3, 9, 15, 40, len(KEY) - 2])
def test_a_key_split_across_two_delta_events_is_masked_in_both(shape: str, at: int) -> None:
    raw = events(SHAPES[shape], ["key " + KEY[:at], KEY[at:] + "\n", "DONE"])
    out = redact_stream([raw])
    assert KEY[at:][-12:] not in out.decode() and BODY not in out.decode()
    before, after = texts(raw), texts(out)
    assert len(after) == len(before) == 4
    assert after[-1] == before[-1] and after[2] == before[2]  # the marker and the result


@pytest.mark.parametrize("shape", SHAPES)
def test_a_key_in_many_small_pieces_and_a_key_block_across_events(shape: str) -> None:
    pieces = ["Here: "] + [KEY[i : i + 4] for i in range(0, len(KEY), 4)] + [" and\n"]
    pieces += [PEM[i : i + 7] for i in range(0, len(PEM), 7)] + ["\nDONE"]
    out = redact_stream([events(SHAPES[shape], pieces)]).decode()
    for part in (BODY[4:16], BODY[::-1][4:16], "MIIEow"):
        assert part not in out.replace(MASK, "")
    assert json.loads(out.splitlines()[-2]) == SHAPES[shape]("\nDONE")


def test_a_bearer_credential_after_its_scheme_in_the_previous_piece() -> None:
    out = redact_stream([events(gemini, ["Authorization: Bearer ", BODY + BODY + "\n"])])
    assert BODY not in out.decode()


def test_pieces_without_a_secret_are_left_as_they_are() -> None:
    pieces = ["the pass", "word field ", "is what the tok", "en: str annotation holds\n", "DONE"]
    raw = events(gemini, pieces)
    assert redact_stream([raw]) == raw


def test_delta_text_finds_only_a_delta_events_text() -> None:
    line = json.dumps(claude("hi")).encode()
    span = delta_text(line)
    assert span is not None and line[span[0] : span[1]] == b"hi"
    assert delta_text(b'{"type":"result","result":"x"}') is None
    assert delta_text(b"the delta is plain text") is None


@settings(max_examples=60, deadline=None)
@given(
    shape=st.sampled_from(sorted(SHAPES)),
    at=st.integers(1, len(KEY) - 1),
    cuts=st.lists(st.integers(0, 2000), max_size=6),
    lead=st.sampled_from(["key ", "export API_KEY=", "", "x\n", "`"]),
)
def test_any_split_and_any_reads_leave_no_key_body(
    shape: str, at: int, cuts: list[int], lead: str
) -> None:
    raw = events(SHAPES[shape], [lead + KEY[:at], KEY[at:] + " done\n", "DONE"])
    bounds = sorted({min(cut, len(raw)) for cut in cuts} | {0, len(raw)})
    out = redact_stream([raw[lo:hi] for lo, hi in itertools.pairwise(bounds)])
    assert BODY[8:20] not in out.decode() and KEY[-10:] not in out.decode()
    assert [list(event) for event in texts(out)] == [list(event) for event in texts(raw)]


def test_a_word_longer_than_the_hold_is_released() -> None:
    from jlgcli.artifacts.deltas import open_tail

    raw = events(gemini, ["x" * 9000, "y" * 9000])
    cut = raw.rfind(b"\n", 0, len(raw) - 1) + 1  # before the result: the pieces
    assert open_tail(raw, cut) == cut
    short = events(gemini, ["say hello wor", "ld"])
    end = short.rfind(b"\n", 0, len(short) - 1) + 1
    assert open_tail(short, end) == 0  # "wor" goes on in "ld": both wait


def test_a_closed_key_block_is_not_kept_and_a_long_open_one_is_cut() -> None:
    from jlgcli.artifacts.deltas import DeltaChain

    chain = DeltaChain()
    redactor = Redactor(environ={})
    chain.edits(redactor, events(gemini, [PEM.replace("\n", " ") + " then prose"]))
    assert chain.context.endswith(b"then prose") and b"BEGIN" in chain.context
    chain.edits(redactor, events(gemini, ["-----BEGIN RSA PRIVATE KEY----- " + "A" * 70_000]))
    assert len(chain.context) == 512
    assert chain.edits(redactor, b'{"type":"result"}\n') == ([], [])
