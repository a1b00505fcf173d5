"""Best-effort redaction of secrets in everything written (RG-007, DESIGN "secrets")."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from jlgcli.artifacts.redact import MASK, Redactor, is_secret_name

SK = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8t"
SK_ANT = "sk-ant-api03-" + "x" * 20 + "_Yz-09"
GHP = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
GITHUB_PAT = "github_pat_11ABCDEFG0" + "abcdefghij" * 6
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
AWS = "AKIAIOSFODNN7EXAMPLE"
GOOGLE = "AIzaSyD-" + "k" * 31

# (case, input, expected output) — one row per secret kind (RG-007)
TABLE = [
    ("bearer header", "Authorization: Bearer abc123def456ghi789",
     "Authorization: Bearer [REDACTED]"),
    ("bearer in curl", "curl -H 'authorization: bearer tok_9f8e7d6c5b4a'",
     "curl -H 'authorization: bearer [REDACTED]'"),
    ("basic auth", 'headers = {"Authorization": "Basic dXNlcjpwYXNzd29yZA=="}',
     'headers = {"Authorization": "Basic [REDACTED]"}'),
    ("openai key", f"key is {SK}.", "key is [REDACTED]."),
    ("anthropic key", f"ANTHROPIC {SK_ANT} end", "ANTHROPIC [REDACTED] end"),
    ("github classic", f"token {GHP}", "token [REDACTED]"),
    ("github oauth/server", "gho_" + "Z" * 36 + " ghs_" + "9" * 36, "[REDACTED] [REDACTED]"),
    ("github fine-grained", f"x={GITHUB_PAT}", "x=[REDACTED]"),
    ("jwt", f"id_token {JWT}", "id_token [REDACTED]"),
    ("aws access key", f"aws {AWS} ok", "aws [REDACTED] ok"),
    ("aws temporary key", "ASIAY34FZKBOKMUTVV7A", "[REDACTED]"),
    ("google api key", f"GEMINI {GOOGLE}", "GEMINI [REDACTED]"),
    ("slack", "xoxb-123456789012-abcdefABCDEF", "[REDACTED]"),
    ("env assignment", "export GITHUB_TOKEN=abc123", "export GITHUB_TOKEN=[REDACTED]"),
    ("env assignment, short", "DB_PASSWORD=pw", "DB_PASSWORD=[REDACTED]"),
    ("windows set", 'set "OPENAI_API_KEY=hello-world"', 'set "OPENAI_API_KEY=[REDACTED]"'),
    ("powershell", '$env:MY_SECRET = "s3cr3t value"', '$env:MY_SECRET = "[REDACTED]"'),
    ("json pair", '{"apiKey": "hello world", "n": 1}', '{"apiKey": "[REDACTED]", "n": 1}'),
    ("json pair, spaced", '"client_secret" : "zzzzzzzz"', '"client_secret" : "[REDACTED]"'),
    ("python dict", "{'access_token': 'ya29.a0AfH6SM'}", "{'access_token': '[REDACTED]'}"),
    ("yaml with digits", "password: hunter2", "password: [REDACTED]"),
    ("cli flag", "--api-key=abc123def", "--api-key=[REDACTED]"),
    ("query string", "GET /cb?access_token=abcd1234&state=x",
     "GET /cb?access_token=[REDACTED]&state=x"),
    ("suffix in one word", "PGPASSWORD=secret99 psql", "PGPASSWORD=[REDACTED] psql"),
    ("header style", "X-Api-Key: 0123456789abcdef", "X-Api-Key: [REDACTED]"),
    ("assignment of a known token", f"OPENAI_API_KEY={SK}", "OPENAI_API_KEY=[REDACTED]"),
    # issue 15: the families the first redactor missed
    ("url password", "DATABASE_URL is postgres://admin:s3cr3t@db/app",
     "DATABASE_URL is postgres://admin:[REDACTED]@db/app"),
    ("url password, no user", "redis://:hunter2@cache:6379/0", "redis://:[REDACTED]@cache:6379/0"),
    ("stripe live key", "stripe " + "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "stripe [REDACTED]"),
    ("stripe restricted key", "rk_live_" + "51H8aBcDeFgHiJkLmN", "[REDACTED]"),
    ("stripe test key", "sk_test_" + "4eC39HqLyjWDarjtT1zdp7dc", "[REDACTED]"),
    ("slack webhook", "https://hooks.slack.com/services/T0001/B0001/XXXXXXXXXXXXXXXX",
     "https://hooks.slack.com/services/[REDACTED]"),
    ("sentry dsn", "https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/5",
     "https://[REDACTED]@o1.ingest.sentry.io/5"),
    ("pem private key", "k:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nq83n\n"
     "-----END RSA PRIVATE KEY-----\nnext", "k:\n[REDACTED]\nnext"),
    ("pem without end", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg", "[REDACTED]"),
    ("gitlab token", "glpat-" + "abcdefghij0123456789", "[REDACTED]"),
]  # fmt: skip

# Text that looks close to a secret but is not one: left alone.
UNTOUCHED = [
    "the bearer of bad news",
    "Bearer token",
    "task-abcdefghijklmnopqrstuvwxyz is a branch name",
    "task-runner-configuration-file-loader",  # glued "sk-" in a kebab-case word (issue 32)
    "AKIAIOSFODNN7EXAMPLEX",
    '{"max_tokens": 100, "monkey": "banana", "key": "name"}',
    "token: str = None",
    "api_key: Optional[str] = None",
    "api_key = os.environ['OPENAI_API_KEY']",
    "token = get_token()",
    "if token == 'x':",
    "key => value",
    "TOKEN=$GITHUB_TOKEN",
    "PASSWORD=%DB_PASSWORD%",
    "api_key = None",
    '"password": null',
    '"secret": "<your secret here>"',
    "password: correcthorse",
    "tokenizer=bpe",
    "sk-short",
    "ghp_tooShort",
    "eyJhbGciOi.short",
    "authorization: required",
    "http://example.com:8080/path@v2",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBg\n-----END PUBLIC KEY-----",
    "",
]


@pytest.mark.parametrize(("case", "text", "expected"), TABLE, ids=[row[0] for row in TABLE])
def test_each_secret_kind_is_redacted(case: str, text: str, expected: str) -> None:
    redactor = Redactor(environ={})
    assert redactor.redact(text) == expected
    assert redactor.count == expected.count(MASK)


@pytest.mark.parametrize("text", UNTOUCHED)
def test_lookalikes_are_left_alone(text: str) -> None:
    redactor = Redactor(environ={})
    assert redactor.redact(text) == text
    assert redactor.count == 0


def test_values_of_secret_environment_variables_are_masked_verbatim() -> None:
    env = {"DEPLOY_TOKEN": "plain-words-value", "SHORT_TOKEN": "abc", "HOME": "/home/someone"}
    redactor = Redactor(environ=env)
    text = "cloning with plain-words-value into /home/someone (abc)"
    assert redactor.redact(text) == "cloning with [REDACTED] into /home/someone (abc)"
    assert redactor.count == 1


def test_current_environment_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_PASSWORD", "correct horse battery")
    assert Redactor().redact("pw is correct horse battery!") == "pw is [REDACTED]!"


def test_extra_values_and_longest_first() -> None:
    redactor = Redactor(environ={"A_TOKEN": "secretvalue"}, extra_values=["secretvalue-long", "x"])
    assert redactor.redact("secretvalue-long secretvalue x") == "[REDACTED] [REDACTED] x"
    assert redactor.count == 2


def test_non_ascii_around_secrets_survives() -> None:
    redactor = Redactor(environ={"NOM_SECRET": "café-crème-secret"})
    text = f"résumé ✓ {GHP} — café-crème-secret 日本"
    assert redactor.redact(text) == "résumé ✓ [REDACTED] — [REDACTED] 日本"


def test_count_accumulates_across_calls() -> None:
    redactor = Redactor(environ={})
    redactor.redact(f"{SK} and {GHP}")
    redactor.redact_bytes(AWS.encode())
    assert redactor.count == 3


@pytest.mark.parametrize(
    "name",
    ["GITHUB_TOKEN", "gh_token", "apiKey", "API_KEY", "x-api-key", "client_secret", "PGPASSWORD",
     "db.password", "Passwd", "APIKEY", "openaiApiKey", "sort_key", "passphrase", "PRIVATEKEY"],
)  # fmt: skip
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    ["key", "monkey", "max_tokens", "TOKENIZER", "keyboard", "secretName", "", "__", "KEY_ID"],
)
def test_not_secret_names(name: str) -> None:
    assert not is_secret_name(name)


def test_redact_obj_masks_secret_keys_and_strings() -> None:
    redactor = Redactor(environ={})
    obj = {
        "backend": "claude",
        "options": {"apiKey": "short", "maxIterations": 5, "githubToken": ""},
        "argv": ["claude", "-p", f"use {GHP}"],
        "tuple": ("a", 1),
        "none": None,
        "already": MASK,
    }
    assert redactor.redact_obj(obj) == {
        "backend": "claude",
        "options": {"apiKey": MASK, "maxIterations": 5, "githubToken": ""},
        "argv": ["claude", "-p", "use [REDACTED]"],
        "tuple": ["a", 1],
        "none": None,
        "already": MASK,
    }
    assert redactor.count == 2
    assert redactor.redact_obj({"api_token": MASK}) == {"api_token": MASK}
    assert redactor.count == 2


# --- streaming -----------------------------------------------------------------------

_FILLER = ["hello world", "résumé ✓", "x = 1", "path/to/file.py:12", "\x1b[32mok\x1b[0m", "  "]
_SECRETS = [SK, GHP, JWT, AWS, "Bearer abc123def456ghi789", "API_KEY=abc123", '"password": "p w"',
            "plain-words-value"]  # fmt: skip
_lines = st.lists(
    st.lists(st.sampled_from(_FILLER + _SECRETS), min_size=0, max_size=6).map(" ".join),
    min_size=1,
    max_size=12,
).map(lambda lines: "\n".join(lines) + st_choice_newline(lines))


def st_choice_newline(lines: list[str]) -> str:
    return "\n" if len(lines) % 2 else ""


def _feed_in_chunks(redactor: Redactor, text: str, cuts: list[int]) -> str:
    stream = redactor.stream()
    out: list[str] = []
    last = 0
    for cut in sorted(set(cuts)):
        out.append(stream.feed_text(text[last:cut]))
        last = cut
    out.append(stream.feed_text(text[last:]))
    out.append(stream.flush().decode())
    assert stream.pending == 0
    return "".join(out)


@given(_lines, st.lists(st.integers(min_value=0, max_value=2000), max_size=12))
@settings(max_examples=200, deadline=None)
def test_streaming_equals_whole_text_for_any_chunking(text: str, cuts: list[int]) -> None:
    # a secret split across chunk boundaries is still redacted, exactly as in one piece
    env = {"DEPLOY_TOKEN": "plain-words-value"}
    whole = Redactor(environ=env)
    expected = whole.redact(text)
    streamed = Redactor(environ=env)
    assert _feed_in_chunks(streamed, text, [c % (len(text) + 1) for c in cuts]) == expected
    assert streamed.count == whole.count


def test_secret_split_byte_by_byte() -> None:
    redactor = Redactor(environ={})
    text = f"before\nexport GITHUB_TOKEN={GHP}\nafter"
    assert _feed_in_chunks(redactor, text, list(range(len(text)))) == (
        "before\nexport GITHUB_TOKEN=[REDACTED]\nafter"
    )


def test_private_key_block_split_across_reads_is_masked() -> None:
    redactor = Redactor(environ={})
    text = "a\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\nAAAA\n"
    text += "-----END OPENSSH PRIVATE KEY-----\nafter\n"
    out = _feed_in_chunks(redactor, text, list(range(0, len(text), 3)))
    assert out == "a\n[REDACTED]\nafter\n"


def test_a_begin_line_inside_an_open_private_key_does_not_end_its_hold() -> None:
    # the hold starts at the first open block, as the whole-text rule reads it: the
    # later BEGIN line must not release the key body that follows it
    stream = Redactor(environ={}).stream()
    out = stream.feed(b"-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----BEGIN PUBLIC KEY-----\n")
    out += stream.feed(b"BODYSECRET\n-----END RSA PRIVATE KEY-----\nafter\n")
    assert out + stream.flush() == b"[REDACTED]\nafter\n"


def test_stream_holds_back_at_most_a_partial_line() -> None:
    stream = Redactor(environ={}).stream()
    assert stream.feed(b"complete line\npartial") == b"complete line\n"
    assert stream.pending == len(b"partial")
    assert stream.feed(b" more\n") == b"partial more\n"
    assert stream.pending == 0
    assert stream.flush() == b""


@pytest.mark.parametrize("offset", [0, 1, 7, 100, 4000, 8190, 8192, 9000])
def test_very_long_line_is_cut_without_leaking(offset: int) -> None:
    # no newline for 100 KB: the stream must emit (bounded memory) yet never split a secret
    redactor = Redactor(environ={"X_TOKEN": "spaced secret value"})
    secrets = [GHP, "API_KEY = abc123", "Bearer abc123def456ghi789", "spaced secret value", JWT]
    body = ("word " * 1700 + "é ").join(secrets) + " end "
    text = "w" * offset + " " + body * 6
    stream = redactor.stream()
    out: list[bytes] = []
    data = text.encode()
    for i in range(0, len(data), 4096):
        out.append(stream.feed(data[i : i + 4096]))
        assert stream.pending <= 40 * 1024
    out.append(stream.flush())
    result = b"".join(out).decode("utf-8")  # also: no UTF-8 sequence was split
    for secret in (GHP, "abc123", "abc123def456ghi789", "spaced secret value", JWT):
        assert secret not in result
    assert result.count(MASK) == 30


def test_long_run_without_separators_is_cut_too() -> None:
    stream = Redactor(environ={}).stream()
    emitted = stream.feed(b"x" * 70_000)
    assert emitted == b"x" * len(emitted) and len(emitted) > 0
    assert emitted + stream.flush() == b"x" * 70_000


# --- never raises, stays linear ---------------------------------------------------------


@given(st.text())
@example("eyJ" * 20_000)
@example("a" * 50_000 + "_token=")
@example("token=" * 10_000)
@example("sk-" + "a" * 100_000)
@example("Bearer " * 10_000)
@example('"password": "' * 5_000)
@example("\udc80 lone surrogate API_KEY=abc123")
@settings(max_examples=300, deadline=None)
def test_never_raises(text: str) -> None:
    redactor = Redactor(environ={"A_TOKEN": "abcdefgh"})
    out = redactor.redact(text)
    assert isinstance(out, str)
    assert redactor.count == 0 or MASK in out
    stream = redactor.stream()
    assert isinstance(stream.feed_text(text) + stream.flush().decode("utf-8", "surrogatepass"), str)


@given(st.binary())
@settings(max_examples=200, deadline=None)
def test_bytes_never_raise(data: bytes) -> None:
    assert isinstance(Redactor(environ={}).redact_bytes(data), bytes)


@pytest.mark.parametrize(
    ("secret", "hidden"),
    [
        (GHP, GHP),
        ("Bearer abc123def456ghi789", "abc123def456ghi789"),
        ('"password": "p<w>d, (x)!"', "p<w>d, (x)!"),
        ("env: secret, value!", "secret, value!"),
    ],
)
@pytest.mark.parametrize("before_cut", [1, 3, 9, 14])
def test_forced_cut_never_lands_inside_a_secret(secret: str, hidden: str, before_cut: int) -> None:
    from jlgcli.artifacts import streaming as redact  # the stream half of redact.py (issue 32)

    total = redact._HOLD_LIMIT + 10_000  # one line, no newline: the stream must cut it
    start = total - redact._TAIL - before_cut  # the naive cut falls inside the secret
    line = ("a," * total)[: start - 1] + "," + secret
    line += ",b" * ((total - len(line)) // 2)
    redactor = Redactor(environ={"X_TOKEN": "secret, value!"})
    stream = redactor.stream()
    first = stream.feed(line.encode())
    assert first  # it did cut
    result = (first + stream.flush()).decode()
    assert hidden not in result
    assert result == redactor.redact(line)


# --- the Hyperscan candidate finder changes nothing but the speed (issue 18) ------------


def _exact(redactor: Redactor, data: bytes) -> bytes:
    redactor.finder_min = len(data) + 1  # the exact rules on everything
    return redactor.redact_bytes(data)


def _with_finder(redactor: Redactor) -> Redactor:
    redactor.finder_min = 0  # the finder on every input, however short
    return redactor


@pytest.mark.hyperscan
def test_candidate_finder_is_in_use() -> None:
    assert Redactor(environ={}).finder() is not None


@pytest.mark.hyperscan
def test_short_inputs_skip_the_finder_and_long_ones_use_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from jlgcli.artifacts.candidates import FINDER_MIN, CandidateFinder

    scanned: list[int] = []
    real = CandidateFinder.spans
    monkeypatch.setattr(CandidateFinder, "spans", lambda self, data, seen=None:
                        scanned.append(len(data)) or real(self, data, seen))  # fmt: skip
    redactor = Redactor(environ={})
    secret = "ghp_" + "a1B2c3D4e5" * 4
    assert redactor.redact(f"short {secret}") == "short [REDACTED]"
    assert scanned == []
    long_text = "x" * FINDER_MIN + f" {secret}\n"
    assert redactor.redact(long_text) == "x" * FINDER_MIN + " [REDACTED]\n"
    assert scanned == [len(long_text)]


@given(
    st.lists(st.sampled_from([*_FILLER, *_SECRETS, "\n", "w" * 5000, "é" * 3000, "-----BEGIN"])),
)
@settings(max_examples=200, deadline=None)
def test_candidate_windows_give_the_exact_result(pieces: list[str]) -> None:
    env = {"DEPLOY_TOKEN": "plain-words-value"}
    data = " ".join(pieces).encode()
    assert _with_finder(Redactor(environ=env)).redact_bytes(data) == _exact(
        Redactor(environ=env), data
    )


_PEM_PIECES = ["-----BEGIN RSA PRIVATE KEY-----\n", "MIIEowIBAAKCAQEA\n", "q83n\n",
               "-----END RSA PRIVATE KEY-----\n", "-----BEGIN PUBLIC KEY-----\n"]  # fmt: skip


@given(
    st.lists(st.sampled_from([*_FILLER, *_SECRETS, *_PEM_PIECES, "\n", "w" * 3000, "é" * 2000])),
    st.lists(st.integers(min_value=0, max_value=20_000), max_size=8),
)
@settings(max_examples=200, deadline=None)
def test_streaming_with_the_finder_equals_the_exact_rules(pieces: list[str],
                                                          cuts: list[int]) -> None:  # fmt: skip
    # the stream's one candidate scan per read serves the private-key hold and the redaction
    env = {"DEPLOY_TOKEN": "plain-words-value"}
    text = " ".join(pieces)
    exact = Redactor(environ=env)
    expected = _exact(exact, text.encode()).decode()
    streamed = _with_finder(Redactor(environ=env))
    assert _feed_in_chunks(streamed, text, [c % (len(text) + 1) for c in cuts]) == expected
    assert streamed.count == exact.count


@pytest.mark.hyperscan
def test_environment_values_with_regex_characters_keep_the_fast_finder() -> None:
    env = {"A_TOKEN": "correct horse battery", "B_SECRET": "a.b*c(d)é{x}#y~z"}
    redactor = _with_finder(Redactor(environ=env))
    assert redactor.finder() is not None
    text = "x correct horse battery y a.b*c(d)é{x}#y~z"
    assert redactor.redact(text) == "x [REDACTED] y [REDACTED]"
