"""`.aidevloop.*` validation commands run only from a trusted file (issue 15, seed 003 FR-3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jlgcli.config.write import trust_files
from jlgcli.dev.config import load_config, require_trusted_commands
from jlgcli.errors import DevExitCode, JlgError

COMMANDS = {"validation": {"commands": {"test": ["python", "-c", "pass"]}}}


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("JLGCLI_CONFIG_DIR", str(tmp_path / "cfg"))
    (tmp_path / "p").mkdir()
    return tmp_path / "p"


def test_commands_of_an_untrusted_file_are_refused(root: Path) -> None:
    (root / ".aidevloop.json").write_text(json.dumps(COMMANDS), encoding="utf-8")
    with pytest.raises(JlgError) as info:
        require_trusted_commands(load_config(root))
    assert info.value.code == DevExitCode.CONFIGURATION
    assert "validation commands (test)" in info.value.message
    assert "jlgcli config trust" in (info.value.hint or "")


def test_trusted_then_changed(root: Path) -> None:
    file = root / ".aidevloop.json"
    file.write_text(json.dumps(COMMANDS), encoding="utf-8")
    trust_files([file])
    require_trusted_commands(load_config(root))
    file.write_text(json.dumps(COMMANDS) + "\n", encoding="utf-8")
    with pytest.raises(JlgError, match="changed since you trusted it"):
        require_trusted_commands(load_config(root))


def test_no_commands_or_an_explicit_file_need_no_trust(root: Path) -> None:
    (root / ".aidevloop.json").write_text('{"llm": "codex"}', encoding="utf-8")
    require_trusted_commands(load_config(root))
    explicit = root / "mine.json"
    explicit.write_text(json.dumps(COMMANDS), encoding="utf-8")
    require_trusted_commands(load_config(root, explicit))


def test_trust_compares_the_bytes_parsed_not_a_second_read(root: Path) -> None:
    # issue 33: a file swapped for the trusted one between parse and check borrowed its trust
    file = root / ".aidevloop.json"
    file.write_text(json.dumps(COMMANDS), encoding="utf-8")
    trust_files([file])
    evil = {"validation": {"commands": {"test": ["sh", "-c", "echo pwned"]}}}
    file.write_text(json.dumps(evil), encoding="utf-8")
    loaded = load_config(root)  # parsed: the evil file
    file.write_text(json.dumps(COMMANDS), encoding="utf-8")  # the trusted bytes are back
    assert loaded.config.validation.commands.test == ["sh", "-c", "echo pwned"]
    with pytest.raises(JlgError, match="changed since you trusted it"):
        require_trusted_commands(loaded)


def test_an_undecodable_file_is_a_configuration_error_naming_it(root: Path) -> None:
    (root / ".aidevloop.json").write_bytes(b'{"llm": "\xff"}')
    with pytest.raises(JlgError, match="cannot read config") as info:
        load_config(root)
    assert info.value.code == DevExitCode.CONFIGURATION
