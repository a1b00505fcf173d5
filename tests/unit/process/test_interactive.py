"""The interactive driver's steps and deadlines, on a fake clock (pty InteractiveRecipe)."""

from __future__ import annotations

from jlgcli.process.interactive import InteractiveDriver, Step
from jlgcli.process.model import InteractiveRecipe

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
