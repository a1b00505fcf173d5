"""Phase 1 checks and set-up (seed 003 FR-2.1, FR-2.2, AC-1)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from jlgcli.dev.config import DevConfig, PathsConfig
from jlgcli.dev.project import (
    OPTIONAL_DOCS,
    PROMPT_FILES,
    ProjectPaths,
    check_documents,
    default_template,
    prepare_project,
)
from jlgcli.dev.report import Reporter
from jlgcli.errors import DevExitCode, JlgError


def project(tmp_path: Path, docs: tuple[str, ...]) -> ProjectPaths:
    (tmp_path / "docs").mkdir()
    for name in docs:
        (tmp_path / "docs" / name).write_text("x", encoding="utf-8")
    return ProjectPaths.from_config(tmp_path, DevConfig())


def test_missing_docs_directory(tmp_path: Path) -> None:
    with pytest.raises(JlgError) as info:
        check_documents(ProjectPaths.from_config(tmp_path, DevConfig()))
    assert info.value.code == DevExitCode.CONFIGURATION
    assert f"docs directory not found: {tmp_path.resolve() / 'docs'}" == info.value.message


def test_every_missing_mandatory_doc_is_named(tmp_path: Path) -> None:
    paths = project(tmp_path, ("architecture.md",))
    with pytest.raises(JlgError) as info:
        check_documents(paths)
    message = info.value.message
    assert str(paths.docs / "requirements.md") in message
    assert str(paths.docs / "implementation-plan.md") in message
    assert "architecture.md" not in message
    assert not paths.context.exists()


def test_setup_creates_dirs_templates_and_warns(tmp_path: Path) -> None:
    paths = project(
        tmp_path, ("requirements.md", "architecture.md", "implementation-plan.md", "ui-design.md")
    )
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "code-review.prompt.md").write_text("mine", encoding="utf-8")
    out = io.StringIO()
    warnings = "\n".join(check_documents(paths))
    assert not paths.context.exists(), "the checks write nothing"
    prepare_project(paths, Reporter("verbose", out, io.StringIO()))
    log = out.getvalue()
    for name in OPTIONAL_DOCS:
        assert (f"optional document docs/{name} not found" in warnings) is (name != "ui-design.md")
    assert paths.completed.is_dir()
    assert "[mkdir] context" in log
    for name in PROMPT_FILES:
        expected = "mine" if name == "code-review.prompt.md" else default_template(name)
        assert (paths.prompts / name).read_text(encoding="utf-8") == expected
    assert "created default prompt prompts/implement-task.prompt.md" in log
    assert "code-review.prompt.md" not in log.split("created default prompt")[-1]


def test_configured_paths(tmp_path: Path) -> None:
    config = DevConfig(paths=PathsConfig(docs="spec", context="state", prompts="p"))
    paths = ProjectPaths.from_config(tmp_path, config)
    assert paths.plan == tmp_path.resolve() / "spec" / "implementation-plan.md"
    assert paths.review == tmp_path.resolve() / "state" / "review.md"
    assert paths.archive_dir("T-1") == tmp_path.resolve() / "state" / "completed" / "T-1"
    assert paths.show(paths.notes) == "state/implementation-notes.md"
    assert paths.show(Path("/elsewhere/x")) == "/elsewhere/x"


def test_templates_name_their_output_files() -> None:
    assert "{{notes_path}}" in default_template("implement-task.prompt.md")
    review = default_template("code-review.prompt.md")
    assert "{{review_path}}" in review
    for heading in ("## BLOCKING", "## NON-BLOCKING", "## NITPICK"):
        assert heading in review
    assert "{{notes_path}}" in default_template("fix-issues.prompt.md")
