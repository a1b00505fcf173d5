"""Best-effort redaction of secrets in everything jlgcli writes (RG-007, DESIGN "secrets").

Recognised (docs/secrets.md): the provider token shapes of ``rules.py`` (taken
from gitleaks' rules, MIT, each pattern naming its rule), ``Bearer``/``Authorization``
credentials, URL user-info passwords (``postgres://admin:pw@db``), Sentry-style DSN
keys, PEM/PGP private-key blocks (held back across reads until their END line),
``curl -u``/``mysql -p``/netrc/Docker ``auth`` secrets, values assigned to secret
names (``NAME=value``, ``"name": "value"``, ``name: value``; ``is_secret_name``)
and, verbatim, the values (8+ characters) of such variables in the environment.
Tokens are found wherever they start, and lines holding a backslash or an ESC
byte are also read decoded (``views.py``): issue 32.

Speed (issue 18): on inputs of 8 KiB or more, one Hyperscan database
(``candidates.py``: a SIMD multi-pattern matcher, ~2 GB/s where ``re``
alternations run at 15-60 MB/s) finds the few places that may hold a secret — a
provider prefix, ``://``, ``-----BEGIN``, a secret-sounding name before
``=``/``:``, ``Bearer``, ``Authorization``, a known literal; the exact rules
below then run on those lines only. Shorter inputs, and platforms without a
Hyperscan wheel, get the exact rules on everything, with the same result.

It works on UTF-8 bytes: ``bytes.lower()`` is ASCII-only, so indices in the
lowered copy are indices in the original. Every scan is a substring search or a
pattern starting with a literal, which ``re`` runs at ~1.5 GB/s (a pattern
starting with a look-behind or a character class is 20x slower); patterns are
bounded, so the cost is linear in the input (~130 MB/s in all). It never raises.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, NewType

from jlgcli.artifacts.candidates import (
    FINDER_MIN,
    PEM_BEGIN,
    CandidateFinder,
    Span,
    compile_candidates,
    windows,
)
from jlgcli.artifacts.rules import (
    CONTEXT,
    NETRC,
    glued_ok,
    looks_like_password,
    token_spans,
)
from jlgcli.artifacts.views import DecodedView, needs_view

if TYPE_CHECKING:
    from jlgcli.artifacts.streaming import StreamRedactor as StreamRedactor

MASK = "[REDACTED]"
# Text that went through a Redactor. The functions that show text to a person
# (output.show, the dev reporter) take only this type: a new door that hands
# them raw text fails the type check (mypy --strict), not a review (issue 32).
Redacted = NewType("Redacted", str)
_MASK = MASK.encode()

_NAME_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.")

# Shapes anchored on a rare literal ("://", "-----BEGIN"): one regex, replacement
# in group "secret". URL user-info passwords (postgres://admin:pw@db), Slack
# webhooks, Sentry-style DSNs (a 32-hex public key as the user) and PEM private keys
# (an unterminated block is masked to the end of the text).
_ANCHORED = re.compile(
    rb"://(?:"
    rb"[^\s/:@\"'<>`]{0,256}:(?P<password>[^\s/@\"'<>`]{1,1024})(?=@)"
    rb"|(?P<dsn>[0-9a-f]{32})(?=@)"
    rb"|hooks\.slack\.com/services/(?P<webhook>[0-9A-Za-z_/\-]{8,512})"
    rb")"
    rb"|(?P<pem>-----BEGIN[ A-Z0-9]{0,64}PRIVATE KEY(?: BLOCK)?-----"
    rb"(?:[\s\S]{0,65536}?-----END[ A-Z0-9]{0,64}PRIVATE KEY(?: BLOCK)?-----|[\s\S]{0,65536}\Z))"
)
_ANCHORED_GROUPS = ("password", "dsn", "webhook", "pem")
_PEM_BEGIN = PEM_BEGIN

# Searched in the lowered text. A hit is a name ending in the keyword (and maybe
# a number: API_TOKEN_2), then a separator.
_ASSIGN_RULES = tuple(
    re.compile(kw + rb"""(?:_?[0-9]{1,3})?["']?[ \t]*[:=]""")
    for kw in (
        rb"token", rb"key", rb"secret", rb"pass(?:w(?:or)?d|phrase)?", rb"pwd",
        rb"cred(?:ential)?s?", rb"cookies?",
    )
)  # fmt: skip
_AUTHORIZATION = re.compile(rb"""authorization["']?[ \t]*[:=][ \t]*["']?[ \t]*""")
_SCHEME_CREDENTIAL = re.compile(rb"([A-Za-z][A-Za-z0-9_\-]{0,31}[ \t]+)([^\s\"'\x80-\xff]{8,4096})")
_BEARER = re.compile(rb"bearer[ \t]+")
_CREDENTIAL = re.compile(rb"[A-Za-z0-9\-._~+/]{8,4096}=*")
_UNQUOTED = re.compile(rb"[^\x00-\x20\x7f-\xff\"',;&()\[\]{}<>`]{1,4096}")
_DIGIT = re.compile(rb"[0-9]")
_PLACEHOLDERS = frozenset({b"null", b"none", b"nil", b"true", b"false", b"undefined"})
_NAME_MAX = 128
_QUOTED_MAX = 4096

