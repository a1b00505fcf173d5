"""``jlgcli.doctor`` checks (seed 001 §12.5): each check alone, Windows branches on any OS."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from support.platform_names import chmod_stops_us

from jlgcli.backends.base import Availability
from jlgcli.config.trust import without_mark
from jlgcli.doctor import (
    Check,
    backend_checks,
    config_checks,
    exit_code,
    path_checks,
    redaction_check,
    run_checks,
    runs_dir_check,
    runtime_checks,
    terminal_check,
)
from jlgcli.errors import ExitCode


def test_runtime_says_how_jlgcli_runs() -> None:
    package = runtime_checks(frozen=False)
    assert [c.area for c in package] == ["jlgcli", "python", "os"]
    assert "Python package" in package[0].summary
    assert "standalone executable" in runtime_checks(frozen=True)[0].summary


def test_config_files(tmp_path: Path) -> None:
    env = {"JLGCLI_CONFIG_DIR": str(tmp_path / "cfg")}
    checks, custom = config_checks(tmp_path, env)
    assert [c.status for c in checks] == ["ok", "ok"] and custom == {}
    (tmp_path / ".jlgcli.json").write_text('{"backends": {"mine": {"argv": ["cat"]}}}', "utf-8")
    checks, custom = config_checks(tmp_path, env)
    assert "valid" in checks[1].summary and list(custom) == ["mine"]
    assert without_mark(custom["mine"]) == {"argv": ["cat"]}  # marked: the file is not trusted
    (tmp_path / ".jlgcli.json").write_text("{not json", "utf-8")
    checks, custom = config_checks(tmp_path, env)
    assert checks[1].status == "fail" and checks[1].code == ExitCode.CONFIG and custom == {}


def test_backend_checks_with_a_broken_custom_backend() -> None:
    def probe(backends: list[object]) -> list[Availability]:
        return [Availability(b.id, "missing", hint="install") for b in backends]  # type: ignore[attr-defined]

    checks, availabilities = backend_checks({"bad": {"argv": []}}, probe=probe)
    assert [a.id for a in availabilities] == ["claude", "codex", "copilot", "gemini"]
    fails = [c for c in checks if c.status == "fail"]
    assert {c.code for c in fails} == {ExitCode.CONFIG, ExitCode.BACKEND_UNAVAILABLE}


def test_backend_checks_through_the_fakes() -> None:
    checks, _ = backend_checks({})
    by_name = {c.name: c for c in checks}
    assert by_name["claude"].status == "ok" and "available 2.1.197" in by_name["claude"].summary
    assert by_name["gemini"].status == "warn" and by_name["gemini"].hint
    assert "any" not in by_name


def fake_which(table: dict[tuple[str, str], str]):  # type: ignore[no-untyped-def]
    return lambda name, folder: table.get((name, folder))


def test_path_duplicates_and_windows_shims() -> None:
    which = fake_which(
        {
            ("claude", r"C:\npm"): r"C:\npm\claude.cmd",
            ("claude", r"C:\old"): r"C:\old\claude.exe",
            ("codex", r"C:\npm"): r"C:\npm\codex.cmd",
        }
    )
    checks = path_checks(
        ["claude", "codex", "gemini"], r"C:\npm;C:\old;;", is_windows=True, which=which
    )
    summaries = [(c.name, c.status, c.summary) for c in checks]
    assert (
        "claude",
        "warn",
        r"claude is on PATH 2 times: C:\npm\claude.cmd (used), "
        r"C:\old\claude.exe",
    ) in summaries
    assert any(n == "codex" and ".cmd shim" in s for n, _, s in summaries)
    assert not any(n == "gemini" for n, _, _ in summaries)


def test_path_on_posix_and_empty_path() -> None:
    which = fake_which({("claude", "/a"): "/a/claude", ("claude", "/b"): "/a/claude"})
    assert path_checks(["claude"], "/a:/b", is_windows=False, which=which) == []
    empty = path_checks(["claude"], "", is_windows=False)
    assert empty[0].status == "warn" and "PATH is empty" in empty[0].summary


def test_runs_dir(tmp_path: Path) -> None:
    assert runs_dir_check(tmp_path).status == "ok"
    assert not (tmp_path / ".jlgcli").exists()  # the check creates nothing
    assert runs_dir_check(tmp_path / "missing").status == "fail"


@pytest.mark.skipif(not chmod_stops_us(), reason="Windows, or root: permissions")
def test_runs_dir_not_writable(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        check = runs_dir_check(locked)
    finally:
        locked.chmod(0o700)
    assert check.status == "fail" and check.code == ExitCode.CANT_CREATE


class Stream(io.StringIO):
    def __init__(self, tty: bool, encoding: str = "utf-8") -> None:
        super().__init__()
        self._tty, self._encoding = tty, encoding

    def isatty(self) -> bool:
        return self._tty

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding


def test_terminal() -> None:
    ok = terminal_check((Stream(True), Stream(False), None), {"TERM": "xterm", "NO_COLOR": "1"})
    assert ok.status == "ok" and "tty/pipe/pipe" in ok.summary and "NO_COLOR" in ok.summary
    cp = terminal_check((Stream(False), Stream(False, "cp1252"), Stream(False)), {})
    assert cp.status == "warn" and "TERM=(unset)" in cp.summary


def test_exit_code_priority() -> None:
    def fail(code: int | None) -> Check:
        return Check("x", "x", "fail", "", code=code)

    assert exit_code([Check("x", "x", "warn", "")]) == 0
    assert exit_code([fail(ExitCode.CANT_CREATE), fail(ExitCode.BACKEND_UNAVAILABLE)]) == 2
    assert exit_code([fail(ExitCode.BACKEND_UNAVAILABLE), fail(ExitCode.CONFIG)]) == 78
    assert exit_code([fail(None)]) == 1


def test_run_checks_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    checks, availabilities = run_checks(tmp_path)
    areas = {c.area for c in checks}
    assert {"jlgcli", "python", "os", "config", "backend", "runs", "terminal"} <= areas
    assert len(availabilities) == 4 and exit_code(checks) == 0


@pytest.mark.hyperscan
def test_redaction_check_says_whether_the_fast_finder_loads() -> None:
    """Issue 18: without Hyperscan the redactor is right but slow; doctor says so."""
    assert redaction_check().status == "ok"  # the real one: hyperscan is a dependency
    missing = redaction_check(loads=False)
    assert missing.status == "warn"
    assert "exact rules" in missing.summary
    assert missing.hint is not None and "hyperscan" in missing.hint
