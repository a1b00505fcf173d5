"""The pty transport and the interactive driver through the real spawn path (backends.md §3)."""

from __future__ import annotations

import pytest

from jlgcli.ansi import clean_terminal_text
from jlgcli.process.model import InteractiveRecipe, Limits, StopReason

from .conftest import Runner

pytestmark = pytest.mark.skipif(
    __import__("os").name == "nt", reason="the POSIX pty; Windows runs pywinpty"
)

TUI = InteractiveRecipe(
    ready_pattern=r"^READY", done_pattern=r"^DONE", exit_sequence="/exit\r", step_timeout=20
)


def test_a_program_that_needs_a_terminal_refuses_a_pipe_and_runs_on_a_pty(run: Runner) -> None:
    piped = run("fake-agent", "--require-tty")
    assert (piped.outcome.exit_code, piped.text) == (1, "stdin is not a terminal\n")
    tty = run("fake-agent", "--require-tty", "--exit", "0", transport="pty")
    assert tty.outcome.ok


def test_window_size_is_explicit(run: Runner) -> None:
    rec = run("stty", "size", transport="pty", dimensions=(50, 132))
    assert rec.text.split() == ["50", "132"]


def test_typed_stdin_ends_with_eof_and_is_not_echoed(run: Runner) -> None:
    rec = run("fake-agent", "--echo-stdin", transport="pty", stdin="abc\n")
    assert rec.outcome.ok
    assert rec.text == "abc\r\n"


def test_typed_stdin_without_a_final_newline_still_reaches_eof(run: Runner) -> None:
    rec = run("fake-agent", "--echo-stdin", transport="pty", stdin="abc")
    assert rec.outcome.ok
    assert rec.text == "abc"


def test_tui_is_driven_through_ready_prompt_done_and_exit(run: Runner) -> None:
    # The TUI stalls on ESC[6n and ESC[c until they are answered: reaching READY proves it.
    rec = run("fake-agent", "--tui", transport="pty", stdin="hello there", interactive=TUI)
    assert rec.outcome.stop_reason is StopReason.EXITED
    assert rec.outcome.exit_code == 0
    assert "\x1b[" in rec.text  # sinks get the raw terminal stream
    lines = clean_terminal_text(rec.text).splitlines()
    assert "You said: hello there" in lines
    assert "bye" in lines


def test_tui_without_exit_sequence_is_ended_by_the_ladder_once_done(run: Runner) -> None:
    recipe = InteractiveRecipe(ready_pattern="READY", done_pattern="DONE", step_timeout=20)
    rec = run(
        "fake-agent",
        "--tui",
        transport="pty",
        stdin="hi",
        interactive=recipe,
        limits=Limits(total_timeout=60, kill_grace=0.5),
    )
    assert rec.outcome.stop_reason is StopReason.EXITED
    assert "interactive: the work is done; ending the program" in rec.logs
    assert "You said: hi" in clean_terminal_text(rec.text)


def test_ready_pattern_that_never_appears_times_out(run: Runner) -> None:
    recipe = InteractiveRecipe(ready_pattern="NEVER", step_timeout=0.3)
    rec = run(
        "fake-agent",
        "--silent-after-ready",
        transport="pty",
        stdin="p",
        interactive=recipe,
        limits=Limits(total_timeout=60, kill_grace=0.5),
    )
    assert rec.outcome.stop_reason is StopReason.TIMEOUT
    assert any("waiting for the ready pattern" in line for line in rec.logs)


def test_done_by_idle_silence(run: Runner) -> None:
    recipe = InteractiveRecipe(ready_pattern="READY", idle_seconds=0.3, exit_sequence="/exit\r")
    rec = run("fake-agent", "--tui", transport="pty", stdin="x", interactive=recipe)
    assert rec.outcome.ok
    assert "bye" in clean_terminal_text(rec.text)