_WORD_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SECRET_SUFFIXES = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIALS")
_SECRET_WORDS = ("CREDENTIAL", "CREDS", "COOKIE", "COOKIES")  # a secret even alone
_QUALIFIED_WORDS = ("KEY", "PASS", "PWD")  # a secret after another word: DB_PASS, not PWD
_KEY_COMPOUNDS = ("APIKEY", "ACCESSKEY", "SECRETKEY", "PRIVATEKEY", "SIGNINGKEY", "MASTERKEY")
ENV_VALUE_MIN = 8
_VIEW_DEPTH = 3

Edit = tuple[int, int, bytes]  # (start, end, replacement)


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


class Redactor:
    """Replaces secrets with ``[REDACTED]`` and counts how many it replaced (thread-safe).

    ``environ``: the variables whose secret-named values are masked verbatim
    (default: ``os.environ`` now); ``extra_values``: more literal secrets.
    """

    def __init__(
        self, *, environ: Mapping[str, str] | None = None, extra_values: Iterable[str] = ()
    ) -> None:
        env = os.environ if environ is None else environ
        values = {v for k, v in env.items() if len(v) >= ENV_VALUE_MIN and is_secret_name(k)}
        values.update(v for v in extra_values if len(v) >= ENV_VALUE_MIN)
        encoded = {v.encode("utf-8", "surrogatepass") for v in values}
        self._literals = sorted(encoded, key=len, reverse=True)
        self._finders: list[CandidateFinder | None] = []  # compiled on first need
        self._lock = threading.Lock()
        self.count = 0
        self.finder_min = FINDER_MIN  # inputs shorter than this skip the finder

    def redact(self, text: str) -> Redacted:
        """``text`` with every recognised secret replaced by ``[REDACTED]``."""
        data = text.encode("utf-8", "surrogatepass")
        return Redacted(self.redact_bytes(data).decode("utf-8", "surrogatepass"))

    def redact_bytes(self, data: bytes, *, spans: list[Span] | None = None) -> bytes:
        """The same on UTF-8 bytes (the transcript's fast path).

        ``spans``: the candidates in ``data`` when a scan of a buffer it begins
        has already found them (``candidate_spans``), so ``data`` is not scanned again.
        """
        edits = _non_overlapping(self._edits_near_candidates(data, spans))
        if not edits:
            return data
        with self._lock:
            self.count += len(edits)
        parts: list[bytes] = []
        pos = 0
        for start, end, replacement in edits:
            parts += (data[pos:start], replacement)
            pos = end
        parts.append(data[pos:])
        return b"".join(parts)

    def redact_obj(self, obj: Any) -> Any:
        """A copy of a JSON-like value with strings redacted and secret-named keys masked."""
        if isinstance(obj, str):
            return self.redact(obj)
        if isinstance(obj, Mapping):
            out: dict[Any, Any] = {}
            for key, value in obj.items():
                if (
                    isinstance(key, str)
                    and isinstance(value, str)
                    and value
                    and is_secret_name(key)
                ):
                    if value != MASK:
                        with self._lock:
                            self.count += 1
                    out[key] = MASK
                else:
                    out[key] = self.redact_obj(value)
            return out
        if isinstance(obj, (list, tuple)):
            return [self.redact_obj(item) for item in obj]
        return obj

    def stream(self) -> StreamRedactor:
        """A redactor for a stream cut into arbitrary chunks (one per output stream)."""
        from jlgcli.artifacts.streaming import StreamRedactor

        return StreamRedactor(self)

    def finder(self) -> CandidateFinder | None:
        """The candidate finder (compiled on the first call), or None without Hyperscan."""
        if not self._finders:
            with self._lock:
                if not self._finders:
                    self._finders.append(compile_candidates(self._literals))
        return self._finders[0]

    def candidate_spans(self, data: bytes) -> list[Span] | None:
        """Where the candidate finder sees a possible secret; None: read everything.

        None for inputs shorter than ``finder_min`` and without Hyperscan.
        """
        finder = self.finder() if len(data) >= self.finder_min else None
        return None if finder is None else finder.spans(data)

    def _edits_near_candidates(self, data: bytes, spans: list[Span] | None) -> list[Edit]:
        """``edits``, computed only on the lines where the candidate finder saw something."""
        if spans is None:
            spans = self.candidate_spans(data)
        if spans is None:
            return self.edits(data)
        edits: list[Edit] = []
        for lo, hi in windows(data, spans):
            if lo == 0 and hi == len(data):
                return self.edits(data)
            edits += [(start + lo, end + lo, new) for start, end, new in self.edits(data[lo:hi])]
        return edits

    def edits(self, data: bytes) -> list[Edit]:
        """Every replacement the rules want in ``data`` (possibly overlapping).

        The rules read ``data`` as it is and, when it holds a backslash or an ESC
        byte, as it reads decoded (views.py); a match in the decoded text masks
        the raw bytes behind it.
        """
        edits = self._spelled_edits(data)
        views: list[DecodedView] = []
        text = data
        # JSON inside JSON (a tool call's input, a script's source in a reply) is
        # escaped once per level: read up to _VIEW_DEPTH levels down.
        while len(views) < _VIEW_DEPTH and needs_view(text):
            view = DecodedView(text)
            if view.text == text:
                break
            views.append(view)
            text = view.text
            for start, end, new in self._spelled_edits(text):
                for outer in reversed(views):
                    start, end = outer.raw_span(start, end)
                if end > start:
                    edits.append((start, end, new))
        return edits

    def _spelled_edits(self, data: bytes) -> list[Edit]:
        edits: list[Edit] = []
        for literal in self._literals:
            start = data.find(literal)
            while start >= 0:
                edits.append((start, start + len(literal), _MASK))
                start = data.find(literal, start + len(literal))
        edits += _token_edits(data)
        if b"://" in data or _PEM_BEGIN in data:
            edits += _anchored_edits(data)
        lowered = data.lower()
        edits += _bearer_edits(data, lowered)
        if b"=" in data or b":" in data:
            edits += _authorization_edits(data, lowered)
            edits += _assignment_edits(data, lowered)
        edits += _context_edits(data, lowered)
        return edits


