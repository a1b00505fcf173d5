"""Questions (seed 003 FR-4.3, FR-5.3, FR-6.3, step 8): defaults shown, --yes, no-TTY refusal."""

from __future__ import annotations

import io

import pytest

from jlgcli.dev.questions import (
    ABORT,
    Asker,
    commit_question,
    parse_answer,
    resume_question,
    retry_question,
    review_question,
)
from jlgcli.errors import DevExitCode, JlgError


def asker(lines: list[str], **kwargs: bool) -> tuple[Asker, io.StringIO]:
    err = io.StringIO()
    feed = iter(lines)
    return (
        Asker(
            assume_yes=kwargs.get("assume_yes", False),
            no_input=kwargs.get("no_input", False),
            interactive=kwargs.get("interactive", True),
            read_line=lambda: next(feed, ""),
            err=err,
        ),
        err,
    )


def test_prompt_shows_options_and_default() -> None:
    ask, err = asker(["\n"])
    answer = ask.ask(review_question())
    assert err.getvalue() == "Continue with another review iteration? (y/n/abort) [y]: "
    assert (answer.choice, answer.automatic) == ("y", False)


@pytest.mark.parametrize(
    ("typed", "choice"), [("abort\n", ABORT), ("A\n", ABORT), ("no\n", "n"), ("YES\n", "y")]
)
def test_typed_answers(typed: str, choice: str) -> None:
    ask, _ = asker([typed])
    assert ask.ask(review_question()).choice == choice


def test_invalid_answer_asks_again() -> None:
    ask, err = asker(["maybe\n", "n\n"])
    assert ask.ask(commit_question()).choice == "n"
    assert "please answer one of: y, n" in err.getvalue()
    assert err.getvalue().count("Commit these changes with this message? (y/n) [n]: ") == 2


def test_end_of_input_aborts() -> None:
    ask, _ = asker([])
    with pytest.raises(JlgError) as info:
        ask.ask(resume_question(4))
    assert info.value.code == DevExitCode.ABORTED


@pytest.mark.parametrize(
    ("no_input", "why"), [(False, "stdin is not a terminal"), (True, "--no-input")]
)
def test_nobody_to_ask_never_waits(no_input: bool, why: str) -> None:
    ask, err = asker(["y\n"], interactive=no_input, no_input=no_input)
    with pytest.raises(JlgError) as info:
        ask.ask(commit_question())
    assert info.value.code == DevExitCode.ABORTED
    assert why in info.value.message
    assert info.value.hint is not None and "--yes" in info.value.hint
    assert err.getvalue() == ""


def test_yes_answers_and_is_logged() -> None:
    ask, err = asker([], assume_yes=True, interactive=False)
    answer = ask.ask(commit_question())
    assert (answer.choice, answer.automatic) == ("y", True)
    assert err.getvalue() == "Commit these changes with this message? (y/n) [n]: y (--yes)\n"


def test_yes_gives_looping_answers_a_limited_number_of_times() -> None:
    ask, _ = asker([], assume_yes=True)
    assert [ask.ask(review_question()).choice for _ in range(3)] == ["y", ABORT, ABORT]
    retry = retry_question("implement", 2)
    assert [ask.ask(retry).choice for _ in range(3)] == ["retry", "retry", ABORT]
    assert ask.ask(retry_question("review", 0)).choice == ABORT


def test_show_adds_a_newline() -> None:
    ask, err = asker([])
    ask.show("context")
    assert err.getvalue() == "context\n"


def test_parse_answer() -> None:
    question = retry_question("fix", 1)
    assert parse_answer("r", question) == "retry"
    assert parse_answer("q", question) == ABORT
    assert parse_answer("y", question) is None
    assert parse_answer("", question) == "retry"
