"""Output by verbosity (seed 003 FR-7.1..FR-7.3, AC-6)."""

from __future__ import annotations

import io

from jlgcli.dev.report import Reporter, arrow_for, can_encode


class Stream(io.StringIO):
    def __init__(self, encoding: str = "utf-8") -> None:
        super().__init__()
        self._encoding = encoding

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding


def emit_all(reporter: Reporter) -> None:
    reporter.step(3, "context/implementation-notes.md")
    reporter.say("Resuming T-1 from step 3")
    reporter.info("summary")
    reporter.warn("careful")
    reporter.error("broken")
    reporter.file_op("write", "context/current-task.md")
    reporter.detail("prompt", "full prompt")
    reporter.live("streamed")


def test_normal() -> None:
    out, err = Stream(), Stream()
    emit_all(Reporter("normal", out, err))
    assert out.getvalue() == (
        "[3/8] Implement → context/implementation-notes.md\n"
        "Resuming T-1 from step 3\n  summary\nwarning: careful\n"
    )
    assert err.getvalue() == "error: broken\n"


def test_verbose_adds_prompts_file_operations_and_live_output() -> None:
    out, err = Stream(), Stream()
    reporter = Reporter("verbose", out, err)
    assert reporter.verbose
    emit_all(reporter)
    reporter.end_live()  # a partial live line waits for its newline (it may end in a key)
    text = out.getvalue()
    assert "  [write] context/current-task.md\n" in text
    assert "-------------------- prompt --------------------\nfull prompt\n" in text
    assert text.endswith("streamed")


KEY = "sk-ant-api03-" + "DevReporterKey0123456789ABCDEFabcdef"


def test_every_line_is_redacted_and_terminal_safe() -> None:
    # issue 32: the dev reporter writes as run/loop's console does
    out, err = Stream(), Stream()
    reporter = Reporter("verbose", out, err)
    reporter.error(f"its reply ended with:\n{KEY}")
    reporter.detail("reply", f"key={KEY}\x1b]52;c;c2VjcmV0\x07")
    reporter.live(KEY[:10])
    reporter.live(KEY[10:] + "\n")
    reporter.info(f"\\n{KEY}")
    for text in (out.getvalue(), err.getvalue()):
        assert KEY not in text and KEY[10:] not in text
        assert "\x1b]52" not in text
    assert "[REDACTED]" in err.getvalue()


def test_quiet_shows_only_errors() -> None:
    out, err = Stream(), Stream()
    emit_all(Reporter("quiet", out, err))
    assert out.getvalue() == ""
    assert err.getvalue() == "error: broken\n"


def test_old_windows_code_page_gets_ascii_arrow_and_replacements() -> None:
    out = Stream("cp1252")
    reporter = Reporter("normal", out, Stream("cp1252"))
    reporter.step(2, "x")
    reporter.info("emoji 🎉")
    assert out.getvalue() == "[2/8] Load Task -> x\n  emoji ?\n"
    assert arrow_for(None) == "->"
    assert not can_encode("→", "no-such-codec")
