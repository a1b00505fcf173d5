"""Numbers and paths out of range are usage errors naming the limit (issue 49).

``--script-timeout`` of 400 digits was an OverflowError (exit 70), ``--cwd`` of 5,000
characters ``File name too long`` (70); every numeric and path option is checked.
"""

from __future__ import annotations

import argparse
import errno
from pathlib import Path

import pytest

from jlgcli import cli
from jlgcli.boundary import DEV_CODES, run_guarded
from jlgcli.config.keys import lookup_key
from jlgcli.config.spec import ValueProblemError
from jlgcli.durations import parse_duration_flag
from jlgcli.errors import JlgError
from jlgcli.input_limits import NAME_MAX, bounded_int, clipped, path_arg, path_max, path_problem

DIGITS = "9" * 400
LONG = "a" * 5000


def test_clipped_keeps_short_values_and_says_how_long_a_long_one_was() -> None:
    assert clipped("30s") == "30s"
    assert clipped(DIGITS) == "9" * 40 + "… (400 characters)"


def test_path_limits_per_system() -> None:
    assert (path_max("linux"), path_max("darwin"), path_max("win32")) == (4096, 1024, 32_767)
    assert path_problem("task.md") is None
    assert path_problem("a" * NAME_MAX) is None
    assert "5,000 bytes long; at most 255" in str(path_problem(LONG))
    deep = "/".join(["d" * 200] * 30)  # every name fits, the whole does not
    assert "as a full path; at most 4,096" in str(path_problem(deep, "linux"))
    assert path_problem(deep, "win32") is None
    assert path_problem("a\x00b") == "it contains a NUL character"
    assert path_arg("-") == "-"
    with pytest.raises(argparse.ArgumentTypeError, match=r"unusable path 'a{40}… \(5,000"):
        path_arg(LONG)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0", "0 is out of range; accepted: 1 to 8"),
        ("9", "9 is out of range; accepted: 1 to 8"),
        (DIGITS, "… (400 characters) is out of range; accepted: 1 to 8"),
        ("9" * 5000, "(5,000 characters) is out of range"),  # past int()'s 4,300 digits
        ("x", "'x' is not a whole number; accepted: 1 to 8"),
        ("1" + "x" * 40, "is not a whole number"),
    ],
)
def test_bounded_int(text: str, message: str) -> None:
    parse = bounded_int(1, 8)
    assert parse(" 3 ") == 3
    with pytest.raises(argparse.ArgumentTypeError) as info:
        parse(text)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["loop", "t.md", "--script-timeout", DIGITS], "out of range; at most 7d"),
        (["loop", "t.md", "--script-timeout", "30d"], "30d is out of range; at most 7d"),
        (["loop", "t.md", "--timeout", DIGITS], "out of range; accepted: 1s to 7d"),
        (["loop", "t.md", "--timeout", DIGITS + "d"], "out of range; accepted: 1s to 7d"),
        (["loop", "t.md", "--idle-timeout", "9" * 5000], "out of range; accepted: 0 to 7d"),
        (["loop", "t.md", "--max-iterations", DIGITS], "out of range; accepted: 1 to 1000"),
        (["loop", "t.md", "--max-iterations", "9" * 5000], "out of range; accepted: 1 to 1000"),
        (["loop", "t.md", "--max-cost", DIGITS], "out of range; accepted: dollars"),
        (["loop", "t.md", "--max-cost", "1e400"], "1e400 is out of range"),
        (["loop", "t.md", "-j", DIGITS], "out of range; accepted: 1 to 256"),
        (["loop", "t.md", "--verbosity", DIGITS], "out of range; accepted: 0 to 3"),
        (["runs", "--limit", DIGITS], "out of range; accepted: 1 to 100,000"),
        (["hook", "--max-diff-bytes", "-1"], "out of range; accepted: 0 to 1,073,741,824"),
        (["loop", "t.md", "--cwd", LONG], "argument --cwd: unusable path"),
        (["loop", LONG], "argument TASK: unusable path"),
        (["run", "t.md", "--artifacts-dir", LONG], "argument --artifacts-dir: unusable path"),
        (["run", "t.md", "--events", LONG], "argument --events: unusable path"),
        (["loop", "t.md", "--ledger-dir", LONG], "argument --ledger-dir: unusable path"),
        (["run", "t.md", "--replay", LONG], "argument --replay: unusable path"),
        (["runs", "--dir", LONG], "argument --dir: unusable path"),
        (["ledger", "show", "latest", "--dir", LONG], "argument --dir: unusable path"),
        (["config", "set", "backend", "claude", "--file", LONG], "--file: unusable path"),
        (["config", "trust", LONG], "unusable path"),
        (["hook", "--prompt", LONG], "argument --prompt/-p: unusable path"),
        (["hook", LONG], "argument FILE: unusable path"),
        (["matrix", LONG], "argument TASK: unusable path"),
    ],
)
def test_every_numeric_and_path_option_is_a_64_naming_the_limit(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "t.md").write_text("task\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 64
    err = capsys.readouterr().err
    assert message in err
    assert len(err) < 600  # the value echoed back is clipped


@pytest.mark.parametrize("argv", [["dev", "run", "-C", LONG], ["dev", "run", "--config", LONG],
                                  ["dev", "resume", "--from-step", DIGITS]])  # fmt: skip
def test_the_dev_loops_options_are_its_configuration_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "unusable path" in err or "out of range; accepted: 1 to 8" in err


def test_a_config_value_out_of_range_is_clipped() -> None:
    spec = lookup_key("timeoutMs")
    assert spec is not None
    with pytest.raises(ValueProblemError, match=r"characters\) is out of range; accepted: 1s"):
        spec.parse(DIGITS + "s")
    with pytest.raises(JlgError, match="at most 7d"):
        parse_duration_flag("--script-timeout", int(DIGITS))


def test_a_path_too_long_met_anywhere_is_a_usage_error_not_a_bug(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def body() -> int:
        raise OSError(errno.ENAMETOOLONG, "File name too long", LONG)

    assert run_guarded(body, want_json=False) == 64
    err = capsys.readouterr().err
    assert "a path is too long for this system: aaaa" in err and "internal error" not in err
    assert run_guarded(body, want_json=False, codes=DEV_CODES) == 2

    def other() -> int:
        raise OSError(errno.EIO, "I/O error")

    assert run_guarded(other, want_json=False) == 70  # any other OSError is still a bug
