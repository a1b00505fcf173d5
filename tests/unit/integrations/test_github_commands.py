"""Workflow commands stopped around what the model writes; a summary for bad inputs (issue 33)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from jlgcli.commands.run_actions import commands_stopped
from jlgcli.integrations.github import (
    error_markdown,
    new_stop_token,
    workflow_commands_stopped,
    write_error_summary,
)


def test_the_block_is_bracketed_by_stop_and_resume_with_one_token() -> None:
    out = io.StringIO()
    with workflow_commands_stopped(out, token=lambda: "tok") as token:
        out.write("::error::model text\n")
    assert token == "tok"
    assert out.getvalue() == "::stop-commands::tok\n::error::model text\n::tok::\n"


def test_commands_resume_even_when_the_block_raises() -> None:
    out = io.StringIO()
    with pytest.raises(RuntimeError), workflow_commands_stopped(out, token=lambda: "t"):
        raise RuntimeError
    assert out.getvalue().endswith("::t::\n")


@pytest.mark.parametrize(("data_on_stdout", "marked"), [(False, "out"), (True, "err")])
def test_in_actions_the_marks_go_where_the_model_text_streams(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    data_on_stdout: bool,
    marked: str,
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    with commands_stopped(data_on_stdout=data_on_stdout):
        pass
    captured = capsys.readouterr()
    assert "::stop-commands::" in getattr(captured, marked)
    assert "::" not in getattr(captured, "err" if marked == "out" else "out")


def test_outside_actions_nothing_is_written(capsys: pytest.CaptureFixture[str]) -> None:
    with commands_stopped(data_on_stdout=False):  # the tests' environment has no GITHUB_*
        pass
    assert capsys.readouterr() == ("", "")


def test_tokens_are_random() -> None:
    assert new_stop_token() != new_stop_token()
    assert len(new_stop_token()) > 30


def test_the_error_summary_quotes_and_redacts() -> None:
    text = error_markdown("t", "bad ```x``` sk-1", "try", lambda s: s.replace("sk-1", "R"))
    assert text.startswith("### ❌ t\n")
    assert "````text\nbad ```x``` R\n````" in text
    assert "**Hint:**" in text


def test_the_error_summary_is_skipped_or_warned_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_error_summary("t", "m", None, env={})  # not in Actions: nothing
    write_error_summary("t", "m", None, env={"GITHUB_STEP_SUMMARY": str(tmp_path)})  # a folder
    assert "cannot write GITHUB_STEP_SUMMARY" in capsys.readouterr().err
    target = tmp_path / "summary.md"
    write_error_summary("t", "m", None, env={"GITHUB_STEP_SUMMARY": str(target)})
    assert "**Hint:**" not in target.read_text("utf-8")
