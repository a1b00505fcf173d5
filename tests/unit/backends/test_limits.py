"""The rate-limit / quota / auth text classifier (limits.py, issue 16).

Every message is quoted from the upstream source named next to it (research
notes backends.md §7/§8, checked 2026-11-23).
"""

from __future__ import annotations

import pytest

from jlgcli.backends.limits import (
    Verdict,
    classify_error_text,
    find_auth_error,
    find_rate_limit,
    structured_verdict,
)

NOW = 1_800_000_000.0

RATE_LIMITS = [
    # claude bundle template `You've hit your ${limit} · resets ${time}` (happy#465)
    "You've hit your limit · resets 1pm (Europe/Lisbon)",
    # claude 2.1.187 (claude-auto-resume PR #26)
    "You’ve hit your session limit · resets 4:20am (Europe/Warsaw)",
    # claude 2.1.330 adds " · progress saved" (backends.md §8)
    "You've hit your weekly limit · resets Oct 3, 9am (America/Chicago) · progress saved",
    # claude 2.0.x, before structured limit events (backends.md §8)
    "5-hour limit reached ∙ resets 3pm",
    # claude-code#79500
    "API Error: Rate limit reached",
    # codex 0.169 binary, curly apostrophe (codex-rs/protocol/src/error.rs)
    "You’ve hit your usage limit. Upgrade to Plus to continue using Codex "
    "(https://chatgpt.com/explore/plus), or try again at 3:05 PM.",
    # openai/codex#3899
    "■ You've hit your usage limit. Upgrade to Pro (…) or try again in 5 days 22 hours 11 minutes.",
    # gemini-cli#1088 / #5119
    '[API Error: got status: 429 Too Many Requests. {"status": "RESOURCE_EXHAUSTED"}]',
    # copilot cli-main.js (backends.md §8)
    "Sorry, you've hit a rate limit that restricts the number of Copilot model requests you "
    "can make within a specific time period. Please try again in 15 hours 23 minutes.",
    "You've reached your weekly rate limit.",
]

QUOTAS = [
    # gemini googleQuotaErrors.ts: TerminalQuotaError, no reset stated
    "[API Error: You have exhausted your daily quota on this model.]",
    # copilot cli-main.js (backends.md §8)
    "You've run out of your included AI credits for the month.",
    "You've reached the spending limit for this session.",
    # codex-rs/protocol/src/error.rs
    "Your workspace is out of credits. Add credits to continue.",
    "You hit your spend cap for this workspace.",
    # openai/codex#8987
    "Quota exceeded. Check your plan and billing details.",
    # claude bundle prefixes (backends.md §7)
    "You're out of usage credits",
    "You've hit your monthly spend limit.",
]

AUTHS = [
    # claude observed 2.1.197 (backends.md §3)
    "Not logged in · Please run /login",
    # claude bundle (backends.md §8)
    "Invalid API key · Fix external API key",
    # copilot observed 1.0.102 / cli-main.js (backends.md §3, §8)
    "Error: No authentication information found.",
    "Error: Authentication token found but could not be validated.",
    # gemini observed 0.61.0, exit 41 (backends.md §3)
    "Please set an Auth method in your /h/.gemini/settings.json or specify …",
    # gemini errorParsing.ts (backends.md §8)
    "[API Error: API key not valid. Please pass a valid API key. (Status: INVALID_ARGUMENT)]",
    # codex: openai/codex#2896, codex-rs/protocol/src/error.rs
    "stream error: exceeded retry limit, last status: 401 Unauthorized",
    "unexpected status 401 Unauthorized: Missing bearer or basic authentication in header",
]


@pytest.mark.parametrize("text", RATE_LIMITS)
def test_rate_limits(text: str) -> None:
    verdict = classify_error_text("some log line\n" + text + "\nmore", now=NOW)
    assert verdict is not None and verdict.kind == "rate-limit", verdict
    assert verdict.line == text.strip()
    assert find_rate_limit(text) is not None


