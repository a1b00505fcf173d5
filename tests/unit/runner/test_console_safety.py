"""What the console prints is redacted and terminal-safe (issue 15, RG-007)."""

from __future__ import annotations

import io
import json
import sys

from jlgcli.artifacts.redact import Redacted, Redactor
from jlgcli.backends.base import BackendRequest, BackendResult
from jlgcli.process.model import Invocation, Limits
from jlgcli.runner.console import Console
from jlgcli.runner.iteration import call_backend

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
    console.assistant(
        Redacted("\x1b]52;c;ZWNobyBvd25lZA==\x07copied?\n\x1b[2J\x1b[32mgreen\x1b[0m\n")
    )
    console.end_live()
    assert out.getvalue() == "copied?\n\x1b[32mgreen\x1b[0m\n"


class _DeltaParser:
    """Joins text deltas, one JSON object a line, as gemini's and copilot's parsers do."""

    def __init__(self) -> None:
        self.text = ""
        self._partial = ""

    def feed(self, _stream: str, text: str) -> str:
        *lines, self._partial = (self._partial + text).split("\n")
        delta = "".join(json.loads(line)["delta"] for line in lines if line.strip())
        self.text += delta
        return delta

    def finish(self, outcome: object) -> BackendResult:
        return BackendResult(text=self.text, ok=True, exit_code=0)


class _DeltaBackend:
    """Prints ``deltas`` as JSON lines, one read each."""

    def __init__(self, deltas: list[str]) -> None:
        self.deltas = deltas

    def parser(self) -> _DeltaParser:
        return _DeltaParser()

    def invocation(self, _request: object) -> Invocation:
        script = (
            "import json, sys, time\n"
            f"for delta in {self.deltas!r}:\n"
            "    sys.stdout.write(json.dumps({'delta': delta}) + '\\n'); sys.stdout.flush()\n"
            "    time.sleep(0.05)\n"
        )
        return Invocation(argv=[sys.executable, "-c", script])


def test_a_key_split_across_two_deltas_is_redacted_in_live_text_and_activity() -> None:
    # issue 32: each JSON line is redacted where it enters (neither holds the whole key);
    # the joined text is redacted once where the parser makes it, before the console and
    # the event stream (which take only Redacted text and redact nothing again).
    console, _, err = _console(json_mode=True)  # --json: live text goes to stderr
    seen: list[str] = []
    backend = _DeltaBackend(["here: " + KEY[:10], KEY[10:] + " and " + URL + "\nnext"])
    call = call_backend(
        backend,  # type: ignore[arg-type]
        BackendRequest(prompt="p", cwd="."),
        limits=Limits(total_timeout=30),
        console=console,
        on_text=seen.append,
        redactor=Redactor(environ={}),
    )
    shown = err.getvalue()
    assert KEY not in shown and "hunter2pw" not in shown
    # issue 43: the pieces' texts are read as one where they enter: each half is masked
    said = "here: [REDACTED][REDACTED] and postgres://admin:[REDACTED]@db/app\nnext"
    assert shown == said + "\n"
    assert "".join(seen) == said
    assert KEY[:10] not in call.result.text and KEY[10:] not in call.result.text


def test_live_text_is_shown_as_given_redacted_by_the_caller() -> None:
    console, _, err = _console(json_mode=True)
    console.assistant(Redacted("here: [REDACTED] and more"))
    console.end_live()
    assert err.getvalue() == "here: [REDACTED] and more\n"


def test_partial_live_line_is_shown_before_a_progress_line() -> None:
    console, _, err = _console(json_mode=True)
    console.assistant(Redacted("thinking"))
    console.progress("iteration 2")
    assert err.getvalue() == "thinking\n[jlgcli] iteration 2\n"


def test_lines_jlgcli_prints_are_redacted_and_sanitised() -> None:
    console, _, err = _console(verbosity=3)
    console.debug(f"spawn: claude --api-key={KEY}")
    console.warn("model said \x1b]0;title\x07sk_live_" + "a1" * 12)
    console.summary(Redactor().redact(f"summary: {URL}\n"))
    text = err.getvalue()
    assert KEY not in text and "hunter2pw" not in text and "sk_live_" not in text
    assert "\x1b" not in text
    assert text.count("[REDACTED]") == 3
