"""Issue 50 (per-iteration cost): short texts, redacted whole by the exact rules, choose
the cheaper of two equivalent searches by their size, and the choice changes nothing.

A turn of claude's stream-json (~1.4 KB) is shorter than the candidate finder's minimum,
so every rule reads all of it: the provider tokens are found by a substring search per
prefix from 256 bytes on (one regex pass from every start below), the assignments by
seven keyword rules from 4 KiB on (one alternation below). Both ways give the same
spans, and the redactor's output is byte for byte the same whichever is used. Once a
longer input had the candidate finder compiled, it reads inputs from 512 bytes on.
Issue 43 (speed): the candidate scan reports a ``-----BEGIN`` (``PEM``) so the stream
redactor holds an open private-key block back without reading the candidates again.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jlgcli.artifacts import exact, rules
from jlgcli.artifacts.candidates import ANCHORED, ASSIGNMENTS, DELTAS, PEM
from jlgcli.artifacts.redact import Redactor
from tests.unit.artifacts.test_redaction_families import ENV, FILLER, SHAPES

PIECES = st.lists(
    st.tuples(st.sampled_from(SHAPES + FILLER), st.sampled_from([" ", "\n", "\t", "-", "=", ""])),
    max_size=12,
)


def _text(pieces: list[tuple[str, str]]) -> bytes:
    return "".join(shape + sep for shape, sep in pieces).encode()


@given(PIECES)
@settings(max_examples=150, deadline=None)
def test_both_token_searches_find_the_same_spans(pieces: list[tuple[str, str]]) -> None:
    data = _text(pieces)
    assert sorted(rules._by_prefix(data)) == sorted(rules._by_search(data))


@given(PIECES)
@settings(max_examples=150, deadline=None)
def test_both_assignment_searches_find_the_same_values(pieces: list[tuple[str, str]]) -> None:
    data = _text(pieces)
    lowered = data.lower()
    by_rules = [m.span() for rule in exact._ASSIGN_RULES for m in rule.finditer(lowered)]
    assert sorted(by_rules) == sorted(m.span() for m in exact._ASSIGN_ANY.finditer(lowered))


@given(PIECES)
@settings(max_examples=100, deadline=None)
def test_the_search_chosen_by_size_changes_no_byte(pieces: list[tuple[str, str]]) -> None:
    data = _text(pieces)
    redactor = Redactor(environ={})
    redactor.finder_min = len(data) + 1  # the exact rules on the whole text, as short ones are
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rules, "_SCAN_BY_PREFIX", 0)
        patch.setattr(exact, "_ASSIGN_ANY_MAX", 0)
        by_prefix = redactor.redact_bytes(data)
        patch.setattr(rules, "_SCAN_BY_PREFIX", 1 << 30)
        patch.setattr(exact, "_ASSIGN_ANY_MAX", 1 << 30)
        by_search = redactor.redact_bytes(data)
    assert by_prefix == by_search == redactor.redact_bytes(data)


def test_a_turn_of_claude_stream_json_is_read_by_prefix_and_masked() -> None:
    """Longer than 256 bytes: the prefix searches run, and a key in it is still masked."""
    key = "sk-ant-api03-" + "Zq7Xw2Lm9Pk4Rt6Vb8Nc3Hd5Jf1Gs0Ya" * 2
    line = (
        '{"type":"assistant","message":{"content":[{"type":"text","text":"export '
        f'ANTHROPIC_API_KEY={key} then gh_token: ghp_{"a1B2" * 9}"}}],'
        '"usage":{"input_tokens":12,"output_tokens":7}}}\n'
    )
    data = (line * 4).encode()
    assert len(data) > rules._SCAN_BY_PREFIX
    out = Redactor(environ={}).redact_bytes(data).decode()
    assert key not in out and "ghp_" not in out
    assert out.count("[REDACTED]") == 8
    assert out.count('"input_tokens":12') == 4


@pytest.mark.hyperscan
def test_the_scan_reports_a_private_key_begin_as_pem() -> None:
    finder = Redactor(environ={}).finder()
    assert finder is not None
    seen: set[int] = set()
    data = b"x" * 100 + b"\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n"
    spans = finder.spans(data, seen)
    assert seen == {PEM}
    assert [(start, family) for start, _, family in spans] == [(101, ANCHORED)]
    seen.clear()
    finder.spans(b"see https://example.com: no key, one delta\n", seen)
    assert seen == {DELTAS}
    assert finder.spans(b"api_key = 1", None)[0][2] == ASSIGNMENTS  # (seen is optional)


def _compiled() -> Redactor:
    redactor = Redactor(environ=ENV)
    redactor.redact_bytes(b"plain text\n" * 1000)  # longer than finder_min: compiles it
    return redactor


@pytest.mark.hyperscan
def test_once_compiled_the_finder_reads_shorter_inputs_too() -> None:
    redactor = _compiled()
    turn = b'{"type":"result","usage":{"input_tokens":12},"apiKeySource":"none"}\n' * 10
    assert redactor.compiled_min <= len(turn) < redactor.finder_min
    assert redactor.candidate_spans(turn) == []  # no candidate: no rule reads it
    assert redactor.candidate_spans(turn[: redactor.compiled_min - 1]) is None
    assert Redactor(environ=ENV).candidate_spans(turn) is None  # not compiled: not for it


@given(PIECES)
@settings(max_examples=150, deadline=None)
def test_shorter_inputs_read_by_the_compiled_finder_give_the_exact_result(
    pieces: list[tuple[str, str]],
) -> None:
    data = _text(pieces)
    exact_rules = Redactor(environ=ENV)
    exact_rules.finder_min = len(data) + 1
    assert _compiled().redact_bytes(data) == exact_rules.redact_bytes(data)
