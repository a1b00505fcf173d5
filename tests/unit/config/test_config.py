"""Configuration: files, precedence, validation (seed 000 F-001, RG-001..RG-003)."""

from __future__ import annotations

import json
import os
from pathlib import Path, PureWindowsPath

import pytest

from jlgcli.config import resolve as config
from jlgcli.config import write as config_write
from jlgcli.config.keys import KEYS, lookup_key, unknown_key_message
from jlgcli.errors import ExitCode, JlgError


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "user-config"
    monkeypatch.setenv("JLGCLI_CONFIG_DIR", str(directory))
    return directory


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / ".git").mkdir()  # a repository: `--project` may create .jlgcli.json at its root
    monkeypatch.chdir(root)
    return root


def test_missing_files_give_defaults(user_dir: Path, project: Path) -> None:
    # F-001 "Config inexistante → defaults raisonnables, sans crash"
    settings = config.resolve_settings(cwd=project)
    assert settings["maxIterations"] == 20
    assert settings["timeoutMs"] == 30 * 60 * 1000
    assert settings["noProgressLimit"] == 3
    assert settings["completionMode"] == "marker"
    assert set(settings.sources.values()) == {"default"}


def test_set_persists_and_get_reads_back(user_dir: Path, project: Path) -> None:
    # RG-001: persisted locally and read again by every command
    config_write.set_value("backend", "copilot", cwd=project)
    config_write.set_value("timeoutMs", "120000", cwd=project)
    stored = json.loads((user_dir / "config.json").read_text(encoding="utf-8"))
    assert stored == {"backend": "copilot", "timeoutMs": 120000}
    settings = config.resolve_settings(cwd=project)
    assert settings["backend"] == "copilot"
    assert settings.sources["backend"] == "user"
    assert settings.origins["backend"] == str(user_dir / "config.json")


def test_precedence_flag_env_project_user_default(
    user_dir: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # RG-002: an explicit option overrides the config
    config_write.set_value("maxIterations", "7", cwd=project)
    config_write.set_value("noProgressLimit", "4", cwd=project)
    config_write.set_value("verbosity", "2", cwd=project)
    config_write.set_value("maxIterations", "8", project=True, cwd=project)
    config_write.set_value("noProgressLimit", "5", project=True, cwd=project)
    monkeypatch.setenv("JLGCLI_MAX_ITERATIONS", "9")
    deeper = project / "sub" / "deeper"
    settings = config.resolve_settings(cwd=deeper, flags={"maxIterations": 10})
    assert (settings["maxIterations"], settings.sources["maxIterations"]) == (10, "flag")
    settings = config.resolve_settings(cwd=deeper)
    assert (settings["maxIterations"], settings.sources["maxIterations"]) == (9, "env")
    assert (settings["noProgressLimit"], settings.sources["noProgressLimit"]) == (5, "project")
    assert (settings["verbosity"], settings.sources["verbosity"]) == (2, "user")
    assert settings.sources["timeoutMs"] == "default"


def test_unknown_key_is_a_usage_error_naming_valid_keys(user_dir: Path, project: Path) -> None:
    # F-001 `config set foo bar` → clear message + non-zero (RG-003)
    with pytest.raises(JlgError) as info:
        config_write.set_value("foo", "bar", cwd=project)
    assert info.value.code == ExitCode.USAGE
    for spec in KEYS:
        assert spec.name in info.value.message
    assert not (user_dir / "config.json").exists()


def test_unknown_key_suggests_the_closest() -> None:
    assert "did you mean 'maxIterations'" in unknown_key_message("maxIteration")
    assert "did you mean" not in unknown_key_message("zzz")


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("maxIterations", "0", "1 to 1000"),
        ("maxIterations", "many", "whole number"),
        ("timeoutMs", "-5", "duration"),
        ("timeoutMs", "soon", "500ms, 30s"),
        ("completionMode", "xml", "marker | json | rebound"),
        ("backend", "cursor", "known backend"),
        ("backend", "claud", "did you mean 'claude'"),
        ("noProgressLimit", "0", "1 to 100"),
        ("verbosity", "9", "0 to 3"),
        ("artifacts", "maybe", "true | false"),
    ],
)
def test_out_of_range_values_are_usage_errors_with_range_and_example(
    user_dir: Path, project: Path, key: str, value: str, expected: str
) -> None:
    # F-001 "Valeur hors bornes → Erreur + exemple de valeurs acceptées"
    with pytest.raises(JlgError) as info:
        config_write.set_value(key, value, cwd=project)
    assert info.value.code == ExitCode.USAGE
    assert expected in info.value.message
    assert info.value.hint and "example" in info.value.hint


