"""Windows command-line rules, tested on any OS with injected flags (backends.md §7)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jlgcli.errors import JlgError
from jlgcli.process.windows import (
    MAX_COMMAND_LINE,
    MAX_EXE_COMMAND_LINE,
    check_argv,
    check_batch_arguments,
    check_command_line_length,
    command_line,
    is_batch_file,
    prompt_delivery,
)

NPM_SHIM = r"C:\Users\me\AppData\Roaming\npm\claude.CMD"
NATIVE = r"C:\Program Files\nodejs\node.exe"


@pytest.mark.parametrize(
    ("path", "expected"),
    [(NPM_SHIM, True), (r"C:\tools\run.bat", True), (NATIVE, False), ("/usr/bin/claude", False)],
)
def test_batch_files_are_recognised_by_suffix_case_insensitively(path: str, expected: bool) -> None:
    assert is_batch_file(path) is expected


def test_prompt_never_goes_into_the_argv_of_a_cmd_shim_on_windows() -> None:
    assert prompt_delivery(NPM_SHIM, is_windows=True) == "stdin-or-file"
    assert prompt_delivery(NATIVE, is_windows=True) == "argv"
    assert prompt_delivery("/usr/local/bin/claude.cmd", is_windows=False) == "argv"


def test_command_line_uses_list2cmdline_quoting() -> None:
    assert command_line([NATIVE, "a b", 'say "hi"']) == (
        '"C:\\Program Files\\nodejs\\node.exe" "a b" "say \\"hi\\""'
    )


def test_length_limit_applies_only_on_windows() -> None:
    argv = [NPM_SHIM, "x" * MAX_COMMAND_LINE]
    check_command_line_length(argv, is_windows=False)
    with pytest.raises(JlgError) as info:
        check_command_line_length(argv, is_windows=True)
    assert info.value.code == 64
    assert info.value.hint is not None and "stdin" in info.value.hint


def test_length_limit_of_a_cmd_shim_is_8191_characters() -> None:
    head = len(command_line([NPM_SHIM, ""])) - 2  # without the quoted empty argument
    fits = [NPM_SHIM, "y" * (MAX_COMMAND_LINE - head)]
    assert len(command_line(fits)) == MAX_COMMAND_LINE
    check_command_line_length(fits, is_windows=True)
    with pytest.raises(JlgError):
        check_command_line_length([NPM_SHIM, "y" * (MAX_COMMAND_LINE - head + 1)], is_windows=True)


@pytest.mark.parametrize(
    "arg", ["line one\nline two", "a & del x", "50%", 'say "hi"', "x|y", "a^b", "<in", "hey!"]
)
def test_unsafe_arguments_of_a_cmd_shim_are_refused(arg: str) -> None:
    with pytest.raises(JlgError) as info:
        check_batch_arguments([NPM_SHIM, "-p", arg], is_windows=True)
    assert info.value.code == 64
    check_batch_arguments([NATIVE, arg], is_windows=True)  # an .exe gets list2cmdline quoting
    check_batch_arguments([NPM_SHIM, arg], is_windows=False)


def test_plain_arguments_of_a_cmd_shim_pass() -> None:
    check_argv(
        [NPM_SHIM, "--output-format", "stream-json", "--model=claude-x.1", r"C:\my dir\f.txt"],
        is_windows=True,
    )


def test_long_unsafe_arguments_are_shortened_in_the_message() -> None:
    with pytest.raises(JlgError) as info:
        check_batch_arguments([NPM_SHIM, "&" * 100], is_windows=True)
    assert "..." in info.value.message


@given(st.text(max_size=30), st.text(max_size=30))
def test_any_argument_with_a_newline_is_refused_for_a_cmd_shim(before: str, after: str) -> None:
    with pytest.raises(JlgError):
        check_batch_arguments([NPM_SHIM, before + "\n" + after], is_windows=True)


@given(st.lists(st.text(alphabet="abcXYZ019_-.,:/\\=+@~ ", max_size=30), max_size=5))
def test_plain_text_is_always_accepted_for_a_cmd_shim(args: list[str]) -> None:
    check_batch_arguments([NPM_SHIM, *args], is_windows=True)


def test_the_windows_pty_module_imports_anywhere() -> None:
    # pywinpty is imported only when a Windows pty is started.
    from jlgcli.process import pty_windows

    assert callable(pty_windows.start_winpty)


def test_a_9000_character_command_line_to_an_exe_passes_but_not_to_a_cmd_shim() -> None:
    # issue 47: CreateProcessW takes 32,767 characters (with the NUL); cmd.exe cuts at 8,191.
    prompt = "p" * 9000
    check_command_line_length([r"C:\tools\llm.exe", prompt], is_windows=True)
    with pytest.raises(JlgError) as info:
        check_command_line_length([NPM_SHIM, prompt], is_windows=True)
    assert "8191" in info.value.message


def test_an_exe_command_line_is_limited_at_createprocess_s_32767() -> None:
    head = len(command_line([NATIVE, ""])) - 2
    fits = [NATIVE, "z" * (MAX_EXE_COMMAND_LINE - head)]
    assert len(command_line(fits)) == MAX_EXE_COMMAND_LINE == 32766
    check_command_line_length(fits, is_windows=True)
    with pytest.raises(JlgError) as info:
        check_command_line_length([*fits[:1], fits[1] + "z"], is_windows=True)
    assert "32766" in info.value.message


def test_a_conpty_program_path_with_spaces_is_quoted() -> None:
    # issue 47: winpty-rs runs CreateProcessW(NULL, appname + " " + cmdline).
    from jlgcli.process.pty_windows import conpty_command

    shim = r"C:\Users\John Smith\AppData\Roaming\npm\claude.cmd"
    assert conpty_command([shim, "-p", "a b"]) == (f'"{shim}"', '-p "a b"')
    assert conpty_command([r"C:\tools\agent.exe"]) == (r"C:\tools\agent.exe", None)
