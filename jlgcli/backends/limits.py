"""Is a failure a rate limit, an exhausted quota, or an auth problem? (issue 16)

Three outcomes the run core treats differently:

- ``rate-limit``: the limit resets, waiting is worth it (with the reset time
  when the CLI states one, even a far one: "resets in 5 days");
- ``quota``: credit or quota exhausted with no useful reset ("You've run out
  of your included AI credits for the month."): fail over or stop;
- ``auth``: not logged in, bad key or token (exit 6);
- ``account``: the account needs its owner (on hold, a verification, cloud
  credentials to refresh): a fallback takes over, else exit 6 with the CLI's
  own remedy (issue 48);
- ``overloaded``: the service has no capacity right now, whatever the error's
  type says (gemini raises a capacity shortage as ``TerminalQuotaError``).

Adapters classify from their CLI's structured fields first (claude
``assistant.error``, copilot ``errorType``, gemini ``error.type``) and call
``classify_error_text`` only as a fallback, and only on the text of the
event that ended the turn: never on a successful answer, never on a retry
notice seen earlier. A quota-like message that states a reset ("Your quota
will reset after 19h14m47s") is a rate limit with that reset. Apostrophes
match ``'`` and ``’`` (codex 0.169 prints a curly one, backends.md §7).
"""

from __future__ import annotations

import re

from jlgcli.records import record

TYPE_CHECKING = False

if TYPE_CHECKING:  # types only: a run imports no typing (issue 49)
    from typing import Literal

    LimitKind = Literal["rate-limit", "quota", "auth", "overloaded", "account"]

_APOS = "['’]"
# Pattern sources, compiled by re's cache on first use (re.search): only a failed call's
# text is read with them, and compiling them at import cost every run ~1 ms.
_AUTH = (
    r"(?i)Not logged in|Please run /login|No authentication information found"
    r"|Authentication token found but could not be validated"
    r"|Please set an Auth method|Invalid API key|API key not valid|authentication_failed"
    r"|oauth_org_not_allowed|\b401\b.{0,20}Unauthorized|OAuth token (?:has )?expired"
    r"|Failed to authenticate"
    # codex protocol/src/error.rs (Unauthorized): "Your access token could not be refreshed
    # because your refresh token has expired. Please log out and sign in again."
    r"|refresh token has expired|access token could not be refreshed"
    # gemini core/turn.ts UnauthorizedError: "Request had invalid authentication credentials"
    r"|invalid authentication credentials"
)
# The account needs its owner's action (backends.md §10, claude 2.1.332's binary):
# account_on_hold "… View details or appeal: https://claude.ai/restricted";
# cloud_credential_error "Could not load AWS credentials … Check or refresh your AWS credentials".
_ACCOUNT = (
    r"(?i)claude\.ai/restricted|View details or appeal"
    r"|Could not load AWS credentials|refresh your AWS credentials"
)
# Credit or quota gone, no reset worth waiting for (unless the message states one).
_QUOTA = (
    r"(?i)out of (?:your )?(?:[\w-]+ )*credits"  # claude, codex workspace, copilot AI credits
    # claude (2.0.x: the text alone; 2.1.x adds error "billing_error"), backends.md §10
    r"|Credit balance is too low"
    # codex 0.171.0 binary: "You've reached your workspace credit limit" (credit, not a rate)
    r"|\bcredit limit\b"
    r"|\bspend(?:ing)? (?:cap|limit)\b"  # codex spend cap, copilot session, claude monthly
    r"|exhausted your (?:[\w-]+ )*quota"  # gemini daily quota
    r"|\bquota exceeded\b|exceeded your current quota|insufficient[_ ]quota"
    r"|check your plan and billing|\bbilling_error\b"
    # codex protocol/src/error.rs UsageLimitExceeded: "To use Codex with your ChatGPT plan,
    # upgrade to Plus: https://chatgpt.com/explore/plus."
    r"|To use Codex with your ChatGPT plan|upgrade to Plus\b"
)
# Account states claude labels ``error:"rate_limit"`` that never reset (backends.md §9): a
# stated reset does not make them worth waiting for.
_PERMANENT = (
    r"(?i)seat type doesn['’]t include usage credits"
    r"|usage allocation has been disabled by your admin"
    r"|usage limit is set to \$0|service is disabled for your org|org is out of usage"
)
# The service is overloaded after the CLI's own retries (backends.md §9): wait, back off.
_OVERLOADED = (
    r"(?i)Repeated 529|\b529\b.{0,20}Overloaded|overloaded_error|\bat capacity\b"
    r"|\bhigh demand\b|last status: 50[23]\b|\b503\b.{0,30}(?:Service )?Unavailable"
    r"|model is overloaded|\bstatus:? 503\b"
    r"|API Error: Overloaded\b"  # claude assistant.error "overloaded" (backends.md §10)
)
# A capacity shortage (backends.md §10), an overload whatever type or 429 carries it: gemini's
# MODEL_CAPACITY_EXHAUSTED "No capacity available for model … on the server" (raised as
# TerminalQuotaError in 0.61.0); codex 0.171.0 "Policy-restricted capacity is unavailable.
# Please try again later." and "Codex is currently experiencing high load."
_CAPACITY = (
    r"(?i)No capacity available for model|MODEL_CAPACITY_EXHAUSTED"
    r"|Policy-restricted capacity is unavailable|currently experiencing high load"
)
# A limit that resets: wait for it.
_RATE_LIMIT = (
    r"(?i)"
    rf"You{_APOS}ve (?:hit|reached) (?:your|a) (?:[\w-]+ )*limit"
    rf"|You{_APOS}ve used (?:up )?(?:all |\d+% )?(?:of )?your"
    rf"|You{_APOS}re out of (?:[\w-]+ )*usage"
    r"|usage limit|rate[ _-]?limit|\blimit reached\b|RESOURCE_EXHAUSTED|Too Many Requests"
    r"|\bstatus:? 429\b|\b429\b.{0,40}(?:request|quota|limit)|exhausted your capacity"
    # Google's 429 as gemini prints it (core/utils/errors.ts, backends.md §9): "Resource has
    # been exhausted (e.g. check quota).\nSuggested retry after 34.07s."
    r"|Resource has been exhausted"
)
# claude 1.x: "Claude AI usage limit reached|1750000000" (the reset as epoch seconds)
_PIPE_EPOCH = r"(?i)limit reached\|(\d{9,11})\b"


