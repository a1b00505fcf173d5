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
from jlgcli.commands import dev_program as cli_entry
from jlgcli.commands.dev_program import build_parser, main, program_name
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
    assert "9 is out of range; accepted: 1 to 8" in capsys.readouterr().err


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
    from jlgcli import cli
    from jlgcli.commands import parser

    args = parser.build_parser().parse_args(
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


# -- issue 36: seed 003's exit codes whatever fails; jlgcli.api.dev for every door ----------


@pytest.mark.parametrize(
    ("code", "expected"),
    [(0, 0), (1, 1), (2, 2), (3, 3), (4, 3), (5, 3), (6, 2), (64, 2), (65, 2), (66, 2),
     (70, 3), (73, 3), (75, 3), (77, 3), (78, 2), (129, 1), (130, 1), (141, 1), (143, 1)],
)  # fmt: skip
def test_every_jlgcli_code_maps_into_0_1_2_3(code: int, expected: int) -> None:
    from jlgcli.boundary import dev_exit_code

    assert dev_exit_code(code) == expected


def test_api_dev_rejects_unknown_commands_and_options(tmp_path: Path) -> None:
    from jlgcli.api import dev

    with pytest.raises(JlgError) as info:
        dev("deploy")
    assert info.value.code == 2
    with pytest.raises(JlgError) as info:
        dev("run", no_such_option=True)
    assert info.value.code == 2 and "no_such_option" in info.value.message


def test_api_dev_maps_a_jlgcli_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from jlgcli.api import dev
    from jlgcli.errors import ExitCode

    def fail(_options: object) -> None:
        raise JlgError(ExitCode.CONFIG, "config unreadable", "fix it")

    monkeypatch.setattr("jlgcli.dev.orchestrator.execute_dev", fail)
    with pytest.raises(JlgError) as info:
        dev("run", directory=str(tmp_path), config_path="x.json")
    assert (info.value.code, info.value.message, info.value.hint) == (2, "config unreadable",
                                                                      "fix it")  # fmt: skip


def test_api_dev_init_quiet_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from jlgcli.api import dev

    report = dev("init", directory=tmp_path, assume_yes=True, verbosity=0)
    assert ".aidevloop.json" in report.to_json()["written"]
    assert "wrote" not in capsys.readouterr().out
    monkeypatch.chdir(tmp_path)
    assert main(["init", "--yes", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["written"] == []
    assert "kept docs/requirements.md" in captured.err


def test_parse_words_of_the_doors() -> None:
    command, options = cli_entry.parse_words(["resume", "--from-step", "4", "--llm", "copilot"])
    assert (command, options["from_step"], options["llm"]) == ("resume", 4, "copilot")
    for bad in (["resume", "--from-step", "9"], ["deploy"], []):
        with pytest.raises(JlgError) as info:
            cli_entry.parse_words(bad)
        assert info.value.code == 2


def test_run_door_goes_through_the_api(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from jlgcli.dev.init import InitReport

    seen: list[tuple[str, dict[str, object]]] = []

    def fake_dev(command: str, **options: object) -> InitReport:
        seen.append((command, options))
        return InitReport(("docs/requirements.md",), ())

    monkeypatch.setattr("jlgcli.api.dev", fake_dev)
    assert cli_entry.run_door(["dev", "init", "--yes", "--json", "-C", str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out)["written"] == ["docs/requirements.md"]
    assert seen[0][0] == "init" and seen[0][1]["assume_yes"] is True
    assert cli_entry.run_door(["run", "--from-step", "2"]) == 2  # a usage error: 2
