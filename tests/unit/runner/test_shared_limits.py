"""Rate limits shared by a batch's tasks (issue 37)."""

from __future__ import annotations

from pathlib import Path

from jlgcli.runner.shared_limits import ENV, limited_until, note


def test_the_later_reset_is_kept_per_backend(tmp_path: Path) -> None:
    env = {ENV: str(tmp_path / "limits")}
    assert limited_until("claude", env) == 0.0
    note("claude", 100.0, env)
    note("claude", 50.0, env)  # an earlier reset never shortens the wait
    note("my backend/x", 7.0, env)
    assert limited_until("claude", env) == 100.0 and limited_until("codex", env) == 0.0
    assert limited_until("my backend/x", env) == 7.0
    assert sorted(p.name for p in (tmp_path / "limits").iterdir()) == [
        "claude.until",
        "my_backend_x.until",
    ]


def test_outside_a_batch_or_with_a_bad_file_nothing_is_shared(tmp_path: Path) -> None:
    note("claude", 100.0, {})
    assert limited_until("claude", {}) == 0.0
    env = {ENV: str(tmp_path)}
    (tmp_path / "claude.until").write_text("nan", "utf-8")
    assert limited_until("claude", env) == 0.0
    (tmp_path / "codex.until").write_text("soon", "utf-8")
    assert limited_until("codex", env) == 0.0
    (tmp_path / "file").write_text("x", "utf-8")
    note("claude", 5.0, {ENV: str(tmp_path / "file")})  # cannot be written: no error
    assert limited_until("claude", {ENV: str(tmp_path / "file")}) == 0.0
