"""`jlgcli config …` through the installed console script (seed 000 F-001, RG-001..RG-003)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import Runner
from support.devproject import make_project


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


# -- project trust (issue 15) ------------------------------------------------------------
def _repo_with_command_backend(root: Path) -> tuple[Path, Path]:
    """A repository whose .jlgcli.json declares a command backend that leaves a marker."""
    (root / ".git").mkdir()
    (root / "sub").mkdir()
    marker = root / "ran.txt"
    script = root / "agent.py"
    script.write_text(
        f"import pathlib, sys\npathlib.Path({str(marker)!r}).write_text('ran')\n"
        "sys.stdin.read()\nprint('DONE')\n",
        encoding="utf-8",
    )
    argv = [sys.executable, str(script)]
    (root / ".jlgcli.json").write_text(
        json.dumps(
            {
                "maxIterations": 9,
                "backends": {"mine": {"argv": argv, "prompt": "stdin", "version_args": []}},
            }
        ),
        encoding="utf-8",
    )
    (root / "sub" / "prompt.md").write_text("do it\n", encoding="utf-8")
    return root / "sub", marker


def test_an_untrusted_project_runs_none_of_its_commands(jlg: Runner, tmp_path: Path) -> None:
    sub, marker = _repo_with_command_backend(tmp_path)
    listed = jlg("backends", cwd=sub)
    assert "not trusted" in listed.stdout and "jlgcli config trust" in listed.stdout
    assert jlg("doctor", cwd=sub).returncode != 70
    refused = jlg("run", "--backend", "mine", "prompt.md", cwd=sub)
    assert refused.returncode == 78, refused.stderr
    assert "jlgcli config trust" in refused.stderr
    assert not marker.exists()  # neither the probe, nor doctor, nor run started it
    # the keys that run nothing still apply
    assert jlg("config", "get", "maxIterations", cwd=sub).stdout.strip() == "9"
    shown = jlg("config", "show", cwd=sub).stdout
    assert "not trusted" in shown and str(tmp_path / ".jlgcli.json") in shown


def test_trust_then_change_then_untrust(jlg: Runner, tmp_path: Path) -> None:
    sub, marker = _repo_with_command_backend(tmp_path)
    trusted = jlg("config", "trust", cwd=sub)
    assert trusted.returncode == 0 and str(tmp_path / ".jlgcli.json") in trusted.stdout
    recorded = json.loads(_user_file().read_text(encoding="utf-8"))["trustedProjects"]
    assert list(recorded) == [str((tmp_path / ".jlgcli.json").resolve())]
    assert next(iter(recorded.values())).startswith("sha256:")
    assert "trusted" in jlg("config", "path", cwd=sub).stdout
    ran = jlg("run", "--backend", "mine", "prompt.md", cwd=sub)
    assert ran.returncode == 0, ran.stderr
    assert marker.exists()
    marker.unlink()

    project = tmp_path / ".jlgcli.json"
    project.write_text(project.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    changed = jlg("run", "--backend", "mine", "prompt.md", cwd=sub)
    assert changed.returncode == 78 and "changed since you trusted it" in changed.stderr
    assert not marker.exists()

    assert jlg("config", "trust", str(project)).returncode == 0
    assert jlg("run", "--backend", "mine", "prompt.md", cwd=sub).returncode == 0
    untrusted = jlg("config", "untrust", cwd=sub)
    assert untrusted.returncode == 0 and "no longer trusted" in untrusted.stdout
    assert jlg("run", "--backend", "mine", "prompt.md", cwd=sub).returncode == 78


def test_trust_with_nothing_to_trust_is_an_error(jlg: Runner, tmp_path: Path) -> None:
    result = jlg("config", "trust", cwd=tmp_path)
    assert result.returncode == 66 and "no project file to trust" in result.stderr


# -- bad input (issue 15) ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b'{"backend": "caf\xe9"}', "not UTF-8"),
        (b'{"timeoutMs": NaN}', "NaN"),
        (b'{"backends": ' + b"[" * 50_000 + b"]" * 50_000 + b"}", "nested too deeply"),
        (b"", "is empty"),
    ],
)
def test_bad_config_file_exits_78_naming_it(jlg: Runner, content: bytes, words: str) -> None:
    _user_file().parent.mkdir(parents=True, exist_ok=True)
    _user_file().write_bytes(content)
    result = jlg("config", "get", "backend")
    assert result.returncode == 78, result.stderr
    assert words in result.stderr and str(_user_file()) in result.stderr
    assert "crash" not in result.stderr.lower()


def test_config_dir_on_a_file_exits_78(jlg: Runner, tmp_path: Path) -> None:
    (tmp_path / "not-a-dir").write_text("{}", encoding="utf-8")
    result = jlg("config", "get", "backend", env={"JLGCLI_CONFIG_DIR": str(tmp_path / "not-a-dir")})
    assert result.returncode == 78 and "JLGCLI_CONFIG_DIR" in result.stderr


@pytest.mark.parametrize(
    ("flag", "value", "words"),
    [
        ("--timeout", "-1s", "negative"),
        ("--timeout", "abc", "not a duration"),
        ("--timeout", "0", "out of range"),
        ("--idle-timeout", "soon", "not a duration"),
    ],
)
def test_bad_duration_flags_exit_64_naming_the_flag(
    jlg: Runner, tmp_path: Path, flag: str, value: str, words: str
) -> None:
    (tmp_path / "p.md").write_text("x\n", encoding="utf-8")
    result = jlg("run", f"{flag}={value}", "p.md")
    assert result.returncode == 64, result.stderr
    assert flag in result.stderr and words in result.stderr
    assert "timeoutMs" not in result.stderr and "idleTimeoutMs" not in result.stderr


def test_parallel_sets_of_different_keys_all_land(jlgcli_exe: str, tmp_path: Path) -> None:
    pairs = {
        "maxIterations": ("7", 7),
        "timeoutMs": ("2m", 120_000),
        "iterationTimeoutMs": ("1m", 60_000),
        "idleTimeoutMs": ("5m", 300_000),
        "completionMode": ("json", "json"),
        "noProgressLimit": ("4", 4),
        "verbosity": ("2", 2),
        "artifacts": ("true", True),
        "artifactsDir": ("out/runs", "out/runs"),
    }
    processes = [
        subprocess.Popen(
            [jlgcli_exe, "config", "set", key, raw],
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for key, (raw, _) in pairs.items()
    ]
    for process in processes:
        _, stderr = process.communicate(timeout=120)
        assert process.returncode == 0, stderr
    stored = json.loads(_user_file().read_text(encoding="utf-8"))
    assert stored == {key: value for key, (_, value) in pairs.items()}


# -- where --project writes (issue 19 item 3) ------------------------------------------
def test_project_set_from_a_sub_folder_writes_the_file_reading_finds(
    jlg: Runner, tmp_path: Path
) -> None:
    (tmp_path / ".git").mkdir()
    project = tmp_path / ".jlgcli.json"
    project.write_text('{"backends": {"mine": {"argv": ["cat"]}}}', encoding="utf-8")
    sub = tmp_path / "sub"
    sub.mkdir()
    result = jlg("config", "set", "--project", "maxIterations", "7", cwd=sub)
    assert result.returncode == 0 and str(project) in result.stdout
    assert not (sub / ".jlgcli.json").exists()
    stored = json.loads(project.read_text(encoding="utf-8"))
    assert stored == {"backends": {"mine": {"argv": ["cat"]}}, "maxIterations": 7}
    removed = jlg("config", "unset", "--project", "maxIterations", cwd=sub)
    assert removed.returncode == 0 and "maxIterations" not in project.read_text(encoding="utf-8")


def test_a_new_project_file_goes_to_the_repository_root(jlg: Runner, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert jlg("config", "set", "--project", "maxIterations", "6", cwd=deep).returncode == 0
    assert json.loads((tmp_path / ".jlgcli.json").read_text(encoding="utf-8")) == {
        "maxIterations": 6
    }
    assert not (deep / ".jlgcli.json").exists()


def test_no_repository_needs_an_explicit_file(jlg: Runner, tmp_path: Path) -> None:
    refused = jlg("config", "set", "--project", "maxIterations", "6")
    assert refused.returncode == 64 and "--file" in refused.stderr
    assert not (tmp_path / ".jlgcli.json").exists()
    written = jlg("config", "set", "--file", ".jlgcli.json", "maxIterations", "6")
    assert written.returncode == 0, written.stderr
    assert jlg("config", "get", "maxIterations").stdout.strip() == "6"


def test_show_prints_durations_as_people_write_them(jlg: Runner) -> None:
    shown = jlg("config", "show").stdout
    assert "30m" in shown and "1800000" not in shown
    document = json.loads(jlg("config", "show", "--json").stdout)
    assert document["settings"]["timeoutMs"]["value"] == 1_800_000


def test_dev_refuses_validation_commands_of_an_untrusted_file(jlg: Runner, tmp_path: Path) -> None:
    # issue 15: `.aidevloop.*` validation commands run only once the file is trusted
    root = make_project(tmp_path / "p", trust_dir=tmp_path / "someone-else")
    refused = jlg("dev", "run", "--yes", cwd=root)
    assert refused.returncode == 2, refused.stderr
    assert "validation commands" in refused.stderr
    assert f"jlgcli config trust {root / '.aidevloop.json'}" in refused.stderr
