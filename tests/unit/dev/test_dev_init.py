"""``jlgcli dev init``: templates, detected commands, never overwriting (issue 36)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from support.dev_unit import typed, unattended

from jlgcli.dev.config import parse_config_file
from jlgcli.dev.init import DOCUMENTS, InitReport, detect_commands, init_project
from jlgcli.dev.plan import parse_plan
from jlgcli.dev.questions import Asker
from jlgcli.errors import DevExitCode, JlgError


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({}, {}),
        (
            {"package.json": json.dumps({"scripts": {"test": "jest", "lint": "eslint ."}})},
            {"lint": "npm run lint", "test": "npm test"},
        ),
        ({"package.json": "not json"}, {}),
        ({"package.json": json.dumps({"scripts": ["x"]})}, {}),
        ({"go.mod": "module x\n"}, {"lint": "go vet ./...", "test": "go test ./...",
                                    "build": "go build ./..."}),
        ({"Cargo.toml": "[package]\n"}, {"lint": "cargo clippy", "test": "cargo test",
                                         "build": "cargo build"}),
        (
            {"pyproject.toml": "[tool.ruff]\n[tool.mypy]\n[tool.pytest.ini_options]\n"},
            {"lint": "ruff check .", "typecheck": "mypy", "test": "python -m pytest"},
        ),
        ({"setup.py": "", "tests/x.py": ""}, {"test": "python -m unittest discover -s tests"}),
        ({"setup.cfg": ""}, {}),
        # issue 49: Python files with no packaging file
        ({"test_calc.py": "", "calc.py": ""}, {"test": "python -m pytest"}),
        ({"tests/test_calc.py": ""}, {"test": "python -m pytest"}),
        ({"calc_test.py": ""}, {"test": "python -m pytest"}),
        ({"conftest.py": ""}, {"test": "python -m pytest"}),
        ({"ruff.toml": "", "mypy.ini": "", "tests/helpers.py": ""},
         {"lint": "ruff check .", "typecheck": "mypy ."}),
        ({"calc.py": "", "tests/data.txt": ""}, {}),
    ],
)  # fmt: skip
def test_detected_commands(tmp_path: Path, files: dict[str, str], expected: dict[str, str]) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert detect_commands(tmp_path) == expected


def test_writes_valid_templates_and_says_what_next(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module x\n", encoding="utf-8")
    said: list[str] = []
    report = init_project(tmp_path, unattended(), said.append)
    assert report.written == (*(name for name, _ in DOCUMENTS), ".aidevloop.json")
    plan = parse_plan((tmp_path / "docs" / "implementation-plan.md").read_text(encoding="utf-8"))
    assert [t.id for t in plan.tasks] == ["TASK-001"]
    config = parse_config_file(tmp_path / ".aidevloop.json")
    assert config.validation.commands.test == "go test ./..."
    assert report.trust == "jlgcli config trust .aidevloop.json"
    assert "  2. let the validation commands run: jlgcli config trust .aidevloop.json" in said
    assert report.to_json()["status"] == "initialised"


def test_never_overwrites_and_no_trust_without_commands(tmp_path: Path) -> None:
    (tmp_path / ".aidevloop.yaml").write_text("llm: claude\n", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "architecture.md").write_text("mine\n", encoding="utf-8")
    said: list[str] = []
    report = init_project(tmp_path, unattended(), said.append)
    assert report.kept == ("docs/architecture.md", ".aidevloop.yaml")
    assert ".aidevloop.json" not in report.written
    assert not (tmp_path / ".aidevloop.json").exists()
    assert (tmp_path / "docs" / "architecture.md").read_text(encoding="utf-8") == "mine\n"
    assert report.trust is None
    assert not any("trust" in line for line in said)
    again = init_project(tmp_path, unattended(), said.append)
    assert again.written == ()
    assert said[-1] == "nothing to write: every file exists"


def test_no_commands_detected_needs_no_trust(tmp_path: Path) -> None:
    said: list[str] = []
    report = init_project(tmp_path, unattended(), said.append)
    assert report.commands == {} and report.trust is None
    # issue 49: its next steps say how to add one, and how to let it run
    step = next(line for line in said if "add your checks" in line)
    assert '"validation": {"commands": {"test": ' in step
    assert step.endswith("then let them run: jlgcli config trust .aidevloop.json")
    assert InitReport((".aidevloop.json",), (), {"test": "t"}).trust is not None


def test_answering_no_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(JlgError) as info:
        init_project(tmp_path, typed("n"), lambda _line: None)
    assert info.value.code == DevExitCode.ABORTED
    assert not (tmp_path / "docs").exists()


def test_nobody_to_answer_says_nothing_was_written(tmp_path: Path) -> None:
    asker = Asker(assume_yes=False, interactive=False, err=io.StringIO())
    with pytest.raises(JlgError) as info:
        init_project(tmp_path, asker, lambda _line: None)
    assert info.value.hint is not None and "nothing was written" in info.value.hint
    assert "jlgcli dev resume" not in info.value.hint
