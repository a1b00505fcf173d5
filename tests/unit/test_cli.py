"""The error boundary of ``jlgcli.cli.main`` (DESIGN "exit codes", seed 001 §14)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jlgcli import cli, commands
from jlgcli.commands import parser
from jlgcli.errors import ExitCode, JlgError


def test_version_fast_path(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("jlgcli ")


def test_no_arguments_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == 0
    assert "commands:" in capsys.readouterr().out


def test_expected_error_prints_message_and_hint(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fail(args: object) -> int:
        raise JlgError(ExitCode.NO_INPUT, "prompt file not found: x.md", "check the path")

    monkeypatch.setattr(cli, "_dispatch", fail)
    assert cli.main(["config", "show"]) == 66
    err = capsys.readouterr().err
    assert "error: prompt file not found: x.md" in err
    assert "hint: check the path" in err
    assert "Traceback" not in err


def test_expected_error_as_json(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fail(args: object) -> int:
        raise JlgError(ExitCode.CONFIG, "bad config", "delete it")

    monkeypatch.setattr(cli, "_dispatch", fail)
    assert cli.main(["config", "show", "--json"]) == 78
    payload = json.loads(capsys.readouterr().out)
    assert payload == {
        "error": {"code": 78, "message": "bad config", "hint": "delete it"},
        "exitCode": 78,
    }


def test_usage_error_with_json_flag_is_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["config", "get", "--json", "--bogus"]) == 64
    assert json.loads(capsys.readouterr().out)["exitCode"] == 64


def test_ctrl_c_is_130(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def interrupt(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_dispatch", interrupt)
    assert cli.main(["config", "show"]) == ExitCode.INTERRUPTED
    assert "interrupted" in capsys.readouterr().err


def test_bug_is_70_with_a_crash_log(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def crash(args: object) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "_dispatch", crash)
    monkeypatch.setattr("jlgcli.crash.crash_dir", lambda: tmp_path / "logs")
    assert cli.main(["config", "show"]) == ExitCode.INTERNAL
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: boom" in err
    logs = list((tmp_path / "logs").glob("crash-*.log"))
    assert len(logs) == 1
    content = logs[0].read_text(encoding="utf-8")
    assert "RuntimeError: boom" in content and "jlgcli" in content


def test_broken_pipe_is_sigpipe_not_success(monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 14: a reader that went away never makes an unfinished command exit 0.
    def broken(args: object) -> int:
        raise BrokenPipeError

    monkeypatch.setattr(cli, "_dispatch", broken)
    assert cli.main(["config", "show"]) == 141


def test_print_file_entry(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    message = tmp_path / "final.md"
    message.write_bytes("héllo\nDONE\n".encode())
    assert cli.main(["__jlgcli_print_file__", str(message)]) == 0
    assert capsysbinary.readouterr().out == "héllo\nDONE\n".encode()


def test_configure_streams_windows_branch() -> None:
    calls: list[dict[str, str]] = []

    class Stream:
        def __init__(self, tty: bool) -> None:
            self.tty = tty

        def isatty(self) -> bool:
            return self.tty

        def reconfigure(self, **kwargs: str) -> None:
            calls.append(kwargs)

    from jlgcli.output import configure_streams

    configure_streams(is_windows=True, streams=(Stream(False), Stream(True), object()))
    assert calls == [{"encoding": "utf-8", "errors": "replace"}, {"errors": "replace"}]


# --- lazy start-up (issue 18) --------------------------------------------------------------


def _modules_after(call: str) -> set[str]:
    """The modules a fresh interpreter holds after ``jlgcli.cli.main(<call>)``."""
    code = (
        "import sys\n"
        "from jlgcli.cli import main\n"
        "try:\n"
        f"    main({call})\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stdout.write('\\n' + ' '.join(sorted(sys.modules)))\n"
    )
    # Without coverage's subprocess patch, which imports typing and more at start-up.
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env=env,
    )
    return set(done.stdout.rsplit("\n", 1)[-1].split())


def _commands_in(modules: set[str]) -> set[str]:
    """The command modules among ``modules`` (the parser that gathers them is none)."""
    return {
        m for m in modules if m.startswith("jlgcli.commands.") and m != "jlgcli.commands.parser"
    }


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["-h"], []])
def test_version_and_help_import_no_command_and_no_argparse(argv: list[str]) -> None:
    modules = _modules_after(repr(argv))
    assert not _commands_in(modules)
    assert not {"argparse", "difflib", "typing", "pydantic"} & modules


def test_a_command_builds_only_its_own_parser() -> None:
    modules = _modules_after("['run', '--help']")
    own = {"jlgcli.commands.run", "jlgcli.commands._run_options", "jlgcli.commands._option_groups"}
    assert _commands_in(modules) <= own
    assert "jlgcli.commands.run" in modules
    assert "difflib" not in modules  # only a miss pays for "did you mean"


@pytest.mark.parametrize("argv", [["--version"], ["run", "--help"], ["loop", "--help"]])
def test_no_other_command_imports_the_board_or_an_http_server(argv: list[str]) -> None:
    """Issue 52: the dashboard stays off every other command's start-up."""
    modules = _modules_after(repr(argv))
    assert not {m for m in modules if m.startswith("jlgcli.board")}
    assert not {"jlgcli.commands.board", "http.server", "http.client", "socketserver"} & modules


