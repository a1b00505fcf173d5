"""Fixtures of the frozen-build smoke tests (issue 9): build once, run the exe like a user.

Opt-in: ``JLGCLI_FROZEN_TESTS=1`` (CI sets it). The build is made once per
session with ``installer/freeze.py --onefile`` into a temporary directory
(≈ 30 s on 2 cores), unless ``JLGCLI_FROZEN_DIST`` names an existing ``dist/``
(the release workflow builds first, then tests what it will ship). Both
variables are read at import: the autouse isolation removes ``JLGCLI_*`` later.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import Runner, command_runner

ROOT = Path(__file__).resolve().parents[2]
PREBUILT_DIST = os.environ.get("JLGCLI_FROZEN_DIST", "")
EXE_SUFFIX = ".exe" if os.name == "nt" else ""


@pytest.fixture(scope="session")
def frozen_dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ``dist/`` holding ``jlgcli/jlgcli[.exe]`` and ``jlgcli-onefile[.exe]``."""
    if PREBUILT_DIST:
        dist = Path(PREBUILT_DIST).resolve()
        assert (dist / "jlgcli" / f"jlgcli{EXE_SUFFIX}").is_file(), f"no onedir build in {dist}"
        return dist
    dist = tmp_path_factory.mktemp("frozen-dist")
    work = tmp_path_factory.mktemp("frozen-work")
    # Coverage's subprocess patch would trace PyInstaller's own import probes: not ours.
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    build = subprocess.run(
        [sys.executable, str(ROOT / "installer" / "freeze.py"), "--onefile",
         "--dist", str(dist), "--work", str(work)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200,
    )  # fmt: skip
    assert build.returncode == 0, f"freeze failed:\n{build.stdout}\n{build.stderr}"
    return dist


@pytest.fixture(scope="session")
def frozen_exe(frozen_dist: Path) -> Path:
    """The onedir executable (what the zip and the setup program ship)."""
    return frozen_dist / "jlgcli" / f"jlgcli{EXE_SUFFIX}"


@pytest.fixture(scope="session")
def onefile_exe(frozen_dist: Path) -> Path:
    """The optional one-file executable."""
    exe = frozen_dist / f"jlgcli-onefile{EXE_SUFFIX}"
    assert exe.is_file(), f"no onefile build in {frozen_dist}"
    return exe


@pytest.fixture
def frozen(frozen_exe: Path, tmp_path: Path) -> Runner:
    """``frozen("run", "task.md", cwd=...)``: the onedir exe, as a user runs it."""
    return command_runner(lambda: str(frozen_exe), tmp_path, timeout=180)


@pytest.fixture
def onefile(onefile_exe: Path, tmp_path: Path) -> Runner:
    """The one-file exe, same interface."""
    return command_runner(lambda: str(onefile_exe), tmp_path, timeout=180)


@pytest.fixture
def package(jlgcli_exe: str, tmp_path: Path) -> Runner:
    """The installed console script, same interface: what the exe must behave like."""
    return command_runner(lambda: jlgcli_exe, tmp_path, timeout=180)