@pytest.mark.parametrize("text", QUOTAS)
def test_quotas_without_a_reset(text: str) -> None:
    verdict = classify_error_text(text, now=NOW)
    assert verdict == Verdict("quota", text.strip(), None)


@pytest.mark.parametrize("text", AUTHS)
def test_auth_failures(text: str) -> None:
    verdict = classify_error_text(text, now=NOW)
    assert verdict is not None and verdict.kind == "auth" and verdict.line == text.strip()
    assert find_auth_error(text) is not None


@pytest.mark.parametrize(
    "text", ["all tests pass", "error 4290 in line 12", "Logged in using ChatGPT", ""]
)
def test_other_texts(text: str) -> None:
    assert classify_error_text(text) is None


def test_a_quota_that_states_a_far_reset_is_a_rate_limit_with_it() -> None:
    # gemini googleQuotaErrors.ts (capacity message): the reset is 19 h away, still a wait
    text = (
        "[API Error: You have exhausted your capacity on this model. "
        "Your quota will reset after 19h14m47s.]"
    )
    verdict = classify_error_text(text, now=NOW)
    assert verdict is not None and verdict.kind == "rate-limit"
    assert verdict.reset == NOW + 19 * 3600 + 14 * 60 + 47


def test_the_reset_on_the_line_after_the_match_is_read() -> None:
    # gemini-cli#1088 shape: the quota sentence, then "Please retry in 37.5s." on its own line
    text = "You exceeded your current quota, please check your plan and billing details.\n"
    text += "Please retry in 37.5s."
    verdict = classify_error_text(text, now=NOW)
    assert verdict is not None and verdict.kind == "rate-limit" and verdict.reset == NOW + 37.5
    assert verdict.line.startswith("You exceeded your current quota")


def test_claude_weekly_limit_in_5_days_keeps_its_reset() -> None:
    verdict = classify_error_text("You've hit your weekly limit · resets in 5 days", now=NOW)
    assert verdict == Verdict(
        "rate-limit", "You've hit your weekly limit · resets in 5 days", NOW + 5 * 86400
    )


def test_claude_1x_pipe_epoch() -> None:
    # claude 1.x printed "Claude AI usage limit reached|<epoch seconds>"
    verdict = classify_error_text("Claude AI usage limit reached|1800003600", now=NOW)
    assert verdict is not None and verdict.kind == "rate-limit" and verdict.reset == 1800003600


def test_structured_kind_wins_and_the_text_only_sharpens_it() -> None:
    # a structured rate limit with no reset whose text says the credit is gone → quota
    assert structured_verdict("rate-limit", "You're out of usage credits").kind == "quota"
    # a structured quota that states a reset → a rate limit with that reset
    sharpened = structured_verdict("quota", "Please try again in 2 hours", now=NOW)
    assert sharpened == Verdict("rate-limit", "Please try again in 2 hours", NOW + 7200)
    # a given reset (claude's resetsAt) beats the text
    assert structured_verdict("rate-limit", "limit", reset=NOW + 5).reset == NOW + 5
    assert structured_verdict("rate-limit", "something odd").kind == "rate-limit"
    assert structured_verdict("auth", "\n  bad token\nmore").line == "bad token"


def test_how_it_ended_never_says_code_none() -> None:
    """Issue 19 item 13: a signal-killed agent is not "exited with code None"."""
    from jlgcli.backends.common import how_it_ended

    assert how_it_ended("codex", 3) == "codex exited with code 3"
    assert how_it_ended("codex", None, 9) == "codex was killed by SIGKILL"
    assert how_it_ended("codex", None) == "codex was killed by a signal"


def test_argument_limits_per_os() -> None:
    """Issue 15: a prompt too long for the command line is checked, per OS, before spawning."""
    from jlgcli.backends.command import argument_limit

    windows = argument_limit(is_windows=True)
    assert windows.per_argument == windows.total <= 32_767
    linux = argument_limit(is_windows=False, platform="linux")
    assert linux.per_argument <= 131_072 <= linux.total * 2
    mac = argument_limit(is_windows=False, platform="darwin")
    assert mac.per_argument == mac.total