def _non_overlapping(edits: list[Edit]) -> list[Edit]:
    """Edits sorted by position, keeping the earliest (then longest) of overlapping ones."""
    edits.sort(key=lambda edit: (edit[0], -edit[1]))
    kept: list[Edit] = []
    last_end = 0
    for edit in edits:
        if edit[0] >= last_end:
            kept.append(edit)
            last_end = edit[1]
    return kept


def _token_edits(data: bytes) -> Iterator[Edit]:
    for start, end in token_spans(data):
        if glued_ok(data, start, end):
            yield start, end, _MASK


def _context_edits(data: bytes, lowered: bytes) -> Iterator[Edit]:
    for rule in CONTEXT:
        for match in rule.finditer(lowered):
            start, end = match.span(1)
            if rule is NETRC and not (
                (match.start() == 0 or lowered[match.start() - 1] in b" \t\r\n\"'")
                and looks_like_password(data[start:end])
            ):
                continue
            yield start, end, _MASK


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
    for rule in _ASSIGN_RULES:
        for match in rule.finditer(lowered):
            name_start = _name_start(data, match.start())
            if name_start is None:
                continue
            keyword_end = match.end() - 1
            while data[keyword_end - 1] in b"\"' \t":
                keyword_end -= 1
            name = data[name_start:keyword_end].decode("ascii")
            if not is_secret_name(name):
                continue
            value = _assigned_value(data, match.end(), colon=data[match.end() - 1] == 0x3A)
            if value is not None:
                yield value[0], value[1], _MASK


def _name_start(data: bytes, pos: int) -> int | None:
    """Start of the identifier ending at the keyword at ``pos``; None if it is too long."""
    start = pos
    while start > 0 and data[start - 1] in _NAME_CHARS:
        start -= 1
        if pos - start > _NAME_MAX:
            return None
    return start


def _assigned_value(data: bytes, pos: int, *, colon: bool) -> tuple[int, int] | None:
    """Span of the value after a separator, or None when it is not a literal secret."""
    size = len(data)
    while pos < size and data[pos] in b" \t":
        pos += 1
    if pos >= size:
        return None
    first = data[pos]
    if first in b"\"'":
        end = data.find(data[pos : pos + 1], pos + 1, pos + 1 + _QUOTED_MAX)
        if end <= pos + 1 or b"\n" in data[pos + 1 : end] or b"\r" in data[pos + 1 : end]:
            return None
        value = data[pos + 1 : end]
        if value == _MASK or value[:1] in (b"$", b"%", b"<", b"*"):
            return None
        return pos + 1, end
    found = _UNQUOTED.match(data, pos)
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


def __getattr__(name: str) -> Any:
    """``StreamRedactor`` (streaming.py) is importable from here, as it always was."""
    if name == "StreamRedactor":
        from jlgcli.artifacts.streaming import StreamRedactor

        return StreamRedactor
    raise AttributeError(name)
