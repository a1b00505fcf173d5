"""npm's .cmd shims run without cmd.exe when an argument is not plain (issue 47).

The shims below are what npm/cmd-shim ``lib/index.js`` (``writeShim_``) writes:
a fixed head, then either the ``_prog`` form (a ``#!`` script such as
``cli.js`` run by ``node``) or the direct form (a program without ``#!``, such
as claude's native ``bin/claude.exe``, backends.md §1). Windows paths are
``PureWindowsPath`` strings; the file checks are injected.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path, PureWindowsPath

import pytest

from jlgcli.errors import JlgError
from jlgcli.process.npm_shim import direct_argv, shim_command
from jlgcli.process.windows import check_argv, runnable_argv

NPM = r"C:\Users\John Smith\AppData\Roaming\npm"
HEAD = (
    "@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\n"
    "SETLOCAL\r\nCALL :find_dp0\r\n"
)


def prog_shim(target: str, prog: str = "node", args: str = "") -> str:
    """cmd-shim's shim for a ``#!/usr/bin/env <prog> <args>`` script at ``%dp0%\\<target>``."""
    long_prog = f'"%dp0%\\{prog}.exe"'
    return (
        HEAD
        + "\r\n"
        + f"IF EXIST {long_prog} (\r\n"
        + f'  SET "_prog={long_prog.strip(chr(34))}"\r\n'
        + ") ELSE (\r\n"
        + f'  SET "_prog={prog}"\r\n'
        + "  SET PATHEXT=%PATHEXT:;.JS;=;%\r\n"
        + ")\r\n"
        + "\r\n"
        + "endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "
        + f'"%_prog%" {args} "%dp0%\\{target}" %*\r\n'
    )


def direct_shim(target: str) -> str:
    """cmd-shim's shim for a program without ``#!`` at ``%dp0%\\<target>``."""
    return f'{HEAD}"%dp0%\\{target}"   %*\r\n'


CLAUDE_EXE = r"node_modules\@anthropic-ai\claude-code\bin\claude.exe"
CODEX_JS = r"node_modules\@openai\codex\bin\codex.js"
NODE = r"C:\Program Files\nodejs\node.exe"


def files(*names: str) -> set[str]:
    return {str(PureWindowsPath(NPM, name)) for name in names}


def test_the_native_claude_shim_runs_claude_exe() -> None:
    present = files(CLAUDE_EXE)
    command = shim_command(
        direct_shim(CLAUDE_EXE), rf"{NPM}\claude.cmd", exists=present.__contains__, which=_no_which
    )
    assert command == [rf"{NPM}\{CLAUDE_EXE}"]


def test_a_node_script_shim_runs_node_from_path_or_beside_the_shim() -> None:
    present = files(CODEX_JS)
    text = prog_shim(CODEX_JS)
    on_path = shim_command(
        text, rf"{NPM}\codex.cmd", exists=present.__contains__, which={"node": NODE}.get
    )
    assert on_path == [NODE, rf"{NPM}\{CODEX_JS}"]
    present |= files("node.exe")
    beside = shim_command(text, rf"{NPM}\codex.cmd", exists=present.__contains__, which=_no_which)
    assert beside == [rf"{NPM}\node.exe", rf"{NPM}\{CODEX_JS}"]


def test_the_shebang_s_plain_arguments_are_kept() -> None:
    present = files(CODEX_JS)
    text = prog_shim(CODEX_JS, args="--no-warnings")
    command = shim_command(
        text, rf"{NPM}\codex.cmd", exists=present.__contains__, which={"node": NODE}.get
    )
    assert command == [NODE, "--no-warnings", rf"{NPM}\{CODEX_JS}"]


@pytest.mark.parametrize(
    "text",
    [
        "@echo off\r\nnode %~dp0\\cli.js %*\r\n",  # hand-written
        HEAD + '@SET "NODE_OPTIONS=--x"\r\n"%dp0%\\bin\\claude.exe"   %*\r\n',  # sets variables
        direct_shim(r"bin\claude.js"),  # not a program: CreateProcess cannot start it
        prog_shim(CODEX_JS, args="--eval=%X%"),
        prog_shim(CODEX_JS).replace("IF EXIST", "IF NOT EXIST"),
        prog_shim(CODEX_JS).replace("\r\nIF EXIST", '\r\n@SET "NODE_OPTIONS=--x"\r\nIF EXIST'),
        "",
    ],
)
def test_a_shim_of_any_other_shape_is_not_unwrapped(text: str) -> None:
    present = files(CODEX_JS, r"bin\claude.exe", r"bin\claude.js", "cli.js")
    assert (
        shim_command(text, rf"{NPM}\x.cmd", exists=present.__contains__, which={"node": NODE}.get)
        is None
    )


