"""``jlgcli board``'s command: the address printed, --open, --json, Ctrl-C, a busy port."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from jlgcli.board.server import Board
from jlgcli.cli import main


def _stop_at_once(monkeypatch: pytest.MonkeyPatch, served: list[Board]) -> None:
    def interrupted(self: Board, poll_interval: float = 0.5) -> None:
        served.append(self)
        raise KeyboardInterrupt  # Ctrl-C, as serve_forever sees it on every OS

    monkeypatch.setattr(Board, "serve_forever", interrupted)


def test_it_prints_the_address_opens_the_browser_and_ctrl_c_ends_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import webbrowser

    opened: list[str] = []
    served: list[Board] = []
    monkeypatch.setattr(webbrowser, "open", lambda url: opened.append(url) or True)
    _stop_at_once(monkeypatch, served)
    monkeypatch.chdir(tmp_path)
    assert main(["board", "--open"]) == 0
    out, err = capsys.readouterr()
    (board,) = served
    url = f"http://127.0.0.1:{board.guard.port}/?token={board.guard.token}"
    assert url in out and opened == [url] and "stopped" in err
    assert board.server_address[0] == "127.0.0.1"  # loopback only
    assert board.data.root == tmp_path / ".jlgcli" / "runs"


def test_json_gives_the_address_unmasked_and_dir_another_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    served: list[Board] = []
    _stop_at_once(monkeypatch, served)
    monkeypatch.chdir(tmp_path)
    assert main(["board", "--json", "--dir", "build/runs"]) == 0
    facts = json.loads(capsys.readouterr().out.splitlines()[0])
    assert facts["url"].endswith(served[0].guard.token)  # jlgcli's own token: not redacted
    assert facts["root"] == str(tmp_path / "build" / "runs")


def test_a_port_in_use_is_a_usage_error_with_a_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["board", "--port", str(port)]) == 64
    err = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1:{port}" in err and "--port" in err