@record
class Verdict:
    """What a failure's text says: its kind, the line that says so, the reset if stated."""

    kind: LimitKind
    line: str
    reset: float | None = None


def classify_error_text(text: str, *, now: float | None = None) -> Verdict | None:
    """The limit/quota/auth verdict of one error message, or None for any other failure.

    The reset is looked for in the whole message ("…quota.\\nPlease retry in
    37.5s." states it on the next line).
    """
    if not text:
        return None
    account = re.search(_ACCOUNT, text)
    if account is not None:
        return Verdict("account", line_around(text, account.start()))
    auth = re.search(_AUTH, text)
    if auth is not None:
        return Verdict("auth", line_around(text, auth.start()))
    permanent = re.search(_PERMANENT, text)
    if permanent is not None:
        return Verdict("quota", line_around(text, permanent.start()))
    quota = re.search(_QUOTA, text)
    capacity = re.search(_CAPACITY, text)
    if capacity is not None and quota is None:
        return Verdict("overloaded", line_around(text, capacity.start()))
    limit = re.search(_RATE_LIMIT, text)
    found = quota or limit
    if found is None:
        overloaded = re.search(_OVERLOADED, text)
        if overloaded is None:
            return None
        return Verdict("overloaded", line_around(text, overloaded.start()))
    reset = reset_in(text, now=now)
    if quota is not None and reset is None:
        return Verdict("quota", line_around(text, quota.start()))
    return Verdict("rate-limit", line_around(text, found.start()), reset)


def structured_verdict(
    kind: LimitKind, message: str, *, reset: float | None = None, now: float | None = None
) -> Verdict:
    """A verdict a structured field decided; the message may only sharpen it.

    A ``quota`` whose message states a reset is a rate limit with that reset;
    a ``rate-limit`` with no reset whose message says credit is gone ("You're
    out of usage credits") is a quota.
    """
    line = first_line(message)
    if kind in ("auth", "overloaded", "account"):
        return Verdict(kind, line)
    if re.search(_CAPACITY, message) and not re.search(_QUOTA, message):
        return Verdict("overloaded", line)  # a shortage, whatever the type said
    if re.search(_PERMANENT, message):
        return Verdict("quota", line)
    stated = reset if reset is not None else reset_in(message, now=now)
    if stated is None and (kind == "quota" or re.search(_QUOTA, message)):
        return Verdict("quota", line)
    return Verdict("rate-limit", line, stated)


def reset_in(text: str, *, now: float | None = None) -> float | None:
    """The reset stated anywhere in ``text`` (epoch seconds), or None."""
    piped = re.search(_PIPE_EPOCH, text)
    if piped is not None:
        return float(piped.group(1))
    from jlgcli.backends.resets import parse_reset_time  # only where a limit was hit

    return parse_reset_time(text, now=now)


def find_rate_limit(text: str) -> str | None:
    """The line of ``text`` that says a usage/rate limit or quota was hit, or None."""
    match = re.search(_QUOTA, text) or re.search(_RATE_LIMIT, text)
    return line_around(text, match.start()) if match else None


def find_auth_error(text: str) -> str | None:
    """The line of ``text`` that says the CLI is not logged in / the key is bad, or None."""
    match = re.search(_AUTH, text)
    return line_around(text, match.start()) if match else None


def first_line(text: str) -> str:
    """The first non-empty line of ``text`` (at most 500 characters)."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:500]
    return ""


def line_around(text: str, index: int) -> str:
    """The line of ``text`` holding ``index``, stripped, at most 500 characters."""
    start = text.rfind("\n", 0, index) + 1
    end = text.find("\n", index)
    return text[start : end if end != -1 else len(text)].strip()[:500]
