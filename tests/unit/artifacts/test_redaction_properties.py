"""Issue 32: for every family, position and encoding, the secret never survives (hypothesis).

Each canary is a realistic secret of one family (the shapes of rules.py, after
gitleaks); it is placed after every boundary character the issue names, wrapped
in ANSI colours, JSON-escaped (as a raw agent stream carries it) or written with
``\\u`` escapes, inside arbitrary text, and fed to a stream redactor in arbitrary
chunks. The secret's body must appear in no output.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from jlgcli.artifacts.redact import Redactor

BODY = "Zq7Xw2Lm9Pk4Rt6Vb8Nc3Hd5Jf1Gs0Ya"  # mixed case and digits, as real keys are
FAMILIES = {
    "anthropic": "sk-ant-api03-" + BODY + BODY,
    "openai": "sk-proj-" + BODY + BODY[:16],
    "github": "ghp_" + BODY + "AbCd",
    "github-fine": "github_pat_11" + BODY + "_" + BODY,
    "aws": "AKIA" + "Q7XW2LM9PK4RT6VB",
    "stripe": "sk_live_" + BODY,
    "slack": "xoxb-1234567890-" + BODY,
    "slack-app": "xapp-1-A0123BCDEF-" + BODY,
    "google": "AIza" + BODY + "Ab3",
    "google-oauth": "ya29." + BODY + BODY,
    "google-client": "GOCSPX-" + BODY[:28],
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + BODY,
    "gitlab": "glpat-" + BODY[:20],
    "npm": "npm_" + BODY + "Ab3d",
    "groq": "gsk_" + BODY + BODY[:16],
    "xai": "xai-" + BODY + BODY,
    "replicate": "r8_" + BODY + "Ab3de",
    "sendgrid": "SG." + BODY[:22] + "." + BODY + BODY[:11],
    "twilio": "SK" + "0123456789abcdef0123456789ABCDEF",
    "discord": "MTIzNDU2Nzg5MDEyMzQ1Njc4." + "GaBcDe." + BODY[:30],
    "telegram": "123456789:A" + BODY + "Ab",
}
BOUNDARIES = ("", " ", "-", "_", "9", "x", "%22", "=", "\x1b[31m", "\n", "\t", '"', "key_")


def _encodings(secret: str) -> list[str]:
    return [
        secret,
        f"\x1b[1;31m{secret}\x1b[0m",
        json.dumps(f"line one\n{secret}\nline two")[1:-1],  # a raw JSON stream: \nsk-…
        json.dumps({"text": f"\t{secret}"}),
        f"\\u{ord(secret[0]):04x}" + secret[1:],  # \u0073k-ant-…
    ]


def _survives(secret: str, output: str) -> bool:
    return secret[-12:] in output or secret[4:20] in output


text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


@settings(max_examples=300, deadline=None)
@given(
    family=st.sampled_from(sorted(FAMILIES)),
    boundary=st.sampled_from(BOUNDARIES),
    encoding=st.integers(0, 4),
    before=text,
    after=text,
    cuts=st.lists(st.integers(0, 400), max_size=4),
)
def test_no_family_survives_any_position_or_encoding(
    family: str, boundary: str, encoding: int, before: str, after: str, cuts: list[int]
) -> None:
    secret = FAMILIES[family]
    placed = before + " " + boundary + _encodings(secret)[encoding] + " " + after
    data = placed.encode("utf-8")
    pieces, last = [], 0
    for cut in sorted(set(cuts)):
        if last < cut < len(data):
            pieces.append(data[last:cut])
            last = cut
    pieces.append(data[last:])
    # the exact rules alone (short inputs), then the candidate finder first (long inputs:
    # its patterns must find every family in every position and encoding too)
    for finder_min in (len(data) + 1, 0):
        redactor = Redactor(environ={})
        redactor.finder_min = finder_min
        assert not _survives(secret, redactor.redact(placed)), placed
        stream = redactor.stream()
        out = b"".join(stream.feed(piece) for piece in pieces) + stream.flush()
        assert not _survives(secret, out.decode("utf-8", "replace")), placed


@settings(max_examples=100, deadline=None)
@given(
    name=st.sampled_from(
        ["DB_PASS", "GCP_CREDENTIALS", "SESSION_COOKIE", "API_TOKEN_2", "MY_SECRET", "db_pwd"]
    ),
    value=st.from_regex(r"[A-Za-z0-9]{8,24}", fullmatch=True),
)
def test_widened_names_are_masked_assigned_and_as_known_values(name: str, value: str) -> None:
    redactor = Redactor(environ={name: value})
    assert value not in redactor.redact(f"{name}={value}")
    assert value not in redactor.redact(f"echo {value}")
    assert value not in Redactor(environ={}).redact(json.dumps({"x": f'{name}="{value}"'}))
