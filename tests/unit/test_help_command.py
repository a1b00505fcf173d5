"""``jlgcli help [COMMAND…]`` in-process (issue 38); the e2e tests run the console script."""

from __future__ import annotations

import pytest

from jlgcli import cli
from jlgcli.commands import TOP_LEVEL_HELP


def _out(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int | None, str, str]:
    try:
        code: int | None = cli.main(argv)
    except SystemExit as stop:  # argparse's --help exits
        code = int(stop.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_help_of_a_command_is_its_help(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    code, out, _ = _out(["help", "loop"], capsys)
    assert code == 0 and out.startswith("usage: jlgcli loop")
    assert out == _out(["loop", "--help"], capsys)[1]
    assert (
        _out(["help", "config", "get"], capsys)[1] == _out(["config", "get", "--help"], capsys)[1]
    )
    assert _out(["help", "runs"], capsys)[1] == _out(["runs", "--help"], capsys)[1]


def test_help_alone_is_the_top_level_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert _out(["help"], capsys) == (0, TOP_LEVEL_HELP, "")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["help", "lop"], "unknown command 'lop'"),
        (["help", "config", "sett"], "'config' has no action 'sett' (actions: get, set,"),
        (["help", "loop", "x"], "'loop' has no action 'x' (actions: none)"),
    ],
)
def test_unknown_topics_are_usage_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _out(argv, capsys)
    assert code == 64 and message in err