def test_only_the_board_command_imports_the_board_package() -> None:
    """Issue 52: no module of jlgcli but ``commands/board.py`` reaches ``jlgcli.board``."""
    import ast

    package = Path(cli.__file__).parent
    reached = []
    for path in sorted(package.rglob("*.py")):
        own = path.relative_to(package)
        if own.parts[0] == "board" or own == Path("commands", "board.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            reached += [f"{path}: {n}" for n in names if n.startswith("jlgcli.board")]
    assert reached == []


def test_config_get_without_config_files_imports_no_shutil_json_or_typing() -> None:
    """argparse's default help width imports shutil; JSON is parsed only when a file exists."""
    modules = _modules_after("['config', 'get', 'backend']")
    assert "jlgcli.commands.config_actions" in modules
    assert not {"shutil", "json", "typing", "pydantic", "difflib"} & modules


@pytest.mark.parametrize("columns", ["100", "41", "0", "-5", "wide", None])
def test_help_width_is_shutils_terminal_width_minus_two(
    columns: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert parser.help_width() == shutil.get_terminal_size().columns - 2


def test_help_width_reads_the_terminal_when_columns_is_unset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(parser.os, "get_terminal_size", lambda fd: os.terminal_size((132, 40)))
    assert parser.help_width({}) == 130
    assert parser.help_width({"COLUMNS": "60"}) == 58


def test_help_width_falls_back_to_80_without_stdout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parser.sys, "__stdout__", None)
    assert parser.help_width({}) == 78


def test_sub_command_usage_wraps_at_columns(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    with pytest.raises(SystemExit):
        cli.main(["run", "--help"])
    usage = capsys.readouterr().out.split("\n\n", 1)[0].splitlines()
    assert len(usage) > 3 and max(len(line) for line in usage) <= 58


def test_the_exit_code_line_comes_from_the_causes_table() -> None:
    """Issue 13: the help epilogs' exit codes are the one table's (runner.causes)."""
    from jlgcli.commands import loop, run
    from jlgcli.errors import exit_codes_epilog

    for epilog in (commands.EPILOG, run.EPILOG, loop.EPILOG):
        assert exit_codes_epilog() in epilog


@pytest.mark.parametrize("width", [40, 60, 88, 120])
def test_the_exit_code_line_is_wrapped_at_spaces_within_its_width(width: int) -> None:
    """Built without textwrap (every run and loop builds it); at the width the epilogs use,
    the same lines textwrap.fill gives."""
    import textwrap

    from jlgcli.errors import exit_codes_epilog

    text = exit_codes_epilog(width)
    assert all(len(line) <= width for line in text.splitlines())
    assert " ".join(text.splitlines()) == textwrap.fill(text, width=10_000)
    if width == 88:
        assert text == textwrap.fill(" ".join(text.splitlines()), width=88)


def test_static_top_level_help_is_the_real_parsers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the static text is the unwrapped help
    assert parser.build_parser().format_help() == commands.TOP_LEVEL_HELP
    assert commands.TOP_LEVEL_HELP.isascii()  # safe on any console encoding


def test_top_level_examples_show_the_loop_not_only_config() -> None:
    """Issue 49: ``jlgcli --help``'s examples showed only config commands."""
    examples = commands.EPILOG.split("\n\n")[0].splitlines()[1:]
    shown = [line.split()[1] for line in examples]
    assert shown[:3] == ["demo", "loop", "loop"] and "run" in shown


@pytest.mark.parametrize("argv", [["--help"], ["-h"]])
def test_help_prints_the_top_level_help(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(argv) == 0
    assert capsys.readouterr().out == commands.TOP_LEVEL_HELP


def test_sub_command_help_is_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["loop", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: jlgcli loop") and "--max-iterations" in out


# --- "did you mean" (issue 19 item 14) -----------------------------------------------------


def test_unknown_command_suggests_the_closest(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["lop"]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "error: unknown command 'lop'" in err
    assert "hint: did you mean 'loop'? see: jlgcli --help" in err


def test_unknown_command_far_from_all_has_no_guess(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["zzzzzz"]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "did you mean" not in err and "hint: see: jlgcli --help" in err


def test_misspelt_flag_suggests_the_option_and_the_commands_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["loop", "t.md", "--permision", "edit"]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "unrecognized arguments: --permision edit" in err
    assert "hint: did you mean --permissions? see: jlgcli loop --help" in err


def test_misspelt_choice_and_action_suggest_the_closest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["run", "p.md", "--permissions", "edt"]) == ExitCode.USAGE
    assert "hint: did you mean 'edit'? see: jlgcli run --help" in capsys.readouterr().err
    assert cli.main(["config", "shwo"]) == ExitCode.USAGE
    assert "hint: did you mean 'show'? see: jlgcli config --help" in capsys.readouterr().err


def test_missing_argument_points_at_the_commands_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["run"]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "hint: see: jlgcli run --help" in err and "did you mean" not in err


def test_did_you_mean_through_the_console_script(jlgcli_exe: str) -> None:
    done = subprocess.run(
        [jlgcli_exe, "lop"], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 64
    assert "did you mean 'loop'?" in done.stderr
    assert "\033[" not in done.stderr  # a pipe gets no colour


def test_error_words_are_coloured_when_forced(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert cli.main(["lop"]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "\033[1;31merror:\033[0m unknown command" in err
    assert "\033[36mhint:\033[0m did you mean" in err


def test_json_errors_have_no_colour(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert cli.main(["config", "get", "--json", "--bogus"]) == 64
    assert "\033[" not in capsys.readouterr().err


def test_forced_colour_through_the_console_script(jlgcli_exe: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | {"FORCE_COLOR": "1"}
    done = subprocess.run(
        [jlgcli_exe, "lop"], capture_output=True, text=True, check=False, timeout=60, env=env
    )
    assert done.returncode == 64 and "\033[1;31merror:\033[0m" in done.stderr
    helped = subprocess.run(
        [jlgcli_exe, "--help"], capture_output=True, text=True, check=True, timeout=60, env=env
    )
    assert "\033[1musage:\033[0m" in helped.stdout
    plain = subprocess.run(
        [jlgcli_exe, "--help"], capture_output=True, text=True, check=True, timeout=60
    )
    assert plain.stdout == commands.TOP_LEVEL_HELP  # a pipe: no colour
