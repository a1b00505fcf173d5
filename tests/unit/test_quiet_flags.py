"""``-q`` quiets every command (issue 38: ``backends -q`` printed the same as without it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jlgcli import cli


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_backends_quiet_lists_the_ready_ids(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["backends", "--json"], capsys)
    ready = json.loads(out)["available"]
    assert ready and _run(["backends", "-q"], capsys) == (
        code,
        "".join(f"{r}\n" for r in ready),
        "",
    )


def test_doctor_quiet_keeps_only_what_needs_attention(capsys: pytest.CaptureFixture[str]) -> None:
    code, loud, _ = _run(["doctor"], capsys)
    assert "[ok]" in loud
    # the checks that are not ok, their hints, and the verdict
    expected = [line for line in loud.splitlines() if line and not line.startswith("[ok]")]
    assert _run(["doctor", "--verbosity", "0"], capsys) == (code, "\n".join(expected) + "\n", "")


def test_config_writes_say_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".jlgcli.json").write_text('{"gates": ["pytest -q"]}', encoding="utf-8")
    for argv in (["set", "-q", "backend", "codex"], ["unset", "-q", "backend"],
                 ["trust", "-q"], ["untrust", "-q"]):  # fmt: skip
        assert _run(["config", *argv], capsys) == (0, "", ""), argv
    # saying that nothing was done is not noise: it stays
    assert "was not set" in _run(["config", "unset", "-q", "backend"], capsys)[1]


def test_runs_and_ledger_quiet_print_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    runs = tmp_path / ".jlgcli" / "runs"
    for name in ("20261101T000000Z-aa", "20261102T000000Z-bb"):
        (runs / name).mkdir(parents=True)
    assert _run(["runs", "-q"], capsys) == (0, "20261102T000000Z-bb\n20261101T000000Z-aa\n", "")
    session = tmp_path / "ledger" / "20261101T000000Z-cc"
    session.mkdir(parents=True)
    (session / "index.json").write_text(json.dumps({"sessionId": session.name}), "utf-8")
    code, out, _ = _run(["ledger", "list", "-q"], capsys)
    assert (code, out) == (0, f"{session.name}\n")