def test_a_missing_target_or_interpreter_is_not_unwrapped() -> None:
    text = prog_shim(CODEX_JS)
    assert shim_command(text, rf"{NPM}\c.cmd", exists=files().__contains__, which=_no_which) is None
    present = files(CODEX_JS)
    assert shim_command(text, rf"{NPM}\c.cmd", exists=present.__contains__, which=_no_which) is None
    here = prog_shim(CODEX_JS).replace('SET "_prog=node"', r'SET "_prog=C:\node\node.exe"')
    with_node = {*present, r"C:\node\node.exe"}
    assert shim_command(here, rf"{NPM}\c.cmd", exists=with_node.__contains__, which=_no_which) == [
        r"C:\node\node.exe",
        rf"{NPM}\{CODEX_JS}",
    ]
    absolute = prog_shim(CODEX_JS).replace('SET "_prog=node"', r'SET "_prog=C:\gone\node.exe"')
    assert (
        shim_command(absolute, rf"{NPM}\c.cmd", exists=present.__contains__, which=_no_which)
        is None
    )


SCHEMA = '{"type":"object","properties":{"status":{"enum":["done","continue"]}}}'


def test_json_and_model_names_reach_claude_through_its_program_not_cmd_exe() -> None:
    # loop --completion json and --model sonnet[1m] with npm's claude.cmd (issue 47).
    shim = rf"{NPM}\claude.cmd"
    argv = [shim, "-p", "--model", "sonnet[1m]", "--json-schema", SCHEMA]
    with pytest.raises(JlgError):
        check_argv(argv, is_windows=True)  # cmd.exe's rule is unchanged
    calls: list[Sequence[str]] = []

    def unwrap(args: Sequence[str]) -> list[str]:
        calls.append(args)
        return [rf"{NPM}\{CLAUDE_EXE}", *args[1:]]

    runnable = runnable_argv(argv, is_windows=True, path=None, unwrap=unwrap)
    assert runnable == [rf"{NPM}\{CLAUDE_EXE}", *argv[1:]]
    check_argv(runnable, is_windows=True)
    copilot = [rf"{NPM}\copilot.cmd", "--disable-mcp-server", "My server (local)"]
    assert runnable_argv(copilot, is_windows=True, path=None, unwrap=unwrap)[1:] == copilot[1:]


def test_only_what_cmd_exe_would_mangle_is_unwrapped() -> None:
    def unwrap(args: Sequence[str]) -> list[str]:
        raise AssertionError("not needed")

    plain = [rf"{NPM}\claude.cmd", "-p", "--model", "sonnet"]
    assert runnable_argv(plain, is_windows=True, path=None, unwrap=unwrap) == plain
    exe = [NODE, SCHEMA]
    assert runnable_argv(exe, is_windows=True, path=None, unwrap=unwrap) == exe
    shim = [rf"{NPM}\claude.cmd", SCHEMA]
    assert runnable_argv(shim, is_windows=False, path=None, unwrap=unwrap) == shim
    long = [rf"{NPM}\claude.cmd", "x" * 9000]  # plain, but past cmd.exe's 8191
    assert runnable_argv(long, is_windows=True, path=None, unwrap=lambda a: ["y.exe", *a[1:]])[
        0
    ] == ("y.exe")


def test_a_cmd_that_is_not_npm_s_keeps_the_rule() -> None:
    argv = [r"C:\tools\mine.cmd", SCHEMA]
    kept = runnable_argv(argv, is_windows=True, path=None, unwrap=lambda _args: None)
    assert kept == argv
    with pytest.raises(JlgError) as info:
        check_argv(kept, is_windows=True)
    assert "npm shim" in info.value.message


def test_direct_argv_reads_the_shim_from_disk(tmp_path: Path) -> None:
    folder = tmp_path
    shim = folder / "claude.cmd"
    shim.write_text(direct_shim(r"bin\claude.exe"), encoding="utf-8")
    # On this system the Windows target name is not a file: not unwrapped, never guessed.
    assert direct_argv([str(shim), SCHEMA], path=None) is None
    assert direct_argv([str(folder / "gone.cmd"), SCHEMA], path=None) is None


def _no_which(_name: str) -> str | None:
    return None


@pytest.mark.skipif(sys.platform != "win32", reason="a real cmd.exe shim (windows-latest CI)")
def test_a_real_npm_shim_gets_json_and_brackets_through_unchanged(tmp_path: Path) -> None:
    from jlgcli.process import capture

    script = tmp_path / "node_modules" / "agent" / "cli.py"
    script.parent.mkdir(parents=True)
    script.write_text("import json, sys\nprint(json.dumps(sys.argv[1:]))\n", encoding="utf-8")
    shim = tmp_path / "agent.cmd"
    text = prog_shim(r"node_modules\agent\cli.py", prog="python", args="-S")
    shim.write_text(text.replace("%dp0%\\python.exe", sys.executable), encoding="utf-8")
    args = ["-p", "--model", "sonnet[1m]", "--json-schema", SCHEMA, "My server (local)"]
    outcome = capture([str(shim), *args], timeout=60)
    assert json.loads(outcome.stdout) == args


def test_runnable_argv_reads_the_shim_itself_by_default(tmp_path: Path) -> None:
    shim = tmp_path / "mine.cmd"
    shim.write_text("@echo off\r\nmine.exe %*\r\n", encoding="utf-8")  # not npm's shape
    argv = [str(shim), SCHEMA]
    assert runnable_argv(argv, is_windows=True, path=None) == argv
