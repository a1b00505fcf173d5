"""GitHub Action outputs and job summary from a RunSummary (issue 8, F-005)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jlgcli.integrations import github
from jlgcli.runner.summary import ErrorInfo
from tests.unit.integrations.gha_format import parse_github_output


def test_outputs_carry_what_a_workflow_reads(make_summary):
    summary = make_summary(summary="fixed the bug", runDir="/r/run-1", costUsd=0.0123)
    values = github.output_values(summary)
    assert values["status"] == "done"
    assert values["exit-code"] == "0"
    assert values["iterations"] == "2"
    assert values["summary"] == "fixed the bug"
    assert values["run-dir"] == "/r/run-1"
    assert values["cost"] == "0.0123"
    assert values["stop-cause"] == "done"


def test_unknown_cost_and_run_dir_are_empty_not_zero(make_summary):
    values = github.output_values(make_summary(stopCause="max-iterations", text="last words\n"))
    assert values["cost"] == ""
    assert values["run-dir"] == ""
    assert values["exit-code"] == "4"
    assert values["status"] == "incomplete"
    assert values["summary"] == "last words"  # no model summary: the final message


def test_huge_text_output_is_capped(make_summary):
    values = github.output_values(make_summary(text="x" * (github.OUTPUT_TEXT_CAP + 10)))
    assert len(values["summary"]) < github.OUTPUT_TEXT_CAP + 20
    assert values["summary"].endswith("[truncated]")


def test_single_line_values_use_name_equals_value():
    assert github.format_outputs({"status": "done", "cost": ""}) == "status=done\ncost=\n"


def test_multiline_values_use_a_heredoc_with_a_fresh_delimiter():
    text = github.format_outputs({"summary": "a\nb"}, delimiter=lambda: "EOF123")
    assert text == "summary<<EOF123\na\nb\nEOF123\n"


def test_a_value_containing_the_delimiter_gets_another_one():
    marks = iter(["DELIM", "DELIM", "OTHER"])
    text = github.format_outputs({"summary": "x\nDELIM\ny"}, delimiter=lambda: next(marks))
    assert text.startswith("summary<<OTHER\n")
    assert parse_github_output(text) == {"summary": "x\nDELIM\ny"}


def test_carriage_returns_are_normalised():
    assert parse_github_output(github.format_outputs({"s": "a\r\nb\rc"})) == {"s": "a\nb\nc"}


def test_default_delimiters_are_random():
    assert github.new_delimiter() != github.new_delimiter()
    assert github.new_delimiter().startswith("ghadelimiter_")


@given(st.dictionaries(st.from_regex(r"[a-z][a-z-]{0,10}", fullmatch=True),
                       st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80),
                       max_size=5))  # fmt: skip
def test_any_values_round_trip_through_the_runner_format(values):
    expected = {k: v.replace("\r\n", "\n").replace("\r", "\n") for k, v in values.items()}
    assert parse_github_output(github.format_outputs(values)) == expected


def test_markdown_summary_has_status_table_summary_and_final_message(make_summary):
    summary = make_summary(
        summary="all good", text="Here it is ``` with fences\nDONE",
        costUsd=0.5, runDir=".jlgcli/runs/x", backendVersion="2.1.0",
    )  # fmt: skip
    text = github.markdown_summary(summary)
    assert text.startswith("### ✅ jlgcli loop: done\n")
    assert "| iterations | 2/5 |" in text
    assert "| cost | $0.5000 |" in text
    assert "| backend | claude 2.1.0 |" in text
    assert "| artifacts | `.jlgcli/runs/x` |" in text
    assert "**Summary:**\n```text\nall good\n```" in text
    assert "````text\nHere it is ``` with fences\nDONE\n````" in text  # fence longer than any run


def test_markdown_summary_shows_error_hint_and_escapes_table_cells(make_summary):
    summary = make_summary(
        stopCause="error", command="run", iterations=1, backend="a|b",
        error=ErrorInfo(code=1, message="bad | thing", hint="try\nthis"),
        diagnosis=["output tail: boom"],
    )  # fmt: skip
    text = github.markdown_summary(summary)
    assert text.startswith("### ❌ jlgcli run: error\n")
    assert "| iterations | 1 |" in text
    assert "| backend | a\\|b |" in text
    assert "**Error:**\n```text\nbad | thing\n```" in text  # quoted, not live Markdown
    assert "**Hint:**\n```text\ntry\nthis\n```" in text
    assert "```text\noutput tail: boom\n```" in text
    assert "<details>" not in text  # no final message
    assert "| cost | unknown |" in text


def test_markdown_summary_stays_under_the_step_summary_cap(make_summary):
    text = github.markdown_summary(make_summary(text="é" * 2_000_000))
    assert len(text.encode("utf-8")) <= github.SUMMARY_CAP_BYTES
    assert "… [truncated]" in text


def test_markdown_summary_hard_cap_guard(make_summary, monkeypatch):
    monkeypatch.setattr(github, "SUMMARY_CAP_BYTES", 100)
    assert len(github.markdown_summary(make_summary(text="word " * 100)).encode()) <= 101


@pytest.fixture
def gha(tmp_path: Path) -> dict[str, str]:
    return {"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": str(tmp_path / "out"),
            "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}  # fmt: skip


def test_publish_is_a_no_op_outside_actions(make_summary, tmp_path, gha):
    github.publish(make_summary(), env={**gha, "GITHUB_ACTIONS": ""})
    assert not (tmp_path / "out").exists()
    assert not (tmp_path / "summary.md").exists()


@pytest.mark.parametrize("flag", [{"GITHUB_ACTIONS": "true"}, {"GITHUB_ACTIONS": "TRUE"}])
def test_publish_writes_outputs_and_appends_the_summary(make_summary, tmp_path, gha, flag):
    (tmp_path / "out").write_text("earlier=1\n", encoding="utf-8")
    (tmp_path / "summary.md").write_text("# earlier step\n", encoding="utf-8")
    github.publish(make_summary(summary="line one\nline two"), env={**gha, **flag})
    outputs = parse_github_output((tmp_path / "out").read_text(encoding="utf-8"))
    assert outputs["earlier"] == "1"  # appended, never truncated
    assert outputs["status"] == "done"
    assert outputs["summary"] == "line one\nline two"
    summary_md = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert summary_md.startswith("# earlier step\n### ✅ jlgcli loop: done")


def test_publish_can_be_forced_without_github_actions(make_summary, tmp_path, gha):
    github.publish(make_summary(), env={**gha, "GITHUB_ACTIONS": "false"}, force=True)
    assert "status=done" in (tmp_path / "out").read_text(encoding="utf-8")


def test_publish_warns_instead_of_failing(make_summary, tmp_path):
    warnings: list[str] = []
    env = {"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": str(tmp_path / "missing-dir" / "out")}
    github.publish(make_summary(), env=env, warn=warnings.append)
    assert len(warnings) == 2
    assert warnings[0].startswith("cannot write GITHUB_OUTPUT")
    assert "GITHUB_STEP_SUMMARY is not set" in warnings[1]


def test_publish_default_warning_goes_to_stderr(make_summary, capsys):
    github.publish(make_summary(), env={"GITHUB_ACTIONS": "true"})
    assert capsys.readouterr().err.count("warning: GITHUB_") == 2


def test_write_outputs_appends_raw_values(tmp_path, capsys):
    out = tmp_path / "out"
    github.write_outputs({"exit-code": "64"}, env={"GITHUB_OUTPUT": str(out)})
    github.write_outputs({"status": "error"}, env={"GITHUB_OUTPUT": str(out)})
    assert parse_github_output(out.read_text(encoding="utf-8")) == {
        "exit-code": "64", "status": "error"}  # fmt: skip
    github.write_outputs({"x": "1"}, env={})  # no GITHUB_OUTPUT: nothing, no error
    github.write_outputs({"x": "1"}, env={"GITHUB_OUTPUT": str(tmp_path / "no" / "out")})
    assert "cannot write GITHUB_OUTPUT" in capsys.readouterr().err


def test_written_files_are_utf8_with_lf(make_summary, tmp_path, gha):
    github.publish(make_summary(summary="café ✓\nsecond"), env=gha)
    raw = (tmp_path / "out").read_bytes()
    assert "café ✓".encode() in raw
    assert b"\r\n" not in raw


def test_output_names_are_all_written(make_summary):
    assert list(github.output_values(make_summary())) == list(github.OUTPUT_NAMES)


def test_unique_delimiters_in_one_file(make_summary):
    counter = itertools.count()
    text = github.format_outputs({"a": "1\n2", "b": "3\n4"}, delimiter=lambda: f"D{next(counter)}")
    assert "a<<D0\n" in text and "b<<D1\n" in text


# --- issue 15: redacted, and the model's text never live Markdown/HTML ----------------

KEY = "sk-ant-api03-" + "K" * 24
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"


def test_summary_and_outputs_are_redacted_and_quoted(make_summary):
    text = (
        f"done with {KEY}\n<img src=x onerror=alert(1)> ![x](http://e/x.png) postgres://u:pw9@h/d"
    )
    summary = make_summary(summary=f"used {STRIPE}", text=text)
    markdown = github.markdown_summary(summary)
    outputs = github.format_outputs(github.output_values(summary))
    for leaked in (KEY, STRIPE, "pw9"):
        assert leaked not in markdown and leaked not in outputs
    body = markdown.split("<details><summary>Final message</summary>", 1)[1]
    assert "```text\ndone with [REDACTED]\n<img src=x" in body  # inside a fence: inert


def test_a_parked_run_shows_its_question_and_how_to_answer(make_summary):
    """Issue 51: the step summary and the outputs carry the question, not an "error"."""
    error = ErrorInfo(7, "the agent asks: Which DB?", 'jlgcli answer r "…"')
    summary = make_summary(stopCause="question", question="Which DB?", error=error)
    text = github.markdown_summary(summary)
    assert "### ❓ jlgcli loop: parked" in text and "**The agent asks:**" in text
    assert "Which DB?" in text and "jlgcli answer r" in text and "**Error:**" not in text
    assert github.output_values(summary)["question"] == "Which DB?"
    assert github.output_values(make_summary())["question"] == ""
