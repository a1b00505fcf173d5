"""Iteration prompts (F-004 step 1) and prompt reading (DESIGN "prompt source", F-003)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from jlgcli.errors import ExitCode, JlgError
from jlgcli.prompts import read_prompt
from jlgcli.runner import prompting


def test_first_prompt_appends_the_protocol() -> None:
    text = prompting.first_prompt("Do X.\n", "End with DONE.")
    assert text.startswith("Do X.") and text.rstrip().endswith("End with DONE.")
    assert prompting.first_prompt("Do X.", "") == "Do X."


def test_previous_report_prefers_summary_and_next() -> None:
    assert prompting.previous_report("long text", "did A", "do B") == "Summary: did A\nNext: do B"
    tail = prompting.previous_report("x" * 5000 + "END", None, None)
    assert tail.endswith("END") and len(tail) <= prompting.TAIL_CHARS + 1
    assert "no message" in prompting.previous_report("  \x1b[31m\x1b[0m ", None, None)


def test_next_prompt_fresh_and_continue() -> None:
    fresh = prompting.next_prompt(
        "TASK", "PROTOCOL", iteration=2, max_iterations=5, report="did A", continue_session=False
    )
    assert fresh.startswith("TASK") and "Iteration 2 of 5" in fresh and "did A" in fresh
    assert fresh.rstrip().endswith("PROTOCOL")
    resumed = prompting.next_prompt(
        "TASK", "PROTOCOL", iteration=3, max_iterations=5, report="did B", continue_session=True
    )
    assert "TASK" not in resumed and "Iteration 3 of 5" in resumed and "PROTOCOL" in resumed


def test_read_prompt_file_with_bom_and_crlf(tmp_path: Path) -> None:
    path = tmp_path / "task.md"
    path.write_bytes(b"\xef\xbb\xbfline 1\r\nline 2\r\n")
    prompt = read_prompt(str(path))
    assert prompt.text == "line 1\nline 2\n"
    assert prompt.source == str(path)


def test_read_prompt_from_stdin() -> None:
    prompt = read_prompt("-", stdin=io.BytesIO("tâche\n".encode()))
    assert (prompt.text, prompt.source) == ("tâche\n", "-")


def test_invalid_utf8_is_66_naming_the_byte(tmp_path: Path) -> None:
    # issue 31: it used to be replaced by U+FFFD and sent (DESIGN: 66 "not UTF-8")
    path = tmp_path / "task.md"
    path.write_bytes(b"ok \xff\xfe end")
    with pytest.raises(JlgError) as info:
        read_prompt(str(path))
    assert info.value.code == ExitCode.NO_INPUT and "at byte 3" in info.value.message


@pytest.mark.parametrize("source", ["missing.md", "Explique ce repo"])
def test_missing_file_is_66_with_a_hint(source: str, tmp_path: Path) -> None:
    # F-003 "Fichier introuvable → exit 66"; US-4's `run "text"` is not a prompt (DESIGN)
    with pytest.raises(JlgError) as info:
        read_prompt(source, cwd=tmp_path)
    assert info.value.code == ExitCode.NO_INPUT
    assert info.value.hint


def test_directory_and_empty_prompt(tmp_path: Path) -> None:
    with pytest.raises(JlgError) as info:
        read_prompt(str(tmp_path))
    assert info.value.code == ExitCode.NO_INPUT
    empty = tmp_path / "empty.md"
    empty.write_text(" \n\n", encoding="utf-8")
    with pytest.raises(JlgError) as info:
        read_prompt(str(empty))
    assert info.value.code == ExitCode.USAGE


def test_relative_to_cwd(tmp_path: Path) -> None:
    (tmp_path / "t.md").write_text("hello", encoding="utf-8")
    assert read_prompt("t.md", cwd=tmp_path).text == "hello"


def test_an_answer_rides_the_next_prompt_once_in_the_session_that_asked() -> None:
    """Issue 51: the question and the answer go into the next prompt, to the session that
    asked even in fresh mode (no task restated); a remembered reply ends it."""
    prompter = prompting.Prompter("Do X.", "PROTO", max_iterations=5, fresh=True)
    prompter.report = "QUESTION: Which colour?"
    prompter.answered("Which colour?", " Blue \n")
    text = prompter.prompt_for(2, "s1")
    assert "Your question was:\nWhich colour?" in text and "The user's answer:\nBlue" in text
    assert "Do X." not in text  # the session that asked knows the task
    assert "Do X." in prompter.prompt_for(2, None)  # no session: the task is restated
    prompter.remember("painting", None, None, None)
    assert "Blue" not in prompter.prompt_for(3, None)
    assert "Your question" not in prompting.answer_block("", "yes")
