"""`jlgcli config …` through the installed console script (seed 000 F-001, RG-001..RG-003)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from support.cli import Runner


def _user_file() -> Path:
    return Path(os.environ["JLGCLI_CONFIG_DIR"]) / "config.json"


def test_version_and_help(jlg: Runner) -> None:
    # US-1: `jlgcli --version` prints a version, exit 0
    result = jlg("--version")
    assert result.returncode == 0
    assert result.stdout.startswith("jlgcli ")
    help_text = jlg("--help").stdout
    for command in ("run", "loop", "config"):
        assert command in help_text
    assert "examples:" in help_text
    assert jlg("config", "set", "--help").returncode == 0


def test_set_then_get(jlg: Runner) -> None:
    # F-001: `config set backend copilot` → confirmation + 0;
    # `config get backend` → value + 0 (US-2)
    result = jlg("config", "set", "backend", "copilot")
    assert result.returncode == 0, result.stderr
    assert "backend = copilot" in result.stdout
    got = jlg("config", "get", "backend")
    assert (got.returncode, got.stdout.strip()) == (0, "copilot")
    assert json.loads(_user_file().read_text(encoding="utf-8")) == {"backend": "copilot"}


def test_set_timeout_ms(jlg: Runner) -> None:
    # F-001: `config set timeoutMs 120000` → validated integer > 0
    assert jlg("config", "set", "timeoutMs", "120000").returncode == 0
    # issue 19 item 15: shown as people write durations; --json keeps milliseconds
    assert jlg("config", "get", "timeoutMs").stdout.strip() == "2m"
    assert json.loads(jlg("config", "get", "timeoutMs", "--json").stdout)["value"] == 120000


def test_unknown_key(jlg: Runner) -> None:
    # F-001: `config set foo bar` → clear message + non-zero (64), naming valid keys
    result = jlg("config", "set", "foo", "bar")
    assert result.returncode == 64
    assert "unknown config key 'foo'" in result.stderr
    assert "maxIterations" in result.stderr
    assert "Traceback" not in result.stderr
    assert not _user_file().exists()


def test_out_of_range(jlg: Runner) -> None:
    # F-001 "Valeur hors bornes → Erreur + exemple de valeurs acceptées"
    result = jlg("config", "set", "maxIterations", "0")
    assert result.returncode == 64
    assert "1 to 1000" in result.stderr
    assert "hint: example: jlgcli config set maxIterations" in result.stderr


def test_show_json_has_values_and_sources(jlg: Runner, tmp_path: Path) -> None:
    jlg("config", "set", "backend", "codex")
    (tmp_path / ".jlgcli.json").write_text('{"maxIterations": 5}', encoding="utf-8")
    result = jlg("config", "show", "--json", env={"JLGCLI_TIMEOUT_MS": "2m"})
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    settings = data["settings"]
    assert settings["backend"] == {"value": "codex", "source": "user", "origin": str(_user_file())}
    assert settings["maxIterations"]["source"] == "project"
    assert settings["timeoutMs"] == {
        "value": 120000,
        "source": "env",
        "origin": "JLGCLI_TIMEOUT_MS",
    }
    assert settings["completionMode"]["source"] == "default"
    human = jlg("config", "show").stdout
    assert "maxIterations" in human and "project" in human


def test_corrupted_user_file_is_78_naming_it(jlg: Runner) -> None:
    # F-001 "Config non parseable → Erreur claire + action (réinitialiser)"
    _user_file().parent.mkdir(parents=True, exist_ok=True)
    _user_file().write_text("{not json", encoding="utf-8")
    result = jlg("config", "get", "backend")
    assert result.returncode == 78
    assert str(_user_file()) in result.stderr
    assert "hint:" in result.stderr
    as_json = jlg("config", "get", "backend", "--json")
    assert as_json.returncode == 78
    error = json.loads(as_json.stdout)
    assert error["exitCode"] == 78 and str(_user_file()) in error["error"]["message"]


def test_unset_and_path(jlg: Runner) -> None:
    jlg("config", "set", "backend", "codex")
    assert "removed" in jlg("config", "unset", "backend").stdout
    assert jlg("config", "get", "backend").stdout.strip() == "auto"
    paths = json.loads(jlg("config", "path", "--json").stdout)["files"]
    assert {entry["scope"] for entry in paths} == {"user", "project"}
    assert "user" in jlg("config", "path").stdout


def test_project_set_writes_dot_jlgcli_json(jlg: Runner, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # the repository root: a new project file goes there
    assert jlg("config", "set", "--project", "completionMode", "json").returncode == 0
    assert json.loads((tmp_path / ".jlgcli.json").read_text(encoding="utf-8")) == {
        "completionMode": "json"
    }
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    assert jlg("config", "get", "completionMode", cwd=sub).stdout.strip() == "json"


def test_usage_errors_exit_64(jlg: Runner) -> None:
    result = jlg("no-such-command")
    assert result.returncode == 64
    assert "hint: see: jlgcli --help" in result.stderr
    assert jlg("config").returncode == 64
    assert jlg("config", "get").returncode == 64
