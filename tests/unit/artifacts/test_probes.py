"""The Hyperscan probes answer exactly as Python would, only faster (issue 18, F-006)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from jlgcli.artifacts.probes import INVALID_UTF8, BytesProbe, byte_class

# One byte from each range the UTF-8 grammar tells apart (edges included).
_EDGES = bytes.fromhex("00 41 7F 80 8F 90 9F A0 BF C0 C1 C2 DF E0 E1 EC ED EE EF F0 F1 F3 F4 F5 FF")


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@pytest.fixture(scope="module")
def invalid_utf8() -> BytesProbe:
    probe = BytesProbe.compile(INVALID_UTF8)
    assert probe is not None  # hyperscan is a dependency
    return probe


@pytest.mark.hyperscan
def test_every_short_byte_string_is_judged_as_decode_does(invalid_utf8: BytesProbe) -> None:
    # Exhaustive up to 3 bytes over every edge of the grammar: overlongs (C0, E0 80),
    # surrogates (ED A0), beyond U+10FFFF (F4 90, F5), stray and missing continuations.
    wrong = [
        bytes(seq)
        for length in range(4)
        for seq in itertools.product(_EDGES, repeat=length)
        if invalid_utf8.found(bytes(seq)) == _decodes(bytes(seq))
    ]
    assert wrong == []


_VALID_TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=40).map(str.encode)


@st.composite
def _damaged_utf8(draw: st.DrawFn) -> bytes:
    """Valid UTF-8 with a few bytes replaced, inserted or removed (cut sequences, strays)."""
    data = bytearray(draw(_VALID_TEXT))
    for _ in range(draw(st.integers(0, 3))):
        where = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["insert", "replace", "delete"]))
        byte = draw(st.sampled_from(list(_EDGES)))
        if action == "insert" or where == len(data):
            data.insert(where, byte)
        elif action == "replace":
            data[where] = byte
        else:
            del data[where]
    return bytes(data)


@pytest.mark.hyperscan
@given(st.one_of(_VALID_TEXT, _damaged_utf8(), st.binary(max_size=64)))
@settings(max_examples=500)
@example("résumé ✓ 😀".encode()[:-1])  # a cut 4-byte sequence at the end
@example(b"\xed\xa0\x80")  # an encoded surrogate
@example(b"\xf4\x90\x80\x80")  # beyond U+10FFFF
def test_any_bytes_are_judged_as_decode_does(invalid_utf8: BytesProbe, data: bytes) -> None:
    assert invalid_utf8.found(data) is not _decodes(data)


@pytest.mark.hyperscan
@given(st.sets(st.integers(0, 255), min_size=1), st.binary(max_size=64))
@settings(max_examples=200)
def test_a_byte_class_probe_finds_any_member(members: set[int], data: bytes) -> None:
    probe = BytesProbe.compile([byte_class(members)])
    assert probe is not None
    assert probe.found(data) is any(byte in members for byte in data)


@pytest.mark.hyperscan
def test_a_probe_answers_from_several_threads() -> None:
    from concurrent.futures import ThreadPoolExecutor

    probe = BytesProbe.compile([byte_class(b"\x00")])
    assert probe is not None
    inputs = [b"abc" * 1000, b"abc\x00", b"", b"\x00" * 5] * 25
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(probe.found, inputs))
    assert answers == [b"\x00" in data for data in inputs]
