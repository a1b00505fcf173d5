"""The command line: ``jlgcli dev``, ``aidevloop``/``adl`` (seed 003 FR-1, FR-8.3, AC-6)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from support.dev_unit import (
    fake_script,
    happy_turns,
)
from support.devproject import (
    git,
    make_project,
)

from jlgcli.commands import dev as dev_command
from jlgcli.dev import cli_entry
from jlgcli.dev.cli_entry import build_parser, main, program_name
from jlgcli.errors import JlgError


def help_of(*argv: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as info:
        build_parser("aidevloop").parse_args([*argv, "--help"])
    assert info.value.code == 0
    return capsys.readouterr().out


def test_help_everywhere_has_usage_and_examples(capsys: pytest.CaptureFixture[str]) -> None:
    top = help_of(capsys=capsys)
    assert "usage: aidevloop" in top
    assert "aidevloop run TASK-005" in top
    assert "exit codes: 0 committed" in top
    run = help_of("run", capsys=capsys)
    assert "TASK-ID" in run and "--llm ID" in run and "--yes" in run and "--no-input" in run
    assert "--verbose" in run and "--quiet" in run and "--config PATH" in run
    assert "examples:" in run
    resume = help_of("resume", capsys=capsys)
    assert "--from-step N" in resume and "examples:" in resume


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser("adl").parse_args(["--version"])
    assert capsys.readouterr().out.startswith("adl (jlgcli) ")


def test_program_name() -> None:
    assert program_name("/usr/bin/adl", is_windows=False) == "adl"
    assert program_name(r"C:\Tools\ADL.exe", is_windows=True) == "adl"
    assert program_name(r"C:\Tools\ADL.exe", is_windows=False) == "aidevloop"
    assert program_name("python") == "aidevloop"


def test_bad_step_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("9", "x"):
        with pytest.raises(SystemExit) as info:
            build_parser().parse_args(["resume", "--from-step", bad])
        assert info.value.code == 2
    assert "a step is 1 to 8" in capsys.readouterr().err


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: " in capsys.readouterr().err


def test_main_runs_the_loop_with_the_fake_claude(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = make_project(tmp_path / "p")
    monkeypatch.setenv("JLGCLI_FAKE_SCRIPT", str(fake_script(tmp_path / "s.json", *happy_turns())))
    assert main(["run", "--yes", "--json", "-C", str(project)]) == 0
    out = capsys.readouterr().out
    result = json.loads(out)
    assert result["status"] == "committed"
    assert result["commit"] == git(project, "rev-parse", "HEAD").strip()


def test_errors_exit_with_their_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resume", "-C", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: docs directory not found:")
    assert "hint: " in err


def test_json_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--json", "--llm", "nope", "-C", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out)["error"]["message"] == "unknown llm 'nope' (from --llm)"


@pytest.mark.parametrize(
    ("raised", "code", "words"),
    [
        (KeyboardInterrupt(), 1, "error: interrupted"),
        (RuntimeError("boom"), 3, "internal error: RuntimeError: boom"),
    ],
)
def test_boundary(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    raised: BaseException,
    code: int,
    words: str,
) -> None:
    def explode(args: argparse.Namespace) -> int:
        raise raised

    monkeypatch.setattr(cli_entry, "run_from_args", explode)
    assert main(["run"]) == code
    assert words in capsys.readouterr().err


def test_registered_under_jlgcli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import jlgcli.cli as cli

    if "dev" not in cli.COMMAND_MODULES:
        monkeypatch.setattr(cli, "COMMAND_MODULES", (*cli.COMMAND_MODULES, "dev"))
    args = cli.build_parser().parse_args(
        ["dev", "run", "TASK-001", "-q", "--yes", "--llm", "copilot"]
    )
    assert args.handler == "jlgcli.commands.dev:execute"
    assert (args.task_id, args.verbosity, args.assume_yes, args.llm) == (
        "TASK-001",
        0,
        True,
        "copilot",
    )
    # A command group alone prints its help; `jlgcli dev` says so with seed 003's usage code,
    # 2 (FR-8.3, issue 36), where other groups exit 64.
    assert cli.main(["dev"]) == 2
    assert "jlgcli dev run TASK-005" in capsys.readouterr().err
    project = make_project(tmp_path / "p")
    monkeypatch.setenv("JLGCLI_FAKE_SCRIPT", str(fake_script(tmp_path / "s.json", *happy_turns())))
    assert cli.main(["dev", "run", "--yes", "-C", str(project)]) == 0
    assert cli.main(["dev", "resume", "-C", str(project)]) == 2
    assert "No task in progress" in capsys.readouterr().err


def test_execute_propagates_errors(tmp_path: Path) -> None:
    args = build_parser().parse_args(["resume", "-C", str(tmp_path / "missing")])
    with pytest.raises(JlgError):
        dev_command.execute(args)
