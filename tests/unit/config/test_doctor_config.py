"""doctor: the configured backend and PATH duplicates (issue 19 items 5, 6)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jlgcli.backends.base import Availability
from jlgcli.doctor import configured_backend_check, exit_code, path_checks
from jlgcli.errors import ExitCode

posix_only = pytest.mark.skipif(os.name == "nt", reason="symlinked folders and chmod +x")


@posix_only
def test_one_file_through_a_symlinked_folder_is_not_a_duplicate(tmp_path: Path) -> None:
    real = tmp_path / "usr" / "bin"
    real.mkdir(parents=True)
    tool = real / "tool"
    tool.write_text("#!/bin/sh\n", encoding="utf-8")
    tool.chmod(0o755)
    (tmp_path / "bin").symlink_to(real)  # like /bin -> /usr/bin
    path = f"{tmp_path / 'bin'}:{real}"
    assert path_checks(["tool"], path, is_windows=False) == []


@posix_only
def test_a_real_second_copy_is_reported_once_per_program(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        tool = tmp_path / folder / "tool"
        tool.write_text("#!/bin/sh\n", encoding="utf-8")
        tool.chmod(0o755)
    path = f"{tmp_path / 'a'}:{tmp_path / 'b'}"
    # two command backends running the same program: one line, not two
    checks = path_checks(["tool", "tool"], path, is_windows=False)
    assert [(c.name, c.status) for c in checks] == [("tool", "warn")]
    assert "2 times" in checks[0].summary


def test_the_configured_backend_is_checked() -> None:
    ready = Availability("claude", "available")
    missing = Availability("codex", "missing", detail="`codex` is not on PATH", hint="install it")
    logged_out = Availability("gemini", "unauthenticated", detail="not logged in", hint="log in")
    untrusted = Availability("mine", "unknown", detail="not trusted: its command comes from x")
    found = [ready, missing, logged_out, untrusted]
    assert configured_backend_check("auto", found) is None
    ok = configured_backend_check("claude", found)
    assert ok is not None and ok.status == "ok"
    cases = {"codex": ExitCode.BACKEND_UNAVAILABLE, "gemini": ExitCode.UNAUTHENTICATED}
    cases["mine"] = ExitCode.CONFIG
    for name, code in cases.items():
        check = configured_backend_check(name, found)
        assert check is not None and (check.status, check.code) == ("fail", code)
        assert "config set backend" in (check.hint or "")
        assert exit_code([check]) == code
