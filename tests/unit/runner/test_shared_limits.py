"""Rate limits shared by a batch's tasks (issues 37, 44: the folder is in the task's options)."""

from __future__ import annotations

from pathlib import Path

from jlgcli.runner.shared_limits import limited_until, note


def test_the_later_reset_is_kept_per_backend(tmp_path: Path) -> None:
    folder = tmp_path / "limits"
    assert limited_until("claude", folder) == 0.0
    note("claude", 100.0, folder)
    note("claude", 50.0, folder)  # an earlier reset never shortens the wait
    note("my backend/x", 7.0, folder)
    assert limited_until("claude", folder) == 100.0 and limited_until("codex", folder) == 0.0
    assert limited_until("my backend/x", folder) == 7.0
    assert sorted(p.name for p in folder.iterdir()) == ["claude.until", "my_backend_x.until"]


def test_outside_a_batch_or_with_a_bad_file_nothing_is_shared(tmp_path: Path) -> None:
    note("claude", 100.0, None)
    assert limited_until("claude", None) == 0.0
    (tmp_path / "claude.until").write_text("nan", "utf-8")
    assert limited_until("claude", tmp_path) == 0.0
    (tmp_path / "codex.until").write_text("soon", "utf-8")
    assert limited_until("codex", tmp_path) == 0.0
    (tmp_path / "file").write_text("x", "utf-8")
    note("claude", 5.0, tmp_path / "file")  # cannot be written: no error
    assert limited_until("claude", tmp_path / "file") == 0.0
