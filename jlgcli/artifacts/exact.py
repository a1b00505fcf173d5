"""The exact rules of the redactor, grouped in families (issue 32; split from ``redact.py``).

Each family is the set of rules one kind of Hyperscan candidate stands for
(``candidates.py``): the provider tokens, the ``://``/``-----BEGIN`` anchored
shapes, ``Bearer``, ``Authorization``, the command-line and config contexts
(``curl -u``, ``mysql -p``, netrc, Docker ``auth``), assignments to secret names
and the known literal values. A window around candidates runs only the
families whose candidates it holds (``spelled_edits``): each family's
candidate pattern is a superset of its rules, so the result is the one of
running every rule, at a fraction of the work. Without a candidate scan (short
inputs, no Hyperscan) every family runs (``ALL``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence

from jlgcli.artifacts.candidates import (
    ALL,
    ANCHORED,
    ASSIGNMENTS,
    AUTHORIZATION,
    BEARER,
    CLASS_TOKENS,
    CONTEXTS,
    LITERALS,
    PEM_BEGIN,
    TOKENS,
    Candidate,
)
from jlgcli.artifacts.escapes import Edit, quoted_end, value_run
from jlgcli.artifacts.rules import (
    CONTEXT,
    NETRC,
    TOKEN,
    glued_ok,
    looks_like_password,
    token_spans,
)
from jlgcli.lazy_re import lazy

_MASK = b"[REDACTED]"

_NAME_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-."
_NAME_CHARS = frozenset(_NAME_BYTES)

# Shapes anchored on a rare literal ("://", "-----BEGIN"): one regex, replacement
# in group "secret". URL user-info passwords (postgres://admin:pw@db), Slack
# webhooks, Sentry-style DSNs (a 32-hex public key as the user) and PEM private keys
# (an unterminated block is masked to the end of the text).
_ANCHORED = lazy(
    lambda: (
        rb"://(?:"
        rb"[^\s/:@\"'<>`]{0,256}:(?P<password>"
        + value_run(rb"^\s/@\"'<>`", rb"{1,1024}")
        + rb")(?=@)"
        rb"|(?P<dsn>[0-9a-f]{32})(?=@)"
        rb"|hooks\.slack\.com/services/(?P<webhook>[0-9A-Za-z_/\-]{8,512})"
        rb")"
        rb"|(?P<pem>-----BEGIN[ A-Z0-9]{0,64}PRIVATE KEY(?: BLOCK)?-----"
        rb"(?:[\s\S]{0,65536}?-----END[ A-Z0-9]{0,64}PRIVATE KEY(?: BLOCK)?-----"
        # unterminated: to the end of the text, or of the JSON string it is in (issue 43)
        rb"|(?:[^\"\\]|\\[\s\S]){0,65536}(?:\Z|(?=\"))))"
    )
)
_ANCHORED_GROUPS = ("password", "dsn", "webhook", "pem")
_PEM_BEGIN = PEM_BEGIN

# Searched in the lowered text. A hit is a name ending in the keyword (and maybe
# a number: API_TOKEN_2), then a separator.
_ASSIGN_KEYWORDS = (
    rb"token", rb"key", rb"secret", rb"pass(?:w(?:or)?d|phrase)?", rb"pwd",
    rb"cred(?:ential)?s?", rb"cookies?",
)  # fmt: skip
_ASSIGN_TAIL = rb"""(?:_?[0-9]{1,3})?["']?[ \t]*[:=]"""
_ASSIGN_RULES = tuple(lazy(kw + _ASSIGN_TAIL) for kw in _ASSIGN_KEYWORDS)  # long inputs only
# The same as one alternation, for a window: one call instead of seven where the
# input is short (on long inputs a pattern led by a literal is 20x faster). No
# keyword holds another, so both find the same names before the same separators.
# (Equal at ~500 bytes of agent output, the seven 0.6x the time of the one at 1.4 KB,
# ~8 us less; but compiling the seven costs ~0.9 ms, which a one-shot run whose output
# is a few KB would pay for a few us: issue 50 left it here.)
_ASSIGN_ANY = re.compile(b"(?:" + b"|".join(_ASSIGN_KEYWORDS) + b")" + _ASSIGN_TAIL)
_ASSIGN_ANY_MAX = 4096
_AUTHORIZATION = lazy(
    rb"""authorization["']?[ \t]*[:=][ \t]*["']?[ \t]*""", needs=(b"authorization",)
)
# The rules searched in the lowered text, matched at a candidate of the raw text
# instead (``directed_edits``): case-insensitive, which is the same for ASCII.
_AUTHORIZATION_AT = lazy(_AUTHORIZATION.pattern, re.IGNORECASE)
_SCHEME_CREDENTIAL = lazy(
    lambda: (
        rb"([A-Za-z][A-Za-z0-9_\-]{0,31}[ \t]+)("
        + value_run(rb"^\s\"'\x80-\xff", rb"{8,4096}")
        + rb")"
    )
)
_BEARER = lazy(rb"bearer[ \t]+", needs=(b"bearer",))
_BEARER_AT = lazy(_BEARER.pattern, re.IGNORECASE)
_CONTEXT_AT = tuple(
    lazy(functools.partial(getattr, rule, "pattern"), re.IGNORECASE) for rule in CONTEXT
)
_NETRC_AT = _CONTEXT_AT[CONTEXT.index(NETRC)]
_CREDENTIAL = lazy(rb"[A-Za-z0-9\-._~+/]{8,4096}=*")
_UNQUOTED = lazy(lambda: value_run(rb"^\x00-\x20\x7f-\xff\"',;&()\[\]{}<>`", rb"{1,4096}"))
# The same where no backslash is met: what ``value_run`` matches there (4x faster).
_UNQUOTED_PLAIN = lazy(rb"[^\x00-\x20\x7f-\xff\"',;&()\[\]{}<>`\\]{1,4096}")
_DIGIT = lazy(rb"[0-9]")
_PLACEHOLDERS = frozenset({b"null", b"none", b"nil", b"true", b"false", b"undefined"})
_NAME_MAX = 128
_QUOTED_MAX = 4096

_WORD_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SECRET_SUFFIXES = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIALS")
_SECRET_WORDS = ("CREDENTIAL", "CREDS", "COOKIE", "COOKIES")  # a secret even alone
_QUALIFIED_WORDS = ("KEY", "PASS", "PWD")  # a secret after another word: DB_PASS, not PWD
_KEY_COMPOUNDS = ("APIKEY", "ACCESSKEY", "SECRETKEY", "PRIVATEKEY", "SIGNINGKEY", "MASTERKEY")


def is_secret_name(name: str) -> bool:
    """Whether a variable/key name says its value is a secret (``GITHUB_TOKEN``, ``apiKey``).

    The last word decides (a trailing number is skipped: ``API_TOKEN_2``):
    ``…TOKEN``, ``…SECRET``, ``…PASSWORD`` (``PGPASSWORD``), ``…CREDENTIALS``,
    ``COOKIE``; ``KEY``, ``PASS``, ``PWD`` after another word (``sort_key``,
    ``DB_PASS`` yes; bare ``key``/``monkey``/``PWD`` no).
    """
    words: list[str] = _WORD_RE.findall(name)
    while words and words[-1].isdigit():
        words.pop()
    if not words:
        return False
    last = words[-1].upper()
    if last.endswith(_SECRET_SUFFIXES) or last in _SECRET_WORDS:
        return True
    if last in _QUALIFIED_WORDS:
        return len(words) >= 2
    return last.endswith(_KEY_COMPOUNDS)


# The names of assignments (at most _NAME_MAX bytes each), cached: agent output names
# the same few variables again and again.
_secret_name = functools.lru_cache(maxsize=1024)(is_secret_name)


def spelled_edits(data: bytes, literals: Sequence[bytes], families: int = ALL) -> list[Edit]:
    """The replacements the rules of ``families`` want in ``data`` read as it is spelled."""
    edits: list[Edit] = []
    if families & LITERALS:
        for literal in literals:
            start = data.find(literal)
            while start >= 0:
                edits.append((start, start + len(literal), _MASK))
                start = data.find(literal, start + len(literal))
    if families & (TOKENS | CLASS_TOKENS):
        edits += _token_edits(data)
    if families & ANCHORED and (b"://" in data or _PEM_BEGIN in data):
        edits += _anchored_edits(data)
    if not families & (BEARER | AUTHORIZATION | CONTEXTS | ASSIGNMENTS):
        return edits
    lowered = data.lower()
    if families & BEARER:
        edits += _bearer_edits(data, lowered)
    if b"=" in data or b":" in data:
        if families & AUTHORIZATION:
            edits += _authorization_edits(data, lowered)
        if families & ASSIGNMENTS:
            edits += _assignment_edits(data, lowered)
    if families & CONTEXTS:
        edits += _context_edits(data, lowered)
    return edits


def directed_edits(data: bytes, candidates: list[Candidate], *, tokens: bool) -> list[Edit]:
    """The replacements of the DIRECTED families, each rule matched at its candidates.

    What ``spelled_edits`` finds in a window holding these candidates (the window
    reads as it is spelled), without searching the window: each rule is matched
    where its candidate starts, as the exact rules search from every start;
    ``tokens=False`` leaves the tokens to the window (its class-led tokens are
    searched there, and with them all others).
    """
    edits: list[Edit] = []
    for start, _, family in candidates:
        if family == TOKENS:
            token = TOKEN.match(data, start) if tokens else None
            if token and glued_ok(data, start, token.end()):
                edits.append((start, token.end(), _MASK))
        elif family == BEARER:
            edits += _bearer_at(data, start)
        elif family == AUTHORIZATION:
            found = _AUTHORIZATION_AT.match(data, start)
            cred = found and _SCHEME_CREDENTIAL.match(data, found.end())
            if cred:
                edits.append((cred.start(2), cred.end(2), _MASK))
        elif family == CONTEXTS:
            edits += _contexts_at(data, start)
    return edits


def _bearer_at(data: bytes, start: int) -> list[Edit]:
    if start and data[start - 1] in _NAME_CHARS:
        return []
    found = _BEARER_AT.match(data, start)
    cred = found and _CREDENTIAL.match(data, found.end())
    return [(cred.start(), cred.end(), _MASK)] if cred and _looks_random(cred.group()) else []


def _contexts_at(data: bytes, at: int) -> list[Edit]:
    edits: list[Edit] = []
    for rule in _CONTEXT_AT:
        match = rule.match(data, at)
        if match is None:
            continue
        start, end = match.span(1)
        if rule is _NETRC_AT and not (
            (at == 0 or data[at - 1] in b" \t\r\n\"'") and looks_like_password(data[start:end])
        ):
            continue
        edits.append((start, end, _MASK))
    return edits


def _token_edits(data: bytes) -> Iterator[Edit]:
    for start, end in token_spans(data):
        if glued_ok(data, start, end):
            yield start, end, _MASK


def _context_edits(data: bytes, lowered: bytes) -> Iterator[Edit]:
    for rule in CONTEXT:
        # from every start (``curl … curl -u``): a command inside another's match counts
        match = rule.search(lowered)
        while match:
            start, end = match.span(1)
            if rule is not NETRC or (
                (match.start() == 0 or lowered[match.start() - 1] in b" \t\r\n\"'")
                and looks_like_password(data[start:end])
            ):
                yield start, end, _MASK
            match = rule.search(lowered, match.start() + 1)


def _anchored_edits(data: bytes) -> Iterator[Edit]:
    for match in _ANCHORED.finditer(data):
        for group in _ANCHORED_GROUPS:
            if match.start(group) >= 0:
                yield match.start(group), match.end(group), _MASK
                break


def _bearer_edits(data: bytes, lowered: bytes) -> Iterator[Edit]:
    for match in _BEARER.finditer(lowered):
        start = match.start()
        if start and lowered[start - 1] in _NAME_CHARS:
            continue
        cred = _CREDENTIAL.match(data, match.end())
        if cred and _looks_random(cred.group()):
            yield cred.start(), cred.end(), _MASK


def _authorization_edits(data: bytes, lowered: bytes) -> Iterator[Edit]:
    for match in _AUTHORIZATION.finditer(lowered):
        cred = _SCHEME_CREDENTIAL.match(data, match.end())
        if cred:
            yield cred.start(2), cred.end(2), _MASK


def _looks_random(value: bytes) -> bool:
    """Prose ("bearer instrument") is not a credential; tokens have digits or are long."""
    return len(value) >= 16 or _DIGIT.search(value) is not None


def _assignment_edits(data: bytes, lowered: bytes) -> Iterator[Edit]:
    for rule in (_ASSIGN_ANY,) if len(data) < _ASSIGN_ANY_MAX else _ASSIGN_RULES:
        for match in rule.finditer(lowered):
            name_start = _name_start(data, match.start())
            if name_start is None:
                continue
            keyword_end = match.end() - 1
            while data[keyword_end - 1] in b"\"' \t":
                keyword_end -= 1
            name = data[name_start:keyword_end].decode("ascii")
            if not _secret_name(name):
                continue
            value = _assigned_value(data, match.end(), colon=data[match.end() - 1] == 0x3A)
            if value is not None:
                yield value[0], value[1], _MASK


def _name_start(data: bytes, pos: int) -> int | None:
    """Start of the identifier ending at the keyword at ``pos``; None if it is too long."""
    before = data[max(0, pos - _NAME_MAX - 1) : pos]
    run = len(before) - len(before.rstrip(_NAME_BYTES))  # (rstrip: one C call, no loop here)
    return None if run > _NAME_MAX else pos - run


def _assigned_value(data: bytes, pos: int, *, colon: bool) -> tuple[int, int] | None:
    """Span of the value after a separator, or None when it is not a literal secret."""
    size = len(data)
    while pos < size and data[pos] in b" \t":
        pos += 1
    if pos >= size:
        return None
    first = data[pos]
    if first in b"\"'":
        end = quoted_end(data, pos + 1, first, pos + 1 + _QUOTED_MAX)
        if end <= pos + 1:
            return None
        value = data[pos + 1 : end]
        if value == _MASK or value[:1] in (b"$", b"%", b"<", b"*"):
            return None
        return pos + 1, end
    found = _UNQUOTED_PLAIN.match(data, pos)
    if found is None or data[found.end() : found.end() + 1] == b"\\":
        found = _UNQUOTED.match(data, pos)  # an escape: read through it
    if found is None:
        return None
    value = found.group()
    after = data[found.end() : found.end() + 1]
    if value[:1] in (b"$", b"%", b"*", b"=", b">", b"\\") or after in (b"(", b"["):
        return None  # a reference, a comparison, an arrow, a call or a subscript: not a secret
    if value.lower() in _PLACEHOLDERS:
        return None
    if colon and not (len(value) >= 16 or _DIGIT.search(value)):
        return None  # "token: str" is a type annotation, "password: hunter2" is a secret
    return found.span()