@pytest.mark.parametrize(
    ("key", "value", "stored"),
    [
        ("timeoutMs", "2m", 120_000),
        ("timeoutMs", "1h30m", 5_400_000),
        ("idleTimeoutMs", "0", 0),
        ("artifacts", "yes", True),
        ("completionMode", "json", "json"),
        ("backend", "auto", "auto"),
        ("backend", "replay", "replay"),
        ("maxiterations", "5", 5),  # case-insensitive key on the command line
    ],
)
def test_accepted_values_are_normalised(
    user_dir: Path, project: Path, key: str, value: str, stored: object
) -> None:
    spec, parsed, _ = config_write.set_value(key, value, cwd=project)
    assert parsed == stored
    assert json.loads((user_dir / "config.json").read_text(encoding="utf-8"))[spec.name] == stored


def test_corrupt_file_is_exit_78_naming_file_and_line(user_dir: Path, project: Path) -> None:
    # F-001 "Config non parseable → Erreur claire + action (réinitialiser)"
    user_dir.mkdir(parents=True)
    path = user_dir / "config.json"
    path.write_text('{\n  "backend": "codex",\n  oops\n}', encoding="utf-8")
    with pytest.raises(JlgError) as info:
        config.resolve_settings(cwd=project)
    assert info.value.code == ExitCode.CONFIG
    assert str(path) in info.value.message
    assert "line 3" in info.value.message
    assert info.value.hint and "delete" in info.value.hint


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"maxIterations": 0}', "maxIterations"),
        ('{"maxIterations": "ten"}', "maxIterations"),
        ('{"colour": "blue"}', "unknown config key 'colour'"),
        ("[1, 2]", "JSON object"),
        ('{"backends": []}', "backends"),
    ],
)
def test_invalid_project_file_is_exit_78_naming_the_field(
    user_dir: Path, project: Path, content: str, expected: str
) -> None:
    (project / ".jlgcli.json").write_text(content, encoding="utf-8")
    with pytest.raises(JlgError) as info:
        config.resolve_settings(cwd=project / "sub")
    assert info.value.code == ExitCode.CONFIG
    assert expected in info.value.message
    assert str(project / ".jlgcli.json") in info.value.message


def test_a_bom_is_tolerated(user_dir: Path, project: Path) -> None:
    (project / ".jlgcli.json").write_bytes(b'\xef\xbb\xbf{"maxIterations": 4}')
    assert config.resolve_settings(cwd=project)["maxIterations"] == 4


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", "is empty"),  # issue 15: an empty file is no longer silently ignored
        (b"  \n", "is empty"),
        (b'{"backend": "caf\xe9"}', "not UTF-8"),
        (b'{"timeoutMs": NaN}', "NaN"),
        (b'{"timeoutMs": Infinity}', "Infinity"),
        (b'{"backends": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
        (b'{"backends": {"x": ' + b"[" * 40 + b"]" * 40 + b"}}", "nested too deeply"),
    ],
)
def test_bad_input_is_exit_78_naming_the_file(
    user_dir: Path, project: Path, content: bytes, words: str
) -> None:
    user_dir.mkdir(parents=True)
    (user_dir / "config.json").write_bytes(content)
    with pytest.raises(JlgError) as info:
        config.resolve_settings(cwd=project)
    assert info.value.code == ExitCode.CONFIG
    assert words in info.value.message and str(user_dir / "config.json") in info.value.message


def test_config_dir_pointing_at_a_file_is_exit_78(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "afile").write_text("{}", encoding="utf-8")
    monkeypatch.setenv("JLGCLI_CONFIG_DIR", str(tmp_path / "afile"))
    with pytest.raises(JlgError) as info:
        config.resolve_settings(cwd=project)
    assert info.value.code == ExitCode.CONFIG and "JLGCLI_CONFIG_DIR" in info.value.message


