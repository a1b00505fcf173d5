"""--json stdout and error lines are redacted like result.json (issue 15, RG-007)."""

from __future__ import annotations

import io
import json

import pytest

from jlgcli.output import emit_json, err

KEY = "sk-ant-api03-" + "J" * 24
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"


def test_emit_json_redacts_strings_and_secret_named_keys() -> None:
    out = io.StringIO()
    emit_json(
        {"summary": f"used {KEY}", "nested": {"apiKey": "short", "url": "redis://:pw123456@h"},
         "list": [STRIPE], "count": 3},
        out,
    )  # fmt: skip
    shown = out.getvalue()
    assert KEY not in shown and STRIPE not in shown and "pw123456" not in shown
    assert json.loads(shown) == {
        "summary": "used [REDACTED]",
        "nested": {"apiKey": "[REDACTED]", "url": "redis://:[REDACTED]@h"},
        "list": ["[REDACTED]"],
        "count": 3,
    }


def test_err_lines_are_redacted(capsys: pytest.CaptureFixture[str]) -> None:
    err(f"error: backend refused {KEY}")
    assert capsys.readouterr().err == "error: backend refused [REDACTED]\n"
