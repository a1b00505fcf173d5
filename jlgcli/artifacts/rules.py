"""The secret shapes the redactor knows, and where each comes from (issue 32).

The provider shapes follow gitleaks' rule set (https://github.com/gitleaks/gitleaks,
``cmd/generate/config/rules/*.go`` → ``config/gitleaks.toml``, MIT licence,
Copyright (c) 2019 Zachary Rice), read in 2026; the Discord bot token shape
follows detect-secrets' ``discord.py`` plugin (https://github.com/Yelp/detect-secrets,
Apache-2.0). They are written here as bytes patterns: gitleaks' entropy filters
and allow-lists are left out (masking a look-alike costs nothing; a leak does).
The comment after each pattern names the rule it follows.

Every token pattern starts with its own literal: the token is found wherever it
starts (after ``-``, ``_``, a digit, ``%22``, an ANSI colour code or a JSON
escape), not only at the start of a word. A token glued to a preceding letter
or digit must also look random (``glued_ok``), so ``task-runner-configuration``
is not taken for an ``sk-`` key.
"""

from __future__ import annotations

import re

from jlgcli.artifacts.escapes import value_run
from jlgcli.lazy_re import lazy

TOKEN = re.compile(
    b"|".join((
        rb"sk-[A-Za-z0-9_\-]{16,1024}",  # openai-api-key, anthropic-api-key (sk-proj-, sk-ant-)
        rb"gh[pousr]_[A-Za-z0-9]{30,255}",  # github-pat, github-oauth, github-app-token
        rb"github_pat_[A-Za-z0-9_]{30,255}",  # github-fine-grained-pat
        rb"eyJ[A-Za-z0-9_\-]{13,1024}\.[A-Za-z0-9_\-]{8,8192}\.[A-Za-z0-9_\-]{8,1024}",  # jwt
        rb"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![A-Za-z0-9_\-])",  # aws-access-token
        rb"AIza[0-9A-Za-z_\-]{35}(?![A-Za-z0-9_\-])",  # gcp-api-key
        rb"ya29\.[0-9A-Za-z_\-]{20,2048}",  # gcp oauth access token (ya29.)
        rb"GOCSPX-[0-9A-Za-z_\-]{28}",  # gcp oauth client secret
        rb"xox[abposre]-[0-9A-Za-z\-]{11,255}",  # slack-bot/user/legacy tokens
        rb"xapp-[0-9]-[0-9A-Za-z\-]{10,255}",  # slack-app-token
        rb"[sr]k_(?:live|test)_[0-9A-Za-z]{10,247}",  # stripe-access-token
        rb"glpat-[0-9A-Za-z_\-]{20,64}",  # gitlab-pat
        rb"npm_[0-9A-Za-z]{36}(?![A-Za-z0-9_\-])",  # npm-access-token
        rb"hf_[A-Za-z]{34}(?![A-Za-z0-9_\-])",  # huggingface-access-token
        rb"pypi-AgEIcHlwaS5vcmc[0-9A-Za-z_\-]{50,1024}",  # pypi-upload-token
        rb"gsk_[A-Za-z0-9]{48}",  # groq-api-key
        rb"xai-[A-Za-z0-9_]{32,128}",  # xai-api-key
        rb"r8_[A-Za-z0-9]{37}",  # replicate api token (r8_ + 37)
        rb"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}",  # sendgrid-api-token
        rb"SK[0-9a-fA-F]{32}(?![A-Za-z0-9])",  # twilio-api-key
    ))
)  # fmt: skip
# Shapes that start with a character class make a ``re`` alternation try every
# position (20x slower): each is searched from a literal inside it instead.
_DISCORD = lazy(rb"[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}")
_DISCORD_DOT = re.compile(rb"\.[A-Za-z0-9_\-]{6}\.")  # discord bot token (detect-secrets)
_TELEGRAM = re.compile(rb":A[A-Za-z0-9_\-]{34}(?![A-Za-z0-9_\-])")  # telegram-bot-api-token
_TELEGRAM_ID = lazy(rb"[0-9]{5,16}\Z")


# The literals TOKEN's branches start with: a substring search for each (~GB/s)
# and a match where one is found beat one ``re`` scan of the alternation (~30 MB/s).
# ("gh" stands for the five gh?_ prefixes: TOKEN matched there tells which.)
_PREFIXES = (
    b"sk-", b"gh", b"github_pat_", b"eyJ", b"A3T", b"AKIA", b"ASIA", b"ABIA", b"ACCA",
    b"AIza", b"ya29.", b"GOCSPX-", b"xox", b"xapp-", b"sk_", b"rk_", b"glpat-", b"npm_",
    b"hf_", b"pypi-", b"gsk_", b"xai-", b"r8_", b"SG.", b"SK",
)  # fmt: skip


# Below this size one regex pass over every start is cheaper than a substring search per
# prefix (25 of them, ~1 GB/s each): ~60 ns a byte against ~0.5 us a prefix plus ~1 ns a
# byte. Measured on agent output (issue 50): equal at ~200 bytes; at 1.4 KB (one turn of
# claude's stream-json, redacted whole: shorter than the candidate finder's minimum) the
# regex pass took 2x as long. A window around a candidate (a line) stays below it.
_SCAN_BY_PREFIX = 256


