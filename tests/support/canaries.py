"""Canary secrets of several families (issue 32), searched for in what jlgcli writes."""

from __future__ import annotations

BODY = "Cn7Xw2Lm9Pk4Rt6Vb8Nc3Hd5Jf1Gs0Ya"
CANARIES = {
    "anthropic": "sk-ant-api03-" + BODY + BODY,
    "github": "ghp_" + BODY + "AbCd",
    "aws": "AKIA" + "C7XW2LM9PK4RT6VB",
    "groq": "gsk_" + BODY + BODY[:16],
    "telegram": "123456789:A" + BODY + "Ab",
    "slack-app": "xapp-1-A0123BCDEF-" + BODY,
}
KEY = CANARIES["anthropic"]


def leaks(text: str) -> list[str]:
    """The canaries (by family) whose body is in ``text``."""
    found = [name for name, secret in CANARIES.items() if secret[-16:] in text]
    return found + (["api_key"] if "Hunter2Hunter2Pw9" in text else [])
