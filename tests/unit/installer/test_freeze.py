"""installer/freeze.py and installer/jlgcli.spec: what the build collects (issue 9).

The real build runs in tests/frozen (opt-in, ≈ 30 s); these check the cheap parts.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[3]
SPEC = (ROOT / "installer" / "jlgcli.spec").read_text(encoding="utf-8")


def test_exe_paths(freeze: ModuleType, tmp_path: Path) -> None:
    assert freeze.exe_name("jlgcli", is_windows=True) == "jlgcli.exe"
    assert freeze.exe_name("jlgcli", is_windows=False) == "jlgcli"
    assert freeze.onedir_exe(tmp_path, is_windows=True) == tmp_path / "jlgcli" / "jlgcli.exe"
    assert freeze.onefile_exe(tmp_path, is_windows=False) == tmp_path / "jlgcli-onefile"


def test_pyinstaller_argv(freeze: ModuleType, tmp_path: Path) -> None:
    argv = freeze.pyinstaller_argv(tmp_path / "d", tmp_path / "w", onefile=False, python="py")
    assert argv[:3] == ["py", "-m", "PyInstaller"] and argv[-1].endswith("jlgcli.spec")
    assert "--clean" in argv and "--noconfirm" in argv
    assert argv[argv.index("--distpath") + 1] == str(tmp_path / "d")
    onefile = freeze.pyinstaller_argv(tmp_path / "d", tmp_path / "w", onefile=True, python="py")
    assert onefile[-2:] == ["--", "--onefile"]  # options after -- go to the spec


def _fake_pyinstaller(freeze: ModuleType, monkeypatch: pytest.MonkeyPatch, *, makes: list[str],
                      rc: int = 0) -> list[list[str]]:  # fmt: skip
    calls: list[list[str]] = []

    def run(argv: list[str], **_: object) -> subprocess.CompletedProcess[bytes]:
        calls.append(argv)
        if rc:
            raise subprocess.CalledProcessError(rc, argv)
        dist = Path(argv[argv.index("--distpath") + 1])
        for name in makes:
            (dist / name).parent.mkdir(parents=True, exist_ok=True)
            (dist / name).write_bytes(b"exe")
        return subprocess.CompletedProcess(argv, 0)

    monkeypatch.setattr(freeze.subprocess, "run", run)
    return calls


def test_main_builds_into_dist(freeze: ModuleType, monkeypatch, tmp_path: Path, capsys) -> None:
    exe = freeze.onedir_exe(Path("."))
    calls = _fake_pyinstaller(
        freeze, monkeypatch, makes=[str(exe), str(freeze.onefile_exe(Path(".")))]
    )
    argv = ["--onefile", "--dist", str(tmp_path / "dist"), "--work", str(tmp_path / "w")]
    assert freeze.main(argv) == 0
    assert calls[0][0] == sys.executable
    assert "built" in capsys.readouterr().out


def test_main_reports_a_failed_build(
    freeze: ModuleType, monkeypatch, tmp_path: Path, capsys
) -> None:
    _fake_pyinstaller(freeze, monkeypatch, makes=[], rc=2)
    assert freeze.main(["--dist", str(tmp_path)]) == 1
    assert "PyInstaller failed (exit 2)" in capsys.readouterr().err


def test_a_missing_output_is_an_error(freeze: ModuleType, monkeypatch, tmp_path: Path) -> None:
    _fake_pyinstaller(freeze, monkeypatch, makes=[])
    with pytest.raises(SystemExit, match="missing"):
        freeze.freeze(tmp_path, tmp_path / "w")


def test_spec_collects_what_is_imported_by_name() -> None:
    # Commands and backends are imported from strings: PyInstaller cannot see them.
    assert 'collect_submodules("jlgcli")' in SPEC
    assert 'collect_data_files("jlgcli")' in SPEC  # e.g. the dev-loop prompt templates
    assert 'copy_metadata("jlgcli")' in SPEC  # importlib.metadata.version("jlgcli") works frozen


def test_spec_windows_parts() -> None:
    windows = SPEC.split('if sys.platform == "win32":', 1)[1]
    assert 'collect_all("winpty")' in windows.split("else:", 1)[0]  # OpenConsole.exe & co.
    assert '"console": True' in SPEC and '"upx": False' in SPEC


def test_spec_runtime_hook_and_entry_exist() -> None:
    assert "pyi_rth_jlgcli.py" in SPEC and (ROOT / "installer" / "pyi_rth_jlgcli.py").is_file()
    assert '"jlgcli" / "__main__.py"' in SPEC and (ROOT / "jlgcli" / "__main__.py").is_file()
    hook = (ROOT / "installer" / "pyi_rth_jlgcli.py").read_text(encoding="utf-8")
    assert "sanitize_process()" in hook


def test_spec_parses_as_python() -> None:
    compile(SPEC, "jlgcli.spec", "exec")


def test_freeze_requirements_pin_pyinstaller() -> None:
    text = (ROOT / "installer" / "requirements-freeze.txt").read_text(encoding="utf-8")
    assert "pyinstaller>=6.10" in text  # PYINSTALLER_RESET_ENVIRONMENT and spec options
