"""Validation command lines become argv lists without a shell (seed 003 FR-4.2 step 4)."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jlgcli.cmdline import shell_tokens, split_command, split_windows


def test_posix_split() -> None:
    assert split_command("npm run 'lint all'", is_windows=False) == ["npm", "run", "lint all"]
    assert split_command(["pytest", "-q"], is_windows=False) == ["pytest", "-q"]
    assert split_command(None) == []
    assert split_command("   ") == []


def test_windows_split_keeps_backslashes() -> None:
    assert split_command(r'C:\tools\lint.exe "C:\My Files\x" a\\b', is_windows=True) == [
        r"C:\tools\lint.exe",
        r"C:\My Files\x",
        r"a\\b",
    ]


@pytest.mark.parametrize(
    ("line", "argv"),
    [
        (r"a\"b", ['a"b']),
        (r'"a\\" b', ["a\\", "b"]),
        (r'"a""b"', ['a"b']),
        ('""', [""]),
        ("  x\t y  ", ["x", "y"]),
        (r"a\\\"b", ['a\\"b']),
    ],
)
def test_windows_rules(line: str, argv: list[str]) -> None:
    assert split_windows(line) == argv


@given(
    st.lists(
        st.text(
            alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"),
            max_size=12,
        ),
        min_size=1,
        max_size=6,
    )
)
def test_windows_split_inverts_list2cmdline(argv: list[str]) -> None:
    assert split_windows(subprocess.list2cmdline(argv)) == argv


def test_shell_tokens_are_reported() -> None:
    assert shell_tokens(["npm", "test", "&&", "npm", "run", "build", "|", "tee"]) == ["&&", "|"]
