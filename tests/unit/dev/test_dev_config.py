"""``.aidevloop.json`` / ``.aidevloop.yaml`` (seed 003 FR-3, AC-4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jlgcli.dev.config import DevConfig, check_llm, find_config, load_config
from jlgcli.errors import DevExitCode, JlgError


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def config_error(root: Path, explicit: Path | None = None) -> str:
    with pytest.raises(JlgError) as info:
        load_config(root, explicit)
    assert info.value.code == DevExitCode.CONFIGURATION
    return info.value.message


def test_defaults_without_a_file(tmp_path: Path) -> None:
    loaded = load_config(tmp_path)
    assert loaded.source is None
    config = loaded.config
    assert config.llm == "claude"
    assert (config.paths.docs, config.paths.context, config.paths.prompts) == (
        "docs",
        "context",
        "prompts",
    )
    assert config.validation.max_review_iterations == 3
    assert config.validation.commands.test is None
    assert config.verbose is False


def test_json_schema_of_the_seed(tmp_path: Path) -> None:
    write(
        tmp_path / ".aidevloop.json",
        """{"llm": "copilot", "paths": {"docs": "d", "context": "c", "prompts": "p"},
            "validation": {"maxReviewIterations": 5,
                           "commands": {"lint": "npm run lint", "test": ["npm", "test"]}},
            "verbose": true}""",
    )
    loaded = load_config(tmp_path)
    assert loaded.source == tmp_path / ".aidevloop.json"
    config = loaded.config
    assert config.llm == "copilot"
    assert config.paths.docs == "d"
    assert config.validation.max_review_iterations == 5
    assert config.validation.commands.lint == "npm run lint"
    assert config.validation.commands.test == ["npm", "test"]
    assert config.verbose is True


def test_yaml(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    write(
        tmp_path / ".aidevloop.yaml",
        "llm: copilot\nvalidation:\n  maxReviewIterations: 2\n  commands:\n    test: pytest -q\n",
    )
    config = load_config(tmp_path).config
    assert (config.llm, config.validation.max_review_iterations) == ("copilot", 2)
    assert config.validation.commands.test == "pytest -q"
    write(tmp_path / ".aidevloop.yaml", "llm: [unclosed\n")
    assert "invalid YAML in" in config_error(tmp_path)


def test_json_wins_over_yaml_with_a_warning(tmp_path: Path) -> None:
    write(tmp_path / ".aidevloop.json", "{}")
    write(tmp_path / ".aidevloop.yml", "llm: copilot\n")
    path, warnings = find_config(tmp_path)
    assert path == tmp_path / ".aidevloop.json"
    assert warnings == (".aidevloop.json is used; .aidevloop.yml ignored",)


def test_unknown_keys_and_bad_values_are_named(tmp_path: Path) -> None:
    write(
        tmp_path / ".aidevloop.json",
        """{"llm": "claude", "colour": "red", "paths": {"doc": "x"},
            "validation": {"maxReviewIterations": 0, "commands": {"lint": 3}},
            "verbose": "yes"}""",
    )
    message = config_error(tmp_path)
    assert str(tmp_path / ".aidevloop.json") in message
    assert "colour: unknown key" in message
    assert "paths.doc: unknown key" in message
    assert (
        "validation.maxReviewIterations: Input should be greater than or equal to 1 (got 0)"
        in message
    )
    assert "validation.commands.lint" in message
    assert "verbose: Input should be a valid boolean (got 'yes')" in message


def test_string_number_is_refused(tmp_path: Path) -> None:
    write(tmp_path / ".aidevloop.json", '{"validation": {"maxReviewIterations": "3"}}')
    assert "maxReviewIterations" in config_error(tmp_path)


def test_broken_json_names_line_and_column(tmp_path: Path) -> None:
    write(tmp_path / ".aidevloop.json", '{\n  "llm": "claude",\n}')
    assert "invalid JSON in" in config_error(tmp_path)
    assert "line 3 column 1" in config_error(tmp_path)


def test_top_level_must_be_a_mapping(tmp_path: Path) -> None:
    write(tmp_path / ".aidevloop.json", "[1, 2]")
    assert "the top level must be a mapping of keys, not a list" in config_error(tmp_path)


def test_empty_file_is_the_defaults(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    write(tmp_path / ".aidevloop.yaml", "")
    assert load_config(tmp_path).config == DevConfig()


def test_explicit_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / ".aidevloop.json", '{"llm": "claude"}')
    other = write(tmp_path / "alt.conf", '{"llm": "copilot"}')
    monkeypatch.chdir(tmp_path)
    loaded = load_config(tmp_path / "elsewhere", Path("alt.conf"))
    assert loaded.source == other
    assert loaded.config.llm == "copilot"
    assert "config file not found:" in config_error(tmp_path, Path("missing.json"))


def test_unreadable_config(tmp_path: Path) -> None:
    (tmp_path / ".aidevloop.json").write_bytes(b"\xff\xfe\x00bad")
    assert "cannot read config" in config_error(tmp_path)


def test_overrides_win() -> None:
    config = DevConfig().with_overrides(llm="copilot", verbose=True)
    assert (config.llm, config.verbose) == ("copilot", True)
    assert DevConfig(verbose=True).with_overrides(llm=None, verbose=None).verbose is True


def test_check_llm() -> None:
    check_llm("copilot")
    check_llm("mine", custom=("mine",))
    with pytest.raises(JlgError) as info:
        check_llm("gpt", source="--llm")
    assert info.value.code == DevExitCode.CONFIGURATION
    assert info.value.message == "unknown llm 'gpt' (from --llm)"
    assert info.value.hint is not None and "claude" in info.value.hint


@pytest.mark.parametrize("name", [".aidevloop.json", ".aidevloop.yaml"])
def test_a_folder_named_like_the_config_is_a_config_error(tmp_path: Path, name: str) -> None:
    """Issue 49: a folder ``.aidevloop.json`` was skipped, the loop ran on the defaults."""
    (tmp_path / name).mkdir()
    assert config_error(tmp_path) == f"{tmp_path / name} is not a file"
