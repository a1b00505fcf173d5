"""The release zip of the real frozen build installs and uninstalls with install.sh (issue 9)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from jlgcli._version import __version__

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.frozen,
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("JLGCLI_FROZEN_TESTS") != "1",
        reason="frozen smoke tests are opt-in: JLGCLI_FROZEN_TESTS=1 (CI sets it)",
    ),
    pytest.mark.skipif(os.name == "nt", reason="install.sh is for macOS/Linux (install.ps1 here)"),
]


def _release() -> ModuleType:
    spec = importlib.util.spec_from_file_location("release", ROOT / "installer" / "release.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_zip_round_trip_through_install_sh(frozen_dist: Path, tmp_path: Path) -> None:
    release = _release()
    target = release.target_name()
    release.package(frozen_dist, tmp_path / "release", target)
    archive = tmp_path / "release" / release.zip_name(target)
    prefix = tmp_path / "prefix"
    env = {**os.environ, "PATH": "/usr/bin:/bin"}  # unzip, sha256sum, ...: the user's own tools

    def install_sh(*args: str) -> subprocess.CompletedProcess[str]:
        script = str(ROOT / "installer" / "install.sh")
        return subprocess.run(["sh", script, *args, "--prefix", str(prefix)],
                              env=env, capture_output=True, text=True, timeout=300)  # fmt: skip

    installed = install_sh("--archive", str(archive))
    assert installed.returncode == 0, installed.stderr
    link = prefix / "bin" / "jlgcli"
    assert link.is_symlink()
    # Through the link: the onedir bootloader must still find its _internal folder.
    version = subprocess.run([str(link), "--version"], capture_output=True, text=True, check=True)
    assert version.stdout == f"jlgcli {__version__}\n"

    removed = install_sh("--uninstall")
    assert removed.returncode == 0, removed.stderr
    assert not link.exists() and not link.is_symlink()
    assert not (prefix / "lib" / "jlgcli").exists()