def test_invalid_env_value_is_exit_78_naming_the_variable(
    user_dir: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JLGCLI_TIMEOUT_MS", "forever")
    with pytest.raises(JlgError) as info:
        config.resolve_settings(cwd=project)
    assert info.value.code == ExitCode.CONFIG
    assert "JLGCLI_TIMEOUT_MS" in info.value.message


def test_custom_backends_are_known_to_backend_validation(user_dir: Path, project: Path) -> None:
    (project / ".jlgcli.json").write_text(
        json.dumps({"backends": {"aider": {"argv": ["aider"]}}, "backend": "aider"}),
        encoding="utf-8",
    )
    settings = config.resolve_settings(cwd=project)
    assert settings["backend"] == "aider"
    assert "aider" in settings.custom_backends
    config_write.set_value("backend", "aider", cwd=project)  # the user file may name it too


def test_unset_removes_the_key_and_keeps_the_rest(user_dir: Path, project: Path) -> None:
    config_write.set_value("backend", "codex", cwd=project)
    config_write.set_value("maxIterations", "5", cwd=project)
    _, path, removed = config_write.unset_value("backend", cwd=project)
    assert removed
    assert json.loads(path.read_text(encoding="utf-8")) == {"maxIterations": 5}
    assert config_write.unset_value("backend", cwd=project)[2] is False


def test_a_failed_write_keeps_the_previous_file(
    user_dir: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_write.set_value("backend", "codex", cwd=project)
    path = user_dir / "config.json"
    before = path.read_bytes()

    def broken_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("os.replace", broken_replace)
    with pytest.raises((JlgError, OSError)):
        config_write.set_value("backend", "claude", cwd=project)
    assert path.read_bytes() == before
    # no temporary file left behind (the lock file is the only other one)
    assert sorted(p.name for p in user_dir.iterdir()) == ["config.json", "config.lock"]


def test_write_into_an_unwritable_place_is_exit_73(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("JLGCLI_CONFIG_DIR", str(blocker / "sub"))
    with pytest.raises(JlgError) as info:
        config_write.set_value("backend", "codex", cwd=project)
    assert info.value.code == ExitCode.CANT_CREATE


@pytest.mark.parametrize("xdg", [None, "/somewhere/else"])
def test_user_dir_defaults_to_platformdirs_roaming(
    monkeypatch: pytest.MonkeyPatch, xdg: str | None
) -> None:
    monkeypatch.delenv("JLGCLI_CONFIG_DIR")
    if xdg is None:
        monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CONFIG_HOME", xdg)
    import platformdirs

    expected = platformdirs.user_config_dir("jlgcli", appauthor=False, roaming=True)
    assert config.user_config_dir() == Path(expected)
    assert config.user_config_dir({"JLGCLI_CONFIG_DIR": "/x"}) == Path("/x")


@pytest.mark.parametrize(
    ("platform", "env", "expected"),
    [
        (
            "win32",
            {"APPDATA": r"C:\Users\me\AppData\Roaming"},
            r"C:\Users\me\AppData\Roaming\jlgcli",
        ),
        ("win32", {}, r"C:\Users\me\AppData\Roaming\jlgcli"),
        ("darwin", {}, r"C:\Users\me\Library\Application Support\jlgcli"),
        ("darwin", {"XDG_CONFIG_HOME": r"D:\xdg"}, r"D:\xdg\jlgcli"),
        ("linux", {}, r"C:\Users\me\.config\jlgcli"),
        ("linux", {"XDG_CONFIG_HOME": r"D:\xdg"}, r"D:\xdg\jlgcli"),
    ],
)
def test_default_user_config_dir_per_platform(
    platform: str, env: dict[str, str], expected: str
) -> None:
    # PureWindowsPath for every branch: the Windows one is exercised here too (no Windows CI
    # machine is needed to see that %APPDATA% wins)
    found = config.default_user_config_dir(
        env, platform=platform, home=r"C:\Users\me", path_type=PureWindowsPath
    )
    assert found == PureWindowsPath(expected)


def test_describe_config_files(user_dir: Path, project: Path) -> None:
    (project / ".jlgcli.json").write_text("{bad", encoding="utf-8")
    statuses = {s.scope: s for s in config.describe_config_files(project)}
    assert statuses["user"].exists is False and statuses["user"].error is None
    assert statuses["project"].exists is True
    assert statuses["project"].error and "not valid JSON" in statuses["project"].error


def test_env_var_names() -> None:
    names = {spec.name: spec.env_var for spec in KEYS}
    assert names["maxIterations"] == "JLGCLI_MAX_ITERATIONS"
    assert names["timeoutMs"] == "JLGCLI_TIMEOUT_MS"
    assert lookup_key("TIMEOUTMS") is lookup_key("timeoutMs")


def test_flag_values_are_usage_errors(project: Path) -> None:
    with pytest.raises(JlgError) as info:
        config.parse_flag_value("maxIterations", "0")
    assert info.value.code == ExitCode.USAGE
    with pytest.raises(JlgError):
        config.parse_flag_value("nope", "1")
    assert config.parse_flag_value("timeoutMs", "2m") == 120_000


def test_config_get_imports_nothing_heavy(user_dir: Path, project: Path) -> None:
    # issue 18: `config get` stays near `python -c pass`; these modules cost 1-150 ms each
    import subprocess
    import sys

    heavy = {"pydantic", "dataclasses", "inspect", "difflib", "filelock", "hashlib"}
    # with JLGCLI_CONFIG_DIR (the fixture's), and without it: the default folder is computed
    # Without coverage's subprocess measurement, which itself imports dataclasses/hashlib.
    plain = {k: v for k, v in os.environ.items() if not k.startswith(("COV_", "COVERAGE"))}
    no_dir = {k: v for k, v in plain.items() if k != "JLGCLI_CONFIG_DIR"}
    for env in (plain, no_dir):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "jlgcli", "config", "get", "backend"],
            capture_output=True,
            text=True,
            check=True,
            cwd=project,
            env=env,
        )
        imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
        assert done.stdout.strip() == "auto"
        assert imported & (heavy | {"platformdirs"}) == set()
