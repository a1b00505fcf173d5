"""The run directory: layout, meta without the environment, redaction, 73 (F-006, RG-015/016)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.platform_names import chmod_stops_us

from jlgcli.artifacts import rundir
from jlgcli.artifacts.ids import is_safe_run_id
from jlgcli.artifacts.redact import Redactor
from jlgcli.artifacts.rundir import RunDirectory, default_root
from jlgcli.errors import ExitCode, JlgError
from jlgcli.process.model import OutputEvent

GHP = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def _json(path: Path) -> dict[str, object]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_layout(tmp_path: Path) -> None:
    root = tmp_path / ".jlgcli" / "runs"
    with RunDirectory.create(root, "20261122T023015Z-3f9a1c", start=10.0) as run:
        run.write_meta({"backend": "claude", "options": {"maxIterations": 3}})
        run.transcript(OutputEvent("stdout", "hi\n", 10.5))
        run.write_prompt(1, "do it")
        run.write_final_message(1, "DONE")
        run.write_prompt(2, "again")
        run.write_result({"status": "done", "exitCode": 0, "iterations": 2})
    base = root / "20261122T023015Z-3f9a1c"
    assert run.path == base and run.run_id == base.name and run.root == root
    assert sorted(p.relative_to(base).as_posix() for p in base.rglob("*")) == [
        "iterations",
        "iterations/001",
        "iterations/001/final.md",
        "iterations/001/prompt.md",
        "iterations/002",
        "iterations/002/prompt.md",
        "meta.json",
        "result.json",
        "transcript.ndjson",
    ]
    assert (base / "iterations" / "001" / "prompt.md").read_text(encoding="utf-8") == "do it"
    assert json.loads((base / "transcript.ndjson").read_text(encoding="utf-8"))["t"] == 0.5
    assert _json(run.result_path) == {"status": "done", "exitCode": 0, "iterations": 2}
    meta = _json(run.meta_path)
    assert meta["backend"] == "claude" and meta["runId"] == base.name
    assert {"createdAt", "jlgcliVersion", "python", "platform"} <= set(meta)
    # a new artifacts root keeps itself out of git (transcripts may hold private code)
    assert (root / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"


def test_existing_root_gets_no_gitignore(tmp_path: Path) -> None:
    RunDirectory.create(tmp_path, "a-run").close()
    assert not (tmp_path / ".gitignore").exists()


def test_default_id_and_unsafe_ids_are_replaced(tmp_path: Path) -> None:
    # F-006 "nom de run invalide → id safe", RG-015
    first = RunDirectory.create(tmp_path)
    second = RunDirectory.create(tmp_path, "bad:name")
    for run in (first, second):
        run.close()
        assert is_safe_run_id(run.run_id) and run.path.is_dir()
    assert second.run_id != "bad:name"


def test_meta_never_contains_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JLG_TEST_MARKER", "distinctive-marker-value")
    monkeypatch.setenv("DEPLOY_TOKEN", "deploy-token-value-123")
    with RunDirectory.create(tmp_path, "r1") as run:
        run.write_meta({
            "backend": "codex",
            "env": dict(os.environ),
            "options": {"environment": dict(os.environ), "Environ": {"A": "b"}, "n": 1},
            "invocation": [{"argv": ["codex"], "env": {"X": "y"}}],
            "note": "uses deploy-token-value-123",
        })  # fmt: skip
    text = run.meta_path.read_text(encoding="utf-8")
    assert "distinctive-marker-value" not in text
    assert "deploy-token-value-123" not in text
    meta = _json(run.meta_path)
    assert meta["options"] == {"n": 1}
    assert meta["invocation"] == [{"argv": ["codex"]}]
    assert meta["note"] == "uses [REDACTED]"
    assert "env" not in meta


def test_everything_written_is_redacted_and_counted(tmp_path: Path) -> None:
    with RunDirectory.create(tmp_path, "r1", redactor=Redactor(environ={})) as run:
        run.write_prompt(1, f"use {GHP}")
        run.write_final_message(1, "export API_KEY=abc123\n")
        run.transcript(OutputEvent("stdout", f"token {GHP}\n", 0.0))
        run.write_result({"status": "done", "githubToken": "abc", "summary": f"saw {GHP}"})
        assert run.redactions == 5
    for path in run.path.rglob("*"):
        if path.is_file():
            assert GHP not in path.read_text(encoding="utf-8"), path
            assert "abc123" not in path.read_text(encoding="utf-8"), path


def test_existing_run_directory_is_exit_73(tmp_path: Path) -> None:
    RunDirectory.create(tmp_path, "same").close()
    with pytest.raises(JlgError) as caught:
        RunDirectory.create(tmp_path, "same")
    assert caught.value.code == ExitCode.CANT_CREATE
    assert "already exists" in caught.value.message


def test_root_under_a_regular_file_is_exit_73_with_hint(tmp_path: Path) -> None:
    # RG-016, F-006 "droits insuffisants → proposition": fails for root as well
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(JlgError) as caught:
        RunDirectory.create(blocker / "runs", "r1")
    assert caught.value.code == 73
    assert str(blocker / "runs" / "r1") in caught.value.message
    assert caught.value.hint == "pass --artifacts-dir DIR or fix permissions"


@pytest.mark.skipif(
    not chmod_stops_us(),
    reason="Windows, or root: read-only directories do not stop root (the regular-file test "
    "covers that case)",
)
def test_read_only_root_is_exit_73(tmp_path: Path) -> None:  # pragma: no cover - not as root
    root = tmp_path / "ro"
    root.mkdir()
    root.chmod(0o500)
    try:
        with pytest.raises(JlgError) as caught:
            RunDirectory.create(root, "r1")
        assert caught.value.code == 73
    finally:
        root.chmod(0o700)


def test_write_failures_mid_run_are_exit_73(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = RunDirectory.create(tmp_path, "r1")
    (run.path / "iterations").write_text("a file where a directory should be", encoding="utf-8")
    with pytest.raises(JlgError) as caught:
        run.write_prompt(1, "x")
    assert caught.value.code == 73 and "iterations" in caught.value.message

    def no_space(path: object, obj: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(rundir, "atomic_write_json", no_space)
    with pytest.raises(JlgError) as caught:
        run.write_result({"status": "done"})
    assert caught.value.code == 73 and "No space left" in caught.value.message
    assert str(run.result_path) in caught.value.message

    def no_text(path: object, text: object) -> None:
        raise OSError(13, "Permission denied")

    monkeypatch.setattr(rundir, "atomic_write_text", no_text)
    (run.path / "iterations").unlink()
    with pytest.raises(JlgError) as caught:
        run.write_final_message(1, "x")
    assert caught.value.code == 73 and "final.md" in caught.value.message
    run.close()


def test_exit_with_an_error_keeps_the_original_error(tmp_path: Path) -> None:
    run = RunDirectory.create(tmp_path, "r1")

    def broken_close() -> None:
        raise JlgError(73, "close failed")

    run.transcript.close = broken_close  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt), run:
        raise KeyboardInterrupt


def test_default_root_is_under_the_working_directory(tmp_path: Path) -> None:
    assert default_root(tmp_path) == tmp_path / ".jlgcli" / "runs"
    assert default_root() == Path.cwd() / ".jlgcli" / "runs"


def test_an_existing_root_inside_jlgcli_own_folder_is_ignored_all_the_same(tmp_path: Path) -> None:
    """Issue 31: ``.jlgcli/runs`` there already without its .gitignore let runs into git."""
    root = tmp_path / ".jlgcli" / "runs"
    root.mkdir(parents=True)
    RunDirectory.create(root, "a-run").close()
    assert (root / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"
    (root / ".gitignore").write_text("# the user's own\n", encoding="utf-8")
    RunDirectory.create(root, "b-run").close()
    assert (root / ".gitignore").read_text(encoding="utf-8") == "# the user's own\n"
