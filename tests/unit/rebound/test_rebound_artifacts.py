"""Artifact-first writes (REQ_AUTO_030 invariant, REQ_AUTO_040): inside the root, atomic, capped."""

from __future__ import annotations

import base64
import hashlib
import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jlgcli.rebound import artifacts as artifacts_mod
from jlgcli.rebound.artifacts import write_artifacts
from jlgcli.rebound.schema import Artifact

needs_symlinks = pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    return project


def _art(path: str, content: str = "x", encoding: str = "utf-8") -> Artifact:
    return Artifact.model_validate({"path": path, "content": content, "encoding": encoding})


def test_text_is_written_byte_for_byte(root: Path) -> None:
    content = "line1\r\nline2\nété ✓\n"
    [record] = write_artifacts(root, [_art("docs/notes/a.md", content)])
    data = (root / "docs" / "notes" / "a.md").read_bytes()
    assert data == content.encode("utf-8")
    assert record.status == "written" and record.relpath == "docs/notes/a.md"
    assert record.size == len(data)
    assert record.sha256 == hashlib.sha256(data).hexdigest()
    assert not record.replaced


def test_base64_is_decoded(root: Path) -> None:
    blob = bytes(range(256))
    [record] = write_artifacts(root, [_art("bin/blob", base64.b64encode(blob).decode(), "base64")])
    assert (root / "bin" / "blob").read_bytes() == blob
    assert record.encoding == "base64"


def test_replacing_keeps_permissions_and_leaves_no_temp_files(root: Path) -> None:
    script = root / "run.sh"
    script.write_text("old", encoding="utf-8")
    script.chmod(0o755)
    [record] = write_artifacts(root, [_art("run.sh", "new")])
    assert record.replaced
    assert script.read_text(encoding="utf-8") == "new"
    if os.name != "nt":
        assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert sorted(p.name for p in root.iterdir()) == ["run.sh"]


@pytest.mark.parametrize(
    ("path", "content", "encoding", "reason"),
    [
        ("big.txt", "x" * 101, "utf-8", "over the 100-byte limit"),
        ("bad.bin", "not base64!", "base64", "invalid base64"),
        ("surrogate.txt", "\ud800", "utf-8", "lone surrogate"),
    ],
)
def test_content_problems_fail_without_writing(
    root: Path, path: str, content: str, encoding: str, reason: str
) -> None:
    [record] = write_artifacts(root, [_art(path, content, encoding)], max_bytes=100)
    assert record.status == "failed" and reason in record.reason
    assert not (root / path).exists()


@pytest.mark.parametrize(
    "path",
    [
        "/etc/passwd",
        "../outside.txt",
        "a/../../outside.txt",
        "C:\\outside.txt",
        "\\\\server\\share\\x",
        "~/x",
        "NUL",
        "com1.txt",
        "a\x00b",
        ".git/hooks/pre-commit",
        "GIT~1/config",
        "name.",
    ],
)
def test_unsafe_paths_are_refused(root: Path, path: str) -> None:
    [record] = write_artifacts(root, [_art(path)])
    assert record.status == "refused" and record.reason.startswith("unsafe path")
    assert list(root.iterdir()) == []


def test_existing_directory_and_file_parent_fail(root: Path) -> None:
    (root / "adir").mkdir()
    (root / "afile").write_text("x", encoding="utf-8")
    records = write_artifacts(root, [_art("adir"), _art("afile/child.txt")])
    assert [r.status for r in records] == ["failed", "failed"]
    assert "directory" in records[0].reason
    assert "write failed" in records[1].reason


def test_protected_directories_are_refused(root: Path) -> None:
    ledger = root / "ledger"
    ledger.mkdir()
    [record] = write_artifacts(root, [_art("ledger/s1/index.json")], protected=[ledger])
    assert record.status == "refused" and "protected" in record.reason
    assert list(ledger.iterdir()) == []


@needs_symlinks
def test_symlinked_directory_out_of_the_root_is_refused(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "link").symlink_to(outside, target_is_directory=True)
    (root / "gitlink").symlink_to(root / ".git", target_is_directory=True)
    (root / ".git").mkdir()
    records = write_artifacts(root, [_art("link/x.txt"), _art("gitlink/config")])
    assert [r.status for r in records] == ["refused", "refused"]
    assert "outside the project root" in records[0].reason
    assert "protected" in records[1].reason
    assert list(outside.iterdir()) == [] and list((root / ".git").iterdir()) == []


@needs_symlinks
def test_existing_symlink_is_never_written_through(root: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("safe", encoding="utf-8")
    (root / "innocent.txt").symlink_to(victim)
    [record] = write_artifacts(root, [_art("innocent.txt", "pwned")])
    assert record.status == "refused" and "symlink" in record.reason
    assert victim.read_text(encoding="utf-8") == "safe"


@needs_symlinks
def test_looping_symlink_is_refused(root: Path) -> None:
    (root / "loop").symlink_to(root / "loop", target_is_directory=True)
    [record] = write_artifacts(root, [_art("loop/x.txt")])
    assert record.status == "refused"


def test_too_many_artifacts(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(artifacts_mod, "MAX_ARTIFACTS_PER_REPLY", 2)
    records = write_artifacts(root, [_art(f"f{i}.txt") for i in range(3)])
    assert [r.status for r in records] == ["written", "written", "failed"]
    assert "more than 2" in records[2].reason


def test_each_artifact_is_judged_alone(root: Path) -> None:
    records = write_artifacts(root, [_art("ok1.txt"), _art("/abs"), _art("ok2.txt")])
    assert [r.status for r in records] == ["written", "refused", "written"]


_SEGMENT = st.sampled_from(["a", "b.txt", "..", ".", "", "link", "C:", "~", "/", "\\", "NUL", "ok"])


@needs_symlinks
@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    (st.lists(_SEGMENT, min_size=1, max_size=6).map("/".join) | st.text(max_size=20)).filter(bool)
)
def test_generated_paths_never_write_outside(root: Path, tmp_path: Path, path: str) -> None:
    """REQ_AUTO_040: whatever the path, nothing lands outside the project root."""
    outside = tmp_path / "outside"
    if not outside.exists():
        outside.mkdir()
        (root / "link").symlink_to(outside, target_is_directory=True)
    [record] = write_artifacts(root, [_art(path)])
    assert list(outside.iterdir()) == []
    if record.status == "written":
        written = (root / record.relpath).resolve()
        assert root.resolve() in written.parents
