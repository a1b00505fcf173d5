"""``jlgcli.colour`` (issue 19 item 16): colour on terminals only, NO_COLOR / FORCE_COLOR."""

from __future__ import annotations

import io

import pytest

from jlgcli import colour


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


class Console:
    """The Windows console calls, recorded; ``modes``: std handle -> mode (None: fails)."""

    def __init__(self, modes: dict[int, int | None], accept: bool = True) -> None:
        self.modes = modes
        self.accept = accept
        self.set_calls: list[tuple[int, int]] = []

    def get_mode(self, std_handle: int) -> int | None:
        return self.modes[std_handle]

    def set_mode(self, std_handle: int, mode: int) -> bool:
        self.set_calls.append((std_handle, mode))
        return self.accept


@pytest.mark.parametrize(
    ("stream", "env", "json_output", "expected"),
    [
        (Tty(), {}, False, True),  # a terminal
        (io.StringIO(), {}, False, False),  # a pipe or a file
        (Tty(), {"NO_COLOR": "1"}, False, False),
        (Tty(), {"NO_COLOR": ""}, False, True),  # empty NO_COLOR does not count
        (io.StringIO(), {"FORCE_COLOR": "1"}, False, True),  # forced, e.g. CI logs
        (Tty(), {"FORCE_COLOR": "0"}, False, True),  # 0 does not force, the tty decides
        (io.StringIO(), {"FORCE_COLOR": "0"}, False, False),
        (Tty(), {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False, False),  # NO_COLOR wins
        (Tty(), {"FORCE_COLOR": "1"}, True, False),  # never with --json
        (Tty(), {"TERM": "dumb"}, False, False),
        (None, {"FORCE_COLOR": "1"}, False, False),
        (object(), {}, False, False),  # no isatty at all
    ],
)
def test_wants_colour(
    stream: object, env: dict[str, str], json_output: bool, expected: bool
) -> None:
    got = colour.wants_colour(stream, json_output=json_output, env=env, is_windows=False)
    assert got is expected


def test_closed_stream_gets_no_colour() -> None:
    stream = io.StringIO()
    stream.close()  # isatty() now raises ValueError
    assert colour.wants_colour(stream, env={}, is_windows=False) is False


def test_windows_turns_vt_processing_on_when_it_is_off() -> None:
    console = Console({-11: 0x0003, -12: 0x0007})
    assert colour.enable_windows_vt(is_windows=True, console=console) is True
    assert console.set_calls == [(-11, 0x0007)]  # stderr had it already


def test_windows_console_refusing_vt_means_no_colour() -> None:
    console = Console({-11: 0x0003, -12: 0x0003}, accept=False)
    assert colour.enable_windows_vt(is_windows=True, console=console) is False


def test_windows_redirected_handle_means_no_colour() -> None:
    console = Console({-11: None, -12: 0x0007})
    assert colour.enable_windows_vt(is_windows=True, console=console) is False
    assert console.set_calls == []


def test_windows_without_console_api_means_no_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(colour, "_vt_enabled", None)
    monkeypatch.setattr(colour, "_windows_console", lambda: None)
    assert colour.enable_windows_vt(is_windows=True) is False
    assert colour.wants_colour(Tty(), env={}, is_windows=True) is False


def test_windows_asks_the_console_once(monkeypatch: pytest.MonkeyPatch) -> None:
    consoles: list[Console] = []

    def make() -> Console:
        consoles.append(Console({-11: 0x0003, -12: 0x0003}))
        return consoles[-1]

    monkeypatch.setattr(colour, "_vt_enabled", None)
    monkeypatch.setattr(colour, "_windows_console", make)
    assert colour.enable_windows_vt(is_windows=True) is True
    assert colour.enable_windows_vt(is_windows=True) is True
    assert len(consoles) == 1


def test_elsewhere_terminals_understand_ansi_already() -> None:
    assert colour.enable_windows_vt(is_windows=False) is True


def test_palette_paints_only_when_enabled() -> None:
    forced = colour.Palette(io.StringIO())
    forced.enabled = True
    assert forced.error("error:") == "\033[1;31merror:\033[0m"
    assert forced.warning("warning:") == "\033[1;33mwarning:\033[0m"
    assert forced.hint("hint:") == "\033[36mhint:\033[0m"
    assert forced.stop_cause("DONE", done=True) == "\033[1;32mDONE\033[0m"
    assert forced.stop_cause("TIMEOUT", done=False) == "\033[1;33mTIMEOUT\033[0m"
    plain = colour.Palette(io.StringIO())
    assert plain.enabled is False
    assert plain.error("error:") == "error:" and plain.heading("usage:") == "usage:"


def test_help_headings_are_bold() -> None:
    text = (
        "usage: jlgcli [-h]\n\nRun it: now.\n\noptions:\n"
        "  -h, --help  show: this\nexit codes: 0 done\n"
    )
    styled = colour.style_help(text, True)
    assert styled.splitlines() == [
        "\033[1musage:\033[0m jlgcli [-h]",
        "",
        "Run it: now.",  # a sentence, not a heading
        "",
        "\033[1moptions:\033[0m",
        "  -h, --help  show: this",
        "\033[1mexit codes:\033[0m 0 done",
    ]
    assert colour.style_help(text, False) == text