def token_spans(data: bytes) -> list[tuple[int, int]]:
    """Where a provider token is in ``data`` (the boundary check is ``glued_ok``'s)."""
    spans = _by_search(data) if len(data) < _SCAN_BY_PREFIX else _by_prefix(data)
    for match in _TELEGRAM.finditer(data):
        bot_id = _TELEGRAM_ID.search(data, max(0, match.start() - 16), match.start())
        if bot_id:
            spans.append((bot_id.start(), match.end()))
    for match in _DISCORD_DOT.finditer(data):
        for back in (24, 25, 26):
            found = _DISCORD.match(data, max(0, match.start() - back))
            if found and found.start() + back == match.start():
                spans.append(found.span())
                break
    return spans


def _by_search(data: bytes) -> list[tuple[int, int]]:
    """Every match of ``TOKEN`` from every start, by one regex search after another.

    (Every start, as ``_by_prefix``: a token inside a longer match that ``glued_ok``
    then refuses, ``task-runner-…-ya29.…``, is still a token.)
    """
    spans: list[tuple[int, int]] = []
    found = TOKEN.search(data)
    while found:
        spans.append(found.span())
        found = TOKEN.search(data, found.start() + 1)
    return spans


def _by_prefix(data: bytes) -> list[tuple[int, int]]:
    """The same spans (in another order): ``TOKEN`` matched where one of its prefixes is."""
    spans: list[tuple[int, int]] = []
    match_at = TOKEN.match
    for prefix in _PREFIXES:
        pos = data.find(prefix)
        while pos >= 0:
            found = match_at(data, pos)
            if found:
                spans.append(found.span())
            pos = data.find(prefix, pos + 1)
    return spans


# Hyperscan candidates for TOKEN (a superset; no look-around in Hyperscan syntax);
# the last one starts with a character class (candidates.END_ONLY_PATTERNS). A
# Discord token is found from its ".xxxxxx." middle and what follows: a
# "[MNO]" then 23 word characters (no literal to start from) made the whole
# scan 2x slower, this form 1.25x (issue 32 speed).
TOKEN_CANDIDATES = (
    rb"sk-|gh[pousr]_|github_pat_|eyJ|A3T|A[KSB]IA|ACCA|AIza|ya29\.|GOCSPX-",
    rb"xox[a-z]-|xapp-|[sr]k_(?:live|test)_|glpat-|npm_|hf_|pypi-|gsk_|xai-|r8_|SG\.",
    rb"SK[0-9a-fA-F]{8}|[0-9]{5}:A|\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27}",
)

# Secrets given in a command line or a config format (gitleaks curl-auth-user;
# mysql's -pPASSWORD; netrc's password field; Docker's config.json "auth"),
# replaced in group "secret". Matched case-insensitively on whole lines.
# Each is searched in the lowered text (so case-insensitive) from its literal.
# A value ends at a JSON escape as it would at the decoded character (issue 43).
CONTEXT = (
    lazy(
        lambda: (
            rb"curl\b[^\n]{0,2048}?[ \t](?:-u|--user)(?:=|[ \t]{1,5})[\"']?[^\s:\"']{1,256}:"
            rb"(" + value_run(rb"^\s\"'", rb"{3,256}") + rb")"
        ),
        needs=(b"curl",),
    ),
    lazy(
        lambda: (
            rb"(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,2048}?[ \t]-p("
            + value_run(rb"^\s\"'\-", b"")
            + value_run(rb"^\s\"'", rb"{0,255}")
            + rb")"
        ),
        needs=(b"mysql", b"mariadb"),
    ),
    # netrc: only after a space or a line start
    lazy(
        lambda: rb"password[ \t]+(" + value_run(rb"^\s\"'", rb"{3,1024}") + rb")",
        needs=(b"password",),
    ),
    lazy(rb"\"auth\"[ \t]*:[ \t]*\"([a-z0-9+/=]{8,4096})\"", needs=(b'"auth"',)),
)
NETRC = CONTEXT[2]
# (a JSON-escaped line spells a tab \\t and a quote \\": the exact rules read it decoded)
CONTEXT_CANDIDATES = rb"curl|mysql|mariadb|password(?:[ \t]|\\t)|\"auth\\?\""

_DIGITS = frozenset(b"0123456789")
_UPPER = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_ALNUM = _DIGITS | _UPPER | frozenset(b"abcdefghijklmnopqrstuvwxyz")


def glued_ok(data: bytes, start: int, end: int) -> bool:
    """Whether a token at ``start`` counts: it starts a word, or it looks random.

    A key glued to a letter or digit (``9sk-…``, ``%22sk-…``, ``\\nsk-…``) is
    still a key: real ones mix digits and capitals; kebab-case words do not.
    """
    if start == 0 or data[start - 1] not in _ALNUM:
        return True
    value = data[start:end]
    return any(c in _DIGITS for c in value) and any(c in _UPPER for c in value)


def looks_like_password(value: bytes) -> bool:
    """A netrc/prose ``password word``: a word of lower-case letters is prose, not a secret."""
    return not value.isalpha() or not value.islower()
