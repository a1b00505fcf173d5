"""target_script resolution (REQ_AUTO_040): only real .py files under workbench/scripts/."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jlgcli.rebound.paths import path_within
from jlgcli.rebound.sandbox import resolve_target_script

needs_symlinks = pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    scripts = root / "workbench" / "scripts"
    scripts.mkdir(parents=True)
    (scripts / "ok.py").write_text("print('ok')\n", encoding="utf-8")
    (scripts / "sub").mkdir()
    (scripts / "sub" / "deep.py").write_text("print('deep')\n", encoding="utf-8")
    (scripts / "notes.txt").write_text("x", encoding="utf-8")
    (scripts / "dir.py").mkdir()
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('src')\n", encoding="utf-8")
    (root / "workbench" / "other.py").write_text("print('other')\n", encoding="utf-8")
    return root


@pytest.mark.parametrize(
    "target",
    ["workbench/scripts/ok.py", "workbench/scripts/sub/deep.py", "./workbench//scripts/ok.py"],
)
def test_scripts_under_workbench_scripts_are_accepted(project: Path, target: str) -> None:
    decision = resolve_target_script(project, target)
    assert decision.ok, decision.reason
    assert decision.path is not None and decision.path.is_file()
    assert path_within(
        decision.path, project.resolve() / "workbench" / "scripts", strict=True, is_windows=False
    )


def test_backslashes_are_separators(project: Path) -> None:
    decision = resolve_target_script(project, "workbench\\scripts\\ok.py")
    assert decision.ok
    assert decision.relpath == "workbench/scripts/ok.py"


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("src/app.py", "outside workbench/scripts/"),
        ("workbench/other.py", "outside workbench/scripts/"),
        ("workbench/scripts", "outside workbench/scripts/"),
        ("/tmp/x.py", "absolute"),
        ("../x.py", "parent directory"),
        ("workbench/scripts/../../src/app.py", "parent directory"),
        ("C:\\tmp\\x.py", "drive letter"),
        ("\\\\server\\share\\x.py", "UNC"),
        ("workbench/scripts/notes.txt", "not a .py file"),
        ("workbench/scripts/.py", "not a .py file"),
        ("workbench/scripts/ok.PY", "not a .py file"),
        ("workbench/scripts/dir.py", "is a directory"),
        ("workbench/scripts/ok.py\x00.txt", "NUL"),
        ("workbench/scripts/CON.py", "reserved"),
        ("workbench/scripts/nul.py", "reserved"),
        ("workbench/scripts/COM1.py", "reserved"),
        ("WORKBENCH/Scripts/ok.py", "outside workbench/scripts/"),
        ("Workbench/scripts/ok.py", "outside workbench/scripts/"),
        ("workbench/scripts/ok.py:evil", "not allowed"),
    ],
)
def test_escapes_are_refused(project: Path, target: str, why: str) -> None:
    for windows in (False, True):  # the case trick is refused even where a disk folds case
        decision = resolve_target_script(project, target, is_windows=windows)
        assert decision.kind == "refused"
        assert why.lower() in decision.reason.lower()
        assert decision.path is None


def test_missing_script_is_not_found_not_a_violation(project: Path) -> None:
    decision = resolve_target_script(project, "workbench/scripts/absent.py")
    assert decision.kind == "not-found"
    assert "does not exist" in decision.reason


def test_missing_project_root(tmp_path: Path) -> None:
    decision = resolve_target_script(tmp_path / "nope", "workbench/scripts/a.py")
    assert decision.kind == "not-found"
    assert "project root" in decision.reason


@needs_symlinks
def test_symlink_pointing_out_is_refused(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "evil.py"
    outside.write_text("print('evil')\n", encoding="utf-8")
    (project / "workbench" / "scripts" / "link.py").symlink_to(outside)
    (project / "workbench" / "scripts" / "to_src.py").symlink_to(project / "src" / "app.py")
    for name in ("link.py", "to_src.py"):
        decision = resolve_target_script(project, f"workbench/scripts/{name}")
        assert decision.kind == "refused"
        assert "outside" in decision.reason


@needs_symlinks
def test_symlinked_directories_are_refused(project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.py").write_text("print(1)\n", encoding="utf-8")
    (project / "workbench" / "scripts" / "ext").symlink_to(elsewhere, target_is_directory=True)
    assert resolve_target_script(project, "workbench/scripts/ext/x.py").kind == "refused"


@needs_symlinks
def test_symlinked_workbench_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real_workbench"
    (real / "scripts").mkdir(parents=True)
    (real / "scripts" / "a.py").write_text("print(1)\n", encoding="utf-8")
    root = tmp_path / "p"
    root.mkdir()
    (root / "workbench").symlink_to(real, target_is_directory=True)
    decision = resolve_target_script(root, "workbench/scripts/a.py")
    assert decision.kind == "refused"


@needs_symlinks
def test_symlink_inside_the_sandbox_must_still_reach_a_py(project: Path) -> None:
    scripts = project / "workbench" / "scripts"
    (scripts / "alias.py").symlink_to(scripts / "ok.py")
    (scripts / "txt.py").symlink_to(scripts / "notes.txt")
    (scripts / "loop.py").symlink_to(scripts / "loop.py")
    (scripts / "dangling.py").symlink_to(scripts / "gone.py")
    assert resolve_target_script(project, "workbench/scripts/alias.py").ok
    assert "not a .py" in resolve_target_script(project, "workbench/scripts/txt.py").reason
    assert resolve_target_script(project, "workbench/scripts/loop.py").kind == "refused"
    assert resolve_target_script(project, "workbench/scripts/dangling.py").kind == "refused"


@needs_symlinks
def test_fifo_is_not_a_regular_file(project: Path) -> None:
    os.mkfifo(project / "workbench" / "scripts" / "pipe.py")
    decision = resolve_target_script(project, "workbench/scripts/pipe.py")
    assert decision.kind == "refused"
    assert "regular file" in decision.reason


_SEGMENTS = st.sampled_from(
    [
        "workbench",
        "scripts",
        "ok.py",
        "..",
        ".",
        "src",
        "app.py",
        "/",
        "\\",
        "C:",
        "WORKBENCH",
        "ext",
    ]
)


@needs_symlinks
@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_SEGMENTS, min_size=1, max_size=7).map("/".join) | st.text(max_size=30))
def test_generated_targets_never_resolve_outside(project: Path, target: str) -> None:
    """Whatever the model writes, an accepted script is a .py file inside the sandbox."""
    link = project / "workbench" / "scripts" / "ext"
    if not link.is_symlink():  # a way out for the generated paths to try
        outside = project.parent / "outside"
        outside.mkdir(exist_ok=True)
        (outside / "x.py").write_text("print(1)\n", encoding="utf-8")
        link.symlink_to(outside, target_is_directory=True)
    decision = resolve_target_script(project, target)
    if decision.ok:
        assert decision.path is not None
        sandbox = project.resolve() / "workbench" / "scripts"
        assert path_within(decision.path, sandbox, strict=True, is_windows=False)
        assert decision.path.suffix == ".py" and decision.path.is_file()
    else:
        assert decision.path is None and decision.reason
