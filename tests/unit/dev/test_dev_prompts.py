"""Prompts built by concatenating context files (seed 003 FR-6.2, AC-2 "correct context files")."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from jlgcli.dev import prompts
from jlgcli.dev.config import DevConfig
from jlgcli.dev.project import ProjectPaths, prepare_project
from jlgcli.dev.prompts import PromptContext, build_prompt, fill_template, resolve_reference
from jlgcli.dev.report import Reporter
from jlgcli.errors import DevExitCode, JlgError


@pytest.fixture
def paths(tmp_path: Path) -> ProjectPaths:
    root = tmp_path / "p"
    (root / "docs").mkdir(parents=True)
    for name in ("requirements.md", "architecture.md", "implementation-plan.md"):
        (root / "docs" / name).write_text(f"# {name}\n", encoding="utf-8")
    (root / "README.md").write_text("readme\n", encoding="utf-8")
    (tmp_path / "outside.md").write_text("secret\n", encoding="utf-8")
    found = ProjectPaths.from_config(root, DevConfig())
    prepare_project(found, Reporter("quiet", io.StringIO(), io.StringIO()))
    found.current_task.write_text("### T-1: x\n", encoding="utf-8")
    return found


def test_references_resolve_inside_the_root_only(paths: ProjectPaths) -> None:
    assert resolve_reference(paths, "README.md") == paths.root / "README.md"
    assert resolve_reference(paths, "architecture.md") == paths.docs / "architecture.md"
    assert resolve_reference(paths, "../outside.md") is None
    assert resolve_reference(paths, "docs") is None  # a directory
    assert resolve_reference(paths, "nope.md") is None


def test_implement_prompt(paths: ProjectPaths) -> None:
    out = io.StringIO()
    ctx = PromptContext("T-1", ("docs/architecture.md", "missing.md"))
    text = build_prompt("implement", paths, ctx, Reporter("verbose", out, io.StringIO()))
    assert text.startswith("# Implement task T-1\n")
    assert "## Current task: `context/current-task.md`\n\n### T-1: x" in text
    assert "## Context reference: `docs/architecture.md`\n\n# architecture.md" in text
    assert "Code diff" not in text
    log = out.getvalue()
    assert "warning: context reference 'missing.md' of T-1 not found; not sent" in log
    assert "[read] prompts/implement-task.prompt.md" in log


def test_review_and_fix_prompts(paths: ProjectPaths) -> None:
    paths.notes.write_text("my notes\n", encoding="utf-8")
    paths.review.write_text("## BLOCKING\n- bug\n", encoding="utf-8")
    quiet = Reporter("quiet", io.StringIO(), io.StringIO())
    ctx = PromptContext("T-1", (), 2, "diff --git a/x b/x\n+```code```\n", "test FAILED")
    review = build_prompt("review", paths, ctx, quiet)
    assert "# Review task T-1 (iteration 2)" in review
    assert "## Implementation notes: `context/implementation-notes.md`\n\nmy notes" in review
    assert "## Automated validation results\n\ntest FAILED" in review
    assert "````diff\ndiff --git a/x b/x" in review  # a longer fence around a diff with ```
    assert "Review findings" not in review
    fix = build_prompt("fix", paths, ctx, quiet)
    assert "## Review findings: `context/review.md`\n\n## BLOCKING\n- bug" in fix
    empty = build_prompt("review", paths, PromptContext("T-1", ()), quiet)
    assert "## Code diff\n\n(no changes)" in empty


def test_big_inputs_are_cut(paths: ProjectPaths, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prompts, "FILE_LIMIT", 5)
    monkeypatch.setattr(prompts, "DIFF_LIMIT", 4)
    paths.notes.write_text("0123456789", encoding="utf-8")
    quiet = Reporter("quiet", io.StringIO(), io.StringIO())
    text = build_prompt("review", paths, PromptContext("T-1", (), diff="abcdefgh"), quiet)
    assert "01234\n… (5 more bytes not shown)" in text
    assert "abcd\n```\n… (4 more characters of diff not shown)" in text


def test_placeholders(paths: ProjectPaths) -> None:
    text = fill_template(
        "{{task_id}} {{notes_path}} {{context_dir}} {{unknown}}", paths, PromptContext("T-9", ())
    )
    assert text == "T-9 context/implementation-notes.md context/ {{unknown}}"


def test_unreadable_template(paths: ProjectPaths) -> None:
    (paths.prompts / "fix-issues.prompt.md").unlink()
    (paths.prompts / "fix-issues.prompt.md").mkdir()
    with pytest.raises(JlgError) as info:
        build_prompt("fix", paths, PromptContext("T-1", ()), Reporter("quiet"))
    assert info.value.code == DevExitCode.CONFIGURATION
    assert "cannot read prompt template" in info.value.message
