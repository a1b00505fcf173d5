"""`jlgcli backends` (seed 000 F-002, RG-004, RG-005, exit 2 when none is available).

The command's ``execute`` is tested in-process; the same cases run through the
installed console script once ``backends`` is wired into ``jlgcli/cli.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path

import pytest
from support.cli import Runner

from jlgcli.backends.report_schema import SCHEMA_PATH, BackendsReport
from jlgcli.commands import backends as command
from jlgcli.config.write import trust_files
from jlgcli.errors import JlgError


def validate(document: dict[str, object]) -> None:
    BackendsReport.model_validate(document)
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(document, json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *, json_output: bool) -> tuple[int, str, str]:
    code = command.execute(argparse.Namespace(json=json_output, verbosity=None))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_table_with_the_fakes(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, json_output=False)
    assert code == 0
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines()[1:5]}
    assert rows == {
        "claude": "available",
        "codex": "available",
        "copilot": "unauthenticated",
        "gemini": "unauthenticated",
    }
    assert out.splitlines()[0].split() == ["BACKEND", "STATUS", "VERSION", "NOTES"]
    assert "2.1.197" in out and "log in: set GEMINI_API_KEY" in out
    assert out.rstrip().endswith("default: claude")


def test_json_report(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, json_output=True)
    document = json.loads(out)
    validate(document)
    assert code == 0 and document["available"] == ["claude", "codex"]
    assert document["default"] == "claude" and document["configured"] == "auto"
    assert document["error"] is None


def test_none_available_exits_2(
    here: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    system_bin: Path,
) -> None:
    monkeypatch.setenv("PATH", str(system_bin))
    code, out, err = run(capsys, json_output=True)
    document = json.loads(out)
    validate(document)
    assert code == 2 and document["error"]["code"] == 2 and document["default"] is None
    assert {b["status"] for b in document["backends"]} == {"missing"}
    assert "error: no backend available" in err
    code, out, err = run(capsys, json_output=False)
    assert code == 2 and "npm install -g @openai/codex" in out and "no backend available" in err


def test_hanging_probes_are_unknown(
    here: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """RG-004: the command answers even when every CLI hangs."""
    monkeypatch.setenv("JLGCLI_FAKE_PROBE_HANG", "1")
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    code, out, _ = run(capsys, json_output=True)
    assert code == 2
    assert [b["status"] for b in json.loads(out)["backends"]] == ["unknown"] * 4


def test_custom_backend_and_configured_default(
    here: Path,
    capsys: pytest.CaptureFixture[str],
    system_bin: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", str(system_bin))
    (here / ".jlgcli.json").write_text(
        json.dumps({"backend": "mine", "backends": {"mine": {"argv": ["cat"], "prompt": "stdin"}}}),
        "utf-8",
    )
    trust_files([here / ".jlgcli.json"])  # issue 15: a project's commands run once trusted
    code, out, _ = run(capsys, json_output=True)
    document = json.loads(out)
    validate(document)
    assert code == 0 and document["available"] == ["mine"] and document["default"] == "mine"


def test_invalid_custom_backend_is_a_config_error(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (here / ".jlgcli.json").write_text('{"backends": {"mine": {"argv": []}}}', "utf-8")
    with pytest.raises(JlgError) as caught:
        run(capsys, json_output=False)
    assert caught.value.code == 78 and "backends.mine.argv" in caught.value.message


# -- through the installed console script -------------------------------------------------
@pytest.fixture
def wired(jlg: Runner) -> Runner:
    if "backends" not in jlg("--help").stdout:
        pytest.skip("`jlgcli backends` is not wired into jlgcli/cli.py yet")
    return jlg


def test_cli_json_exit_0(wired: Runner) -> None:
    done = wired("backends", "--json")
    assert done.returncode == 0, done.stderr
    validate(json.loads(done.stdout))


def test_cli_none_available_exit_2(wired: Runner, system_bin: Path) -> None:
    done = wired("backends", "--json", env={"PATH": str(system_bin) + os.pathsep})
    assert done.returncode == 2
    document = json.loads(done.stdout)  # exactly one JSON object on stdout
    validate(document)
    assert document["error"]["message"] == "no backend available"
    human = wired("backends", env={"PATH": str(system_bin)})
    assert human.returncode == 2 and "missing" in human.stdout and "no backend" in human.stderr


def test_cli_help(wired: Runner) -> None:
    done = wired("backends", "--help")
    assert done.returncode == 0 and "jlgcli backends --json" in done.stdout


def test_register_is_argparse_only() -> None:
    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    args = parser.parse_args(["backends"])
    assert args.handler == "jlgcli.commands.backends:execute"


def test_configured_backend_not_available_warns(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (here / ".jlgcli.json").write_text('{"backend": "gemini"}', "utf-8")
    code, out, err = run(capsys, json_output=False)
    assert code == 0 and "default:" not in out
    assert "the configured backend 'gemini' is not available" in err


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_cli_reads_a_native_claude_version_from_its_file_name(
    wired: Runner, fake_bin: Path, tmp_path: Path
) -> None:
    """claude's native installer: ~/.local/bin/claude -> ~/.local/share/claude/versions/<v>
    (anthropics/claude-code#25165). The fake would answer --version with 2.1.197."""
    versions = tmp_path / "share" / "claude" / "versions"
    versions.mkdir(parents=True)
    native = versions / "2.1.150"
    shutil.copy2(fake_bin / "claude", native)  # a file of its own, as the installer writes
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").symlink_to(native)
    done = wired("backends", "--json", env={"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"})
    assert done.returncode == 0, done.stderr
    claude = next(b for b in json.loads(done.stdout)["backends"] if b["id"] == "claude")
    assert (claude["status"], claude["version"]) == ("available", "2.1.150")
