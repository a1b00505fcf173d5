"""The interactive driver's steps and deadlines, on a fake clock (pty InteractiveRecipe)."""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

import pytest

from jlgcli.process import run_invocation
from jlgcli.process.interactive import InteractiveDriver, Step
from jlgcli.process.model import InteractiveRecipe, Invocation, Limits, StopReason

FAKE_TUI = Path(__file__).parent / "data" / "echo_tui.py"

RECIPE = InteractiveRecipe(
    ready_pattern=r"^> ", done_pattern="DONE", exit_sequence="/exit\r", step_timeout=10
)


def test_full_cycle_ready_prompt_done_exit() -> None:
    driver = InteractiveDriver(RECIPE, b"fix it", now=0.0)
    assert driver.step is Step.READY
    driver.feed("\x1b[1mwelcome\x1b[0m\r\n")
    assert driver.poll(1.0, 1.0).send == b""
    driver.feed("> ")
    assert driver.poll(2.0, 2.0).send == b"fix it\r"
    assert driver.step is Step.DONE
    driver.feed("working...\r\nDO")
    assert driver.poll(3.0, 3.0).send == b""
    driver.feed("NE\r\n")
    action = driver.poll(4.0, 4.0)
    assert (action.send, action.finish, driver.step) == (b"/exit\r", False, Step.EXIT)
    assert driver.next_deadline(4.0) == 14.0


def test_no_ready_pattern_sends_the_prompt_at_once() -> None:
    driver = InteractiveDriver(InteractiveRecipe(submit_sequence="\n"), b"go", now=0.0)
    assert driver.poll(0.0, 0.0).send == b"go\n"
    assert driver.step is Step.DONE


def test_ready_pattern_that_never_comes_times_out() -> None:
    driver = InteractiveDriver(RECIPE, b"p", now=0.0)
    driver.feed("loading")
    assert driver.poll(9.9, 1.0).timed_out is None
    action = driver.poll(10.0, 1.0)
    assert action.timed_out is not None and "ready" in action.timed_out
    assert driver.step is Step.FINISHED
    assert driver.next_deadline(1.0) is None


def test_idle_silence_counts_as_done_and_no_exit_sequence_means_finish() -> None:
    recipe = InteractiveRecipe(idle_seconds=2.0, step_timeout=30)
    driver = InteractiveDriver(recipe, b"p", now=0.0)
    driver.poll(0.0, 0.0)
    assert driver.next_deadline(5.0) == 7.0  # idle deadline before the step deadline
    driver.feed("answer")
    assert not driver.poll(6.0, 5.0).finish
    action = driver.poll(7.0, 5.0)
    assert action.finish and driver.step is Step.FINISHED


def test_done_pattern_before_the_prompt_does_not_count() -> None:
    driver = InteractiveDriver(RECIPE, b"p", now=0.0)
    driver.feed("DONE from a previous session\r\n> ")
    driver.poll(1.0, 1.0)
    assert driver.step is Step.DONE
    assert not driver.poll(2.0, 1.0).finish
    assert driver.step is Step.DONE


def test_program_that_ignores_the_exit_sequence_is_finished_at_the_deadline() -> None:
    recipe = InteractiveRecipe(done_pattern="DONE", exit_sequence="q", step_timeout=5)
    driver = InteractiveDriver(recipe, b"p", now=0.0)
    driver.poll(0.0, 0.0)
    driver.feed("DONE")
    assert driver.poll(1.0, 1.0).send == b"q"
    action = driver.poll(6.0, 1.0)
    assert action.finish and action.timed_out is None


def test_done_step_without_pattern_or_idle_times_out() -> None:
    driver = InteractiveDriver(InteractiveRecipe(step_timeout=3), b"p", now=0.0)
    driver.poll(0.0, 0.0)
    action = driver.poll(3.0, 2.0)
    assert action.timed_out is not None and "done" in action.timed_out


# --- issue 17: only the reply counts as done; multi-line prompts are one paste ----------

INSTRUCTIONS = b"Fix the bug.\nWhen you are finished, print this line alone:\nDONE\n"
DONE_RECIPE = InteractiveRecipe(ready_pattern=r"^> ", done_pattern=r"^DONE$", step_timeout=30)
PASTE_READY = "\x1b[?2004h> "  # a TUI that turned bracketed paste on, then its prompt


def test_the_echo_of_completion_instructions_is_not_taken_for_done() -> None:
    driver = InteractiveDriver(DONE_RECIPE, INSTRUCTIONS, now=0.0)
    driver.feed(PASTE_READY)
    driver.poll(1.0, 1.0)
    driver.feed("Fix the bug.\r\nWhen you are finished, print this line alone:\r\nDONE\r\n")
    assert not driver.poll(2.0, 2.0).finish
    driver.feed("working\r\nDONE\r\n")
    assert driver.poll(3.0, 3.0).finish


def test_an_echo_still_arriving_is_not_done() -> None:
    driver = InteractiveDriver(DONE_RECIPE, INSTRUCTIONS, now=0.0)
    driver.feed(PASTE_READY)
    driver.poll(1.0, 1.0)
    driver.feed("Fix the bug.\r\nsomething else\r\nDONE\r\n")  # echo incomplete
    assert not driver.poll(2.0, 2.0).finish


def test_an_echo_shown_twice_input_box_then_history_is_skipped() -> None:
    driver = InteractiveDriver(DONE_RECIPE, INSTRUCTIONS, now=0.0)
    driver.feed(PASTE_READY)
    driver.poll(1.0, 1.0)
    echo = "Fix the bug.\r\nWhen you are finished, print this line alone:\r\nDONE\r\n"
    driver.feed("│ " + echo.replace("\r\n", "\r\n│ ") + "\r\n" + echo)
    assert not driver.poll(2.0, 2.0).finish
    driver.feed("DONE\r\n")
    assert driver.poll(3.0, 3.0).finish


