"""README's generated tables match the code (config reference, exit codes)."""

from __future__ import annotations

from pathlib import Path

from jlgcli.readme_tables import exit_code_table, render

README = Path(__file__).parents[2] / "README.md"


def test_readme_tables_are_current() -> None:
    text = README.read_text(encoding="utf-8")
    assert render(text) == text, "run: python -m jlgcli.readme_tables README.md"
    assert exit_code_table() in text


def test_readme_has_the_two_setup_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert "python3 -m venv .venv && . .venv/bin/activate && pip install . && jlgcli demo" in text
    assert "pip install -e '.[test]' && python -m pytest --cov" in text
