"""`jlgcli doctor` (seed 001 §12.5): a broken config, a missing backend, --json.

``execute`` runs in-process; the console-script cases run once ``doctor`` is
wired into ``jlgcli/cli.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import pytest
from support.cli import Runner

from jlgcli.commands import doctor as command


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *, json_output: bool) -> tuple[int, str]:
    code = command.execute(argparse.Namespace(json=json_output, verbosity=None))
    return code, capsys.readouterr().out


def test_healthy(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, json_output=False)
    assert code == 0 and out.rstrip().endswith("nothing broken")
    assert "[ok]   backend claude" in out and "[warn] backend gemini" in out
    assert "hint: log in: set GEMINI_API_KEY" in out
    assert f"{here / '.jlgcli' / 'runs'} is writable" in out
    assert not (here / ".jlgcli").exists()


def test_broken_config(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / ".jlgcli.json").write_text("{not json", encoding="utf-8")
    code, out = run(capsys, json_output=False)
    assert code == 78
    assert "[FAIL] project config" in out and str(here / ".jlgcli.json") in out
    assert "something is broken (exit code 78)" in out


def test_missing_backends(
    here: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    system_bin: Path,
) -> None:
    monkeypatch.setenv("PATH", str(system_bin))
    code, out = run(capsys, json_output=False)
    assert code == 2
    assert "[warn] backend codex" in out and "npm install -g @openai/codex" in out
    assert "[FAIL] backend any" in out


def test_json(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / ".jlgcli.json").write_text('{"backends": {"mine": {"argv": []}}}', encoding="utf-8")
    code, out = run(capsys, json_output=True)
    document = json.loads(out)
    assert code == 78 and document["exitCode"] == 78 and document["ok"] is False
    failing = [c for c in document["checks"] if c["status"] == "fail"]
    assert any("backends.mine.argv" in c["summary"] for c in failing)
    assert [b["id"] for b in document["backends"]] == ["claude", "codex", "copilot", "gemini"]
    assert set(document["checks"][0]) == {"area", "name", "status", "summary", "hint"}


# -- through the installed console script -------------------------------------------------
@pytest.fixture
def wired(jlg: Runner) -> Runner:
    if "doctor" not in jlg("--help").stdout:
        pytest.skip("`jlgcli doctor` is not wired into jlgcli/cli.py yet")
    return jlg


def test_cli_broken_config_and_missing_backend(
    wired: Runner, tmp_path: Path, system_bin: Path
) -> None:
    (tmp_path / ".jlgcli.json").write_text("[1, 2", encoding="utf-8")
    done = wired("doctor", "--json", env={"PATH": str(system_bin)})
    document = json.loads(done.stdout)
    assert done.returncode == 78 and document["exitCode"] == 78
    statuses = {(c["area"], c["name"]): c["status"] for c in document["checks"]}
    assert statuses[("config", "project config")] == "fail"
    assert statuses[("backend", "claude")] == "warn" and statuses[("backend", "any")] == "fail"


def test_cli_healthy(wired: Runner) -> None:
    done = wired("doctor")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "nothing broken" in done.stdout


def test_register_is_argparse_only() -> None:
    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    assert parser.parse_args(["doctor"]).handler == "jlgcli.commands.doctor:execute"


def test_cli_fails_when_the_configured_backend_cannot_run(
    wired: Runner, tmp_path: Path, fake_bin: Path, system_bin: Path
) -> None:
    # issue 19 item 5: claude is ready, but the configured codex is not installed
    only_claude = tmp_path / "bin"
    only_claude.mkdir()
    for launcher in fake_bin.iterdir():
        if launcher.name.split(".")[0] == "claude":
            (only_claude / launcher.name).symlink_to(launcher)
    path = os.pathsep.join([str(only_claude), str(system_bin)])
    assert wired("config", "set", "backend", "codex").returncode == 0
    done = wired("doctor", "--json", env={"PATH": path})
    document = json.loads(done.stdout)
    assert done.returncode == 2 and document["exitCode"] == 2, done.stdout
    configured = [c for c in document["checks"] if c["name"] == "configured"]
    assert [c["status"] for c in configured] == ["fail"]
    assert "codex" in configured[0]["summary"] and "config set backend" in configured[0]["hint"]
    text = wired("doctor", env={"PATH": path})
    assert text.returncode == 2 and "something is broken (exit code 2)" in text.stdout


def test_cli_reports_an_untrusted_project_file(wired: Runner, tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    code = ["-c", f"open({str(marker)!r}, 'w')"]
    backend = {"argv": [sys.executable, *code], "version_args": code}
    (tmp_path / ".jlgcli.json").write_text(
        json.dumps({"backends": {"mine": backend}}),
        encoding="utf-8",
    )
    done = wired("doctor")
    assert "project trust" in done.stdout and "not trusted" in done.stdout
    assert "jlgcli config trust" in done.stdout
    assert not marker.exists()
