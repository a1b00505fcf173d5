"""Issue 32 (speed): a candidate window runs only the rule families of the candidates
it holds (exact.py), and that changes nothing but the speed.

Every shape the redactor knows — the table of test_redaction.py, the provider
families of test_redaction_properties.py, the command-line and config contexts
(``curl -u``, ``mysql -p``, netrc, Docker ``auth``), a known environment value —
mixed in any order with ordinary agent output gives, through the candidate
finder, byte for byte what the exact rules give on the whole text.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jlgcli.artifacts import exact
from jlgcli.artifacts.redact import Redactor
from tests.unit.artifacts.test_redaction import TABLE, UNTOUCHED
from tests.unit.artifacts.test_redaction_properties import FAMILIES

# The context rules (rules.CONTEXT): (input, what must not survive).
CONTEXTS = [
    ("curl -s -u admin:s3cretPw9 https://api.example.com", "s3cretPw9"),
    ("curl --user=deploy:Hunter2pass https://x", "Hunter2pass"),
    ("mysql -h db -u root -pRootPw_42 app", "RootPw_42"),
    ("mysqldump --single-transaction -pDumpPw77 shop > shop.sql", "DumpPw77"),
    ("machine api.example.com login me password n3tRcPw0rd", "n3tRcPw0rd"),
    ('{"auths": {"ghcr.io": {"auth": "ZGVwbG95OnMzY3JldHB3MTIz"}}}', "ZGVwbG95OnMzY3JldHB3MTIz"),
    ("machine x login me password\tTabbedPw42", "TabbedPw42"),  # \\t once JSON-escaped
    ("Authorization: Bearer\tTabbedTok9876543", "TabbedTok9876543"),
    ("API_KEY\t= TabbedKey77", "TabbedKey77"),
]
KNOWN = "plain-words-value"  # a secret-named environment variable's value: masked verbatim
ENV = {"DEPLOY_TOKEN": KNOWN}
FILLER = [
    "I'll start by reading the failing test.",
    '{"type":"assistant","message":{"content":[{"type":"text","text":"Running tests"}]}}',
    "\x1b[32mPASSED\x1b[0m tests/unit/test_parser.py::test_last_object_wins",
    "Résumé : les tests passent — 42 réussis ✓",
    "        self.max_tokens = config.get('max_tokens', 4096)",
    "see https://example.com/docs and the password policy",
    "x" * 5000,
    "",
]
SHAPES = [
    *(text for _, text, _ in TABLE),
    *FAMILIES.values(),
    *(text for text, _ in CONTEXTS),
    KNOWN,
    *UNTOUCHED,
]


def _exact(data: bytes) -> bytes:
    redactor = Redactor(environ=ENV)
    redactor.finder_min = len(data) + 1  # every rule on the whole text
    return redactor.redact_bytes(data)


def _with_finder() -> Redactor:
    redactor = Redactor(environ=ENV)
    redactor.finder_min = 0  # the finder on every input, however short
    return redactor


@pytest.mark.parametrize(("text", "secret"), CONTEXTS)
def test_context_secrets_are_masked_by_both_engines(text: str, secret: str) -> None:
    assert secret not in _exact(text.encode()).decode()
    assert secret not in _with_finder().redact(text)
    assert secret not in _with_finder().redact(json.dumps({"text": f"$ {text}\n"}))


@given(
    st.lists(
        st.tuples(st.sampled_from(SHAPES + FILLER), st.sampled_from([" ", "\n", "\t", "-", "="])),
        max_size=30,
    ),
)
@settings(max_examples=300, deadline=None)
def test_family_windows_give_the_exact_result(pieces: list[tuple[str, str]]) -> None:
    data = "".join(shape + sep for shape, sep in pieces).encode()
    assert _with_finder().redact_bytes(data) == _exact(data)


@pytest.mark.hyperscan
def test_a_window_runs_only_the_families_of_its_candidates(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[int] = []
    real = exact.spelled_edits

    def spy(data: bytes, literals: list[bytes], families: int = exact.ALL) -> list[exact.Edit]:
        asked.append(families)
        return real(data, literals, families)

    monkeypatch.setattr("jlgcli.artifacts.redact.spelled_edits", spy)
    filler = "plain text of no interest\n" * 400
    line = "curl -H 'Authorization: Bearer abc123def456ghi789' https://x\n"
    assert "abc123def456ghi789" not in _with_finder().redact(filler + line + filler)
    from jlgcli.artifacts.candidates import ANCHORED

    # curl, Authorization, Bearer and sk- are matched where their candidates are
    # (exact.directed_edits): the window is searched for the "://" shapes only
    assert asked == [ANCHORED]
    asked.clear()
    escaped = json.dumps(line)  # a backslash: read decoded, where any family may be
    assert "abc123def456ghi789" not in _with_finder().redact(filler + escaped + "\n" + filler)
    assert asked and all(families == exact.ALL for families in asked)


# Found by comparing the engines on random mixes (issue 32).
@pytest.mark.parametrize(
    ("text", "secret"),
    [
        # a token inside a longer match that glued_ok refuses (missed on main, both engines)
        ("task-runner-configuration-file-loader-ya29." + FAMILIES["google-oauth"][5:],
         FAMILIES["google-oauth"][5:]),
        # a command inside another command's match (the engines must agree)
        ("curl -u a:b curl --user=deploy:Hunter2pass https://x", "Hunter2pass"),
        # an unterminated private key runs past a PUBLIC KEY's END line (finder, on main)
        ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg -----END PUBLIC KEY-----\n"
         "Authorization: Bearer abc123def456ghi789 ZKeyBody0123", "ZKeyBody0123"),
    ],
)  # fmt: skip
def test_secrets_at_the_edge_of_other_matches(text: str, secret: str) -> None:
    for filler in ("", "\n" + "x" * 9000):
        data = (text + filler).encode()
        assert secret.encode() not in _exact(data)
        assert secret.encode() not in _with_finder().redact_bytes(data)


@pytest.mark.parametrize(
    "text",
    ["xbearer abc123def456ghi789", "the bearer of bad news", "password correcthorse",
     "mypassword Secret99x", "authorization: required"],
)  # fmt: skip
def test_lookalikes_matched_at_their_candidates_are_left_alone(text: str) -> None:
    data = ("x" * 9000 + "\n" + text + "\n").encode()  # long: through the candidate finder
    assert _with_finder().redact_bytes(data) == data == _exact(data)


# An escape sequence inside a token's prefix (issue 32: "ANSI sequences do not split a
# token"): the candidates saw neither half, so a long input kept the key (s\x1b[1mk-ant-…).
ESCAPES = ("\x1b[1m", "\x1b[0;31m", "\x1b[2C", "\x1b(B")


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("escape", ESCAPES)
def test_an_escape_inside_a_tokens_prefix_is_masked_by_both_engines(
    family: str, escape: str
) -> None:
    token = FAMILIES[family]
    for split in range(1, 8):
        spelled = token[:split] + escape + token[split:]
        text = f"it printed {spelled}\x1b[0m here\n"
        for redacted in (_with_finder().redact(text), _exact(text.encode()).decode()):
            assert token[split:][:10] not in redacted, (family, split, redacted)


@pytest.mark.hyperscan
def test_colour_around_words_is_no_candidate() -> None:
    finder = _with_finder().finder()
    assert finder is not None
    coloured = b"\x1b[32mPASSED\x1b[0m tests/unit/test_parser.py::test_x \x1b[1;31mFAILED\x1b[0m\n"
    assert finder.spans(coloured) == []
    assert finder.spans(b"word\x1b[1mword") != []  # glued between name characters: one
