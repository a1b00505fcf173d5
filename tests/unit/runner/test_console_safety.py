"""What the console prints is redacted and terminal-safe (issue 15, RG-007)."""

from __future__ import annotations

import io

from jlgcli.artifacts.redact import Redactor
from jlgcli.runner.console import Console

KEY = "sk-ant-api03-" + "Q" * 24
URL = "postgres://admin:hunter2pw@db/app"


def _console(
    *, json_mode: bool = False, verbosity: int = 1
) -> tuple[Console, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    console = Console(
        verbosity, json_mode=json_mode, out=out, err=err, redactor=Redactor(environ={})
    )
    return console, out, err


def test_osc52_and_screen_controls_never_reach_the_terminal_but_colours_do() -> None:
    console, out, _ = _console()
    console.assistant("\x1b]52;c;ZWNobyBvd25lZA==\x07copied?\n\x1b[2J\x1b[32mgreen\x1b[0m\n")
    console.end_live()
    assert out.getvalue() == "copied?\n\x1b[32mgreen\x1b[0m\n"


def test_a_key_split_across_two_reads_is_redacted_in_live_text() -> None:
    console, _, err = _console(json_mode=True)  # --json: live text goes to stderr
    console.assistant("here: " + KEY[:10])
    console.assistant(KEY[10:] + " and " + URL + "\nnext")
    console.end_live()
    shown = err.getvalue()
    assert KEY not in shown and "hunter2pw" not in shown
    assert shown == "here: [REDACTED] and postgres://admin:[REDACTED]@db/app\nnext\n"


def test_partial_live_line_is_shown_before_a_progress_line() -> None:
    console, _, err = _console(json_mode=True)
    console.assistant("thinking")
    console.progress("iteration 2")
    assert err.getvalue() == "thinking\n[jlgcli] iteration 2\n"


def test_lines_jlgcli_prints_are_redacted_and_sanitised() -> None:
    console, _, err = _console(verbosity=3)
    console.debug(f"spawn: claude --api-key={KEY}")
    console.warn("model said \x1b]0;title\x07sk_live_" + "a1" * 12)
    console.summary(f"summary: {URL}\n")
    text = err.getvalue()
    assert KEY not in text and "hunter2pw" not in text and "sk_live_" not in text
    assert "\x1b" not in text
    assert text.count("[REDACTED]") == 3
