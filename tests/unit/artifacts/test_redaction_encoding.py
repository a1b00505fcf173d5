"""Issue 43: redaction never changes what the agent said.

Redaction runs on the agent's raw event lines, so it must respect the encoding
it runs in: inside a JSON string a value ends at an escape (``\\"``, ``\\n``,
``\\t``, ``\\uXXXX``) exactly where it would end at the decoded character, the
replacement is valid in that encoding, overlapping matches are masked as their
union, and a match never crosses from one JSON string into the structure.
"""

from __future__ import annotations

import json

import pytest

from jlgcli.artifacts.redact import MASK, Redactor

PEM_BODY = "MIIEowIBAAKCAQEAzq7Xw2Lm9Pk4Rt6Vb8Nc3Hd5Jf1Gs0YaQ9pL2mK7xR4tW6vB"
RSA = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"
PGP = (
    "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
    f"lQOYBGXk{PEM_BODY}\n=Ab3d\n-----END PGP PRIVATE KEY BLOCK-----"
)


def redact(text: str) -> str:
    return Redactor(environ={}).redact(text)


def test_a_quoted_password_in_a_json_string_keeps_the_line_valid_json() -> None:
    line = json.dumps({"result": 'x = "password=hunter2"\nDONE'})
    out = redact(line)
    assert json.loads(out) == {"result": f'x = "password={MASK}"\nDONE'}


def test_a_value_ends_at_an_escaped_newline_the_next_line_survives() -> None:
    line = json.dumps({"result": "password=hunter2\nDONE"})
    assert json.loads(redact(line)) == {"result": f"password={MASK}\nDONE"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("password=hunter2\tDONE", f"password={MASK}\tDONE"),
        ("password=hunter2\rDONE", f"password={MASK}\rDONE"),
        ("token=abc123'x", f"token={MASK}'x"),
        ("password=hun\\qer2 DONE", f"password={MASK} DONE"),  # a decoded \ continues
        ("password=hun/ter2 DONE", f"password={MASK} DONE"),  # "\/" in some encoders
        ("Authorization: Basic dXNlcjpwYXNzd29yZA==\nDONE", f"Authorization: Basic {MASK}\nDONE"),
        ("curl -u admin:s3cretpw\nDONE", f"curl -u admin:{MASK}\nDONE"),
        ("mysql -u root -ps3cretpw\nDONE", f"mysql -u root -p{MASK}\nDONE"),
        ("password s3cretpw\nDONE", f"password {MASK}\nDONE"),
        ('see postgres://admin:pw9"@db', 'see postgres://admin:pw9"@db'),
    ],
)
def test_json_escaped_text_decodes_to_what_redacting_the_decoded_text_gives(
    text: str, expected: str
) -> None:
    assert redact(text) == expected
    for encode in (json.dumps, lambda t: json.dumps(t, ensure_ascii=True).replace("/", "\\/")):
        line = encode({"result": text})
        out = redact(line)
        assert json.loads(out) == {"result": expected}, out


def test_unicode_escapes_end_a_value_as_their_character_would() -> None:
    line = '{"result":"password=hunter2\\u0022 and \\u000aDONE"}'
    assert json.loads(redact(line)) == {"result": f'password={MASK}" and \nDONE'}
    line = '{"result":"password=hun\\u0074er2 DONE"}'  # a decoded letter continues
    assert json.loads(redact(line)) == {"result": f"password={MASK} DONE"}


def test_an_escaped_quote_inside_a_quoted_value_is_part_of_it() -> None:
    line = json.dumps({"api_key": 'Ab"cd9efgh'})
    out = redact(line)
    assert json.loads(out) == {"api_key": MASK}


@pytest.mark.parametrize("key", [RSA, PGP])
@pytest.mark.parametrize(
    "before",
    [
        "API_TOKEN=abcdefghijklmnop12",
        "authorization: token abcdefghijklmnop12",
        "client_secret: abcdefghijklmnop12",
        "aws_secret_access_key = abcdefghijklmnop12",
        "//registry.npmjs.org/:_authToken=abcdefghijklmnop12",
    ],
)
def test_a_private_key_after_a_secret_named_value_is_masked_whole(key: str, before: str) -> None:
    for text in (f"{before}\n{key}", json.dumps({"result": f"{before}\n{key}"})):
        out = redact(text)
        assert PEM_BODY not in out, out
        assert "abcdefghijklmnop12" not in out
        assert "PRIVATE KEY" not in out.replace("\\n", "\n").split("\n", 1)[1] or MASK in out
    out = json.loads(redact(json.dumps({"result": f"{before}\n{key}\nDONE"})))["result"]
    assert out.endswith(f"\n{MASK}\nDONE")


def test_overlapping_matches_are_masked_as_their_union() -> None:
    # the value rule and the token rule overlap: neither may leave a part of the other
    text = "api_key=xyz-sk-ant-api03-Zq7Xw2Lm9Pk4Rt6Vb8Nc3Hd5Jf1Gs0Ya tail"
    assert redact(text) == f"api_key={MASK} tail"


def test_a_match_across_two_json_strings_masks_each_part_not_the_structure() -> None:
    line = json.dumps({"a": "-----BEGIN RSA PRIVATE KEY-----\nMIIEow", "b": "xyz\n" + RSA[-29:]})
    out = json.loads(redact(line))
    assert set(out) == {"a", "b"}
    assert "MIIEow" not in out["a"] and "xyz" not in out["b"]


def test_an_unterminated_key_in_a_json_string_is_masked_to_the_string_end() -> None:
    line = json.dumps({"result": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAK", "delta": True})
    out = json.loads(redact(line))
    assert out == {"result": MASK, "delta": True}


@pytest.mark.parametrize(
    ("text", "value_masked"),
    [
        ("api_key='Zq7Xw2Lm9Pk4'", True),
        ("api_key='Zq7Xw2Lm9Pk4", False),  # never closed: no quoted value
        ("api_key='Zq7X\nw2Lm9Pk4'", False),  # a line break inside: no one-line value
        ("api_key='Zq7X\\nw2Lm9Pk4'", False),  # an escaped line break alike
        ("api_key='Zq7X\\u000Aw2Lm9Pk4'", False),
        ("api_key='Zq7X\\'w2Lm9Pk4'", True),  # an escaped quote is part of it
    ],
)
def test_quoted_values_read_through_escapes(text: str, value_masked: bool) -> None:
    assert ("Zq7X" not in redact(text)) is value_masked


def test_masks_never_begin_or_end_inside_an_escape() -> None:
    from jlgcli.artifacts.escapes import whole_escapes

    data = b'a\\u0041b \\\\n \\"x'
    assert whole_escapes(data, 3, 4) == (1, 7)  # inside \u0041, both ends
    assert whole_escapes(data, 0, 2) == (0, 7)
    assert whole_escapes(data, 10, 11) == (9, 11)  # inside the escaped backslash
    assert whole_escapes(data, 11, 12) == (11, 12)  # after an escaped backslash: an n
    assert whole_escapes(data, 14, 15) == (13, 15)  # inside \"
    assert whole_escapes(b"x\\u00", 2, 4) == (1, 4)  # a \u cut short: two bytes
    assert whole_escapes(b"plain text", 2, 5) == (2, 5)


def test_a_line_that_only_looks_like_json_is_masked_as_plain_text() -> None:
    text = '{not json "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----'
    assert redact(text) == '{not json "[REDACTED]'
