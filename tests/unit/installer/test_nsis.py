"""The NSIS setup program: makensis builds it here; per user; PATH kept REG_EXPAND_SZ (issue 9)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[3]
MAKENSIS = shutil.which("makensis")  # looked up before the tests' PATH isolation
NSI = (ROOT / "installer" / "jlgcli.nsi").read_text(encoding="utf-8")
CODE = "\n".join(line.split(";")[0] if line.lstrip().startswith(";") else line
                 for line in NSI.splitlines())  # fmt: skip


def test_per_user_without_admin() -> None:
    assert re.search(r"^RequestExecutionLevel user$", NSI, re.MULTILINE)
    assert 'InstallDir "$LOCALAPPDATA\\Programs\\${APP}"' in NSI
    assert "HKLM" not in CODE and "SetShellVarContext all" not in CODE


def test_path_is_written_expandable_and_never_as_a_plain_string() -> None:
    writes = re.findall(
        r"^\s*(WriteReg\w+)\s+HKCU\s+\"\$\{ENV_KEY\}\"\s+\"Path\"", CODE, re.MULTILINE
    )
    assert writes and set(writes) == {"WriteRegExpandStr"}
    assert "RRF_NOEXPAND" in NSI or "0x10000006" in CODE  # size read without expanding
    assert "WM_SETTINGCHANGE" in CODE  # running programs are told


def test_a_long_path_is_left_alone_rather_than_cut() -> None:
    assert "${NSIS_MAX_STRLEN}" in CODE and "too long" in CODE


def test_uninstaller_entry_and_what_uninstall_deletes() -> None:
    for value in ("DisplayName", "DisplayVersion", "UninstallString", "QuietUninstallString",
                  "InstallLocation", "EstimatedSize"):  # fmt: skip
        assert f'"{value}"' in CODE
    uninstall = CODE.split('Section "Uninstall"')[1]
    assert 'RMDir /r "$INSTDIR"' not in uninstall  # never the whole folder, only the program
    assert 'RMDir /r "$INSTDIR\\_internal"' in uninstall
    assert "un.RemoveFromUserPath" in uninstall


def _install_section() -> str:
    return CODE.split('Section "jlgcli" SecMain')[1].split("SectionEnd")[0]


def test_an_upgrade_refuses_while_jlgcli_runs_before_changing_anything() -> None:
    # issue 47: RMDir /r _internal under a running jlgcli.exe left it half-deleted.
    section = _install_section()
    assert section.index("Call RefuseWhileRunning") < section.index("File /r")
    refusal = CODE.split("Function RefuseWhileRunning")[1].split("FunctionEnd")[0]
    assert 'FileOpen $0 "$INSTDIR\\jlgcli.exe" a' in refusal  # fails while it runs
    assert "Nothing was changed" in refusal and "Quit" in refusal


def test_an_upgrade_stages_the_new_program_and_swaps_it_in_by_renames() -> None:
    section = _install_section()
    assert 'RMDir /r "$INSTDIR\\_internal"' not in section
    assert 'Delete "$INSTDIR\\jlgcli.exe"' not in section
    assert section.index('SetOutPath "$INSTDIR\\.jlgcli-new"') < section.index("File /r")
    aside = section.index('Rename "$INSTDIR\\_internal" "$INSTDIR\\.jlgcli-old\\_internal"')
    moved_in = section.index('Rename "$INSTDIR\\.jlgcli-new\\_internal" "$INSTDIR\\_internal"')
    assert section.index("File /r") < aside < moved_in
    # Every failed rename puts the old program back before giving up.
    assert section.count("Call RestoreOld") == 3 and section.count("Call NotReplaced") == 4


@pytest.mark.skipif(
    shutil.which("makensis") is None, reason="makensis missing (apt-get install nsis)"
)
def test_makensis_builds_the_setup_program(release: ModuleType, tmp_path: Path) -> None:
    onedir = tmp_path / "jlgcli"
    (onedir / "_internal" / "winpty").mkdir(parents=True)
    (onedir / "jlgcli.exe").write_bytes(b"MZ not really an exe")
    (onedir / "_internal" / "python312.dll").write_bytes(b"MZ dll")
    (onedir / "_internal" / "winpty" / "OpenConsole.exe").write_bytes(b"MZ")
    argv = release.makensis_argv(onedir, tmp_path / "jlgcli-setup.exe", "1.2.3", str(MAKENSIS))
    build = subprocess.run([argv[0], "-WX", *argv[1:]], capture_output=True, text=True)
    assert build.returncode == 0, build.stdout + build.stderr  # -WX: warnings fail the build
    setup = (tmp_path / "jlgcli-setup.exe").read_bytes()
    assert setup[:2] == b"MZ" and b"Nullsoft" in setup


@pytest.mark.skipif(
    shutil.which("makensis") is None, reason="makensis missing (apt-get install nsis)"
)
def test_build_setup_writes_the_checksum(release: ModuleType, tmp_path: Path) -> None:
    onedir = tmp_path / "jlgcli"
    onedir.mkdir()
    (onedir / "jlgcli.exe").write_bytes(b"MZ")
    setup = release.build_setup(onedir, tmp_path / "out", makensis=str(MAKENSIS))
    assert setup.name == "jlgcli-setup.exe"
    assert (
        (tmp_path / "out" / "jlgcli-setup.exe.sha256")
        .read_text(encoding="utf-8")
        .startswith(release.sha256_file(setup))
    )