def test_without_echo_a_pasted_prompt_placeholder_then_done_is_done() -> None:
    driver = InteractiveDriver(DONE_RECIPE, INSTRUCTIONS, now=0.0)
    driver.feed("> ")
    driver.poll(1.0, 1.0)
    driver.feed("[Pasted text #1 +3 lines]\r\nworking\r\nDONE\r\n")
    assert driver.poll(2.0, 2.0).finish


def test_a_multi_line_prompt_is_one_bracketed_paste_then_submit() -> None:
    driver = InteractiveDriver(DONE_RECIPE, b"line one\nline two\n", now=0.0)
    driver.feed(PASTE_READY)
    assert driver.poll(1.0, 1.0).send == b"\x1b[200~line one\rline two\x1b[201~\r"


def test_the_recipes_own_newline_sequence_replaces_the_paste() -> None:
    recipe = InteractiveRecipe(newline_sequence="\x1b\r", submit_sequence="\r")
    driver = InteractiveDriver(recipe, b"a\r\nb", now=0.0)
    assert driver.poll(0.0, 0.0).send == b"a\x1b\rb\r"


def test_a_single_line_prompt_is_typed_as_is() -> None:
    driver = InteractiveDriver(InteractiveRecipe(), b"just this\n", now=0.0)
    assert driver.poll(0.0, 0.0).send == b"just this\r"


@pytest.mark.skipif(os.name == "nt", reason="the fake TUI uses POSIX raw mode")
def test_a_fake_tui_gets_one_submission_and_the_exit_only_after_its_reply(
    tmp_path: Path,
) -> None:
    record = tmp_path / "record.jsonl"
    recipe = InteractiveRecipe(
        ready_pattern=r"^> ", done_pattern=r"^DONE$", exit_sequence="/exit\r", step_timeout=30
    )
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*fork.*", category=DeprecationWarning)
        outcome = run_invocation(
            Invocation(
                (sys.executable, str(FAKE_TUI), str(record)),
                transport="pty",
                stdin=INSTRUCTIONS,
                interactive=recipe,
            ),
            limits=Limits(total_timeout=60, kill_grace=0.5),
        )
    lines = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    assert lines == [{"submitted": INSTRUCTIONS.decode().rstrip("\n")}, {"submitted": "/exit"}]
    assert (outcome.stop_reason, outcome.exit_code) == (StopReason.EXITED, 0)


# --- issue 34: the reply is what the program printed; paste only when it turned it on -----


def test_a_line_based_repl_gets_one_line_and_never_a_paste() -> None:
    # no ESC[?2004h: a literal ESC[200~ would reach it (issue 34)
    driver = InteractiveDriver(DONE_RECIPE, INSTRUCTIONS, now=0.0)
    driver.feed("> ")
    sent = driver.poll(1.0, 1.0).send
    assert sent == b"Fix the bug. When you are finished, print this line alone: DONE\r"
    driver.feed("Fix the bug. When you are finished, print this line alone: DONE\r\n")
    assert not driver.poll(2.0, 2.0).finish  # its echo is not the reply
    driver.feed("fixed it\r\nDONE\r\n> ")
    assert driver.poll(3.0, 3.0).finish and driver.reply == "fixed it\r\nDONE".replace("\r", "")


def test_paste_mode_turned_off_again_is_off() -> None:
    driver = InteractiveDriver(DONE_RECIPE, b"a\nb", now=0.0)
    driver.feed("\x1b[?2004hhi\r\n\x1b[?2004l> ")
    assert driver.poll(1.0, 1.0).send == b"a b\r"


def test_the_reply_is_between_the_echo_and_the_done_match() -> None:
    recipe = InteractiveRecipe(ready_pattern=r"^> ", done_pattern=r"^DONE$",
                               exit_sequence="/exit\r", step_timeout=30)  # fmt: skip
    driver = InteractiveDriver(recipe, b"add the helper", now=0.0)
    driver.feed("\x1b[2Jwelcome\r\n> ")
    driver.poll(1.0, 1.0)
    driver.feed("add the helper\r\n\x1b[1mthinking\x1b[0m\r\nwrote slug.py\r\nDONE\r\n> ")
    action = driver.poll(2.0, 2.0)
    assert action.send == b"/exit\r"
    assert driver.reply == "thinking\nwrote slug.py\nDONE"  # no prompt redraw, no banner
    driver.feed("/exit\r\nbye!\r\n")  # the exit message is not part of it
    assert driver.reply.splitlines()[-1] == "DONE"


def test_a_reply_done_by_silence_is_all_after_the_echo() -> None:
    recipe = InteractiveRecipe(idle_seconds=2, step_timeout=30)
    driver = InteractiveDriver(recipe, b"hello", now=0.0)
    driver.poll(0.0, 0.0)
    driver.feed("hello\r\nhi there\r\n")
    assert driver.poll(5.0, 1.0).finish and driver.reply == "hi there"


def test_a_reply_whose_echo_was_cut_short_keeps_everything() -> None:
    recipe = InteractiveRecipe(ready_pattern=r"^> ", done_pattern=r"^DONE$", step_timeout=30)
    driver = InteractiveDriver(recipe, b"first line\nsecond line", now=0.0)
    driver.feed(PASTE_READY)
    driver.poll(1.0, 1.0)
    driver.feed("first line\r\nanswer\r\nDONE\r\n")  # the echo's second line never came
    assert driver.poll(2.0, 2.0).finish and driver.reply == "first line\nanswer\nDONE"
