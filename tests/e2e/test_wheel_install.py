"""The install instructions, tried from the built wheel in a fresh venv (issue 19 items 1 and 4).

Builds the wheel once from a copy of the sources (nothing is written in the work tree), installs
it into a new virtual environment and runs what README and docs/install.md tell a new user to
run first — ``jlgcli --version``, ``jlgcli demo`` — from an unrelated directory. Offline: the
build uses this interpreter's setuptools (no build isolation) and the venv gets jlgcli's
dependencies from this environment through a ``.pth`` line instead of the package index.
The release workflow does the same with a real ``pip install`` of the wheel.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from support.environ import tool_environ

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "README.md", "jlgcli")


def _can_build_offline() -> str | None:
    try:
        import setuptools
    except ImportError:
        return "setuptools is not installed (pip install 'setuptools>=77')"
    if int(setuptools.__version__.split(".")[0]) < 77:
        return f"setuptools {setuptools.__version__} is older than the build needs (77)"
    return None


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = tool_environ("PYTHONPATH", "VIRTUAL_ENV")
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, encoding="utf-8",
                          errors="replace", timeout=600, env=env)  # fmt: skip


@pytest.fixture(scope="module")
def wheel_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    reason = _can_build_offline()
    if reason:
        pytest.skip(reason)
    src = tmp_path_factory.mktemp("src")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
            shutil.copytree(ROOT / name, src / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, src / name)
    out = tmp_path_factory.mktemp("dist")
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                  "--no-index", "-w", str(out), str(src)], cwd=src)  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = out.glob("jlgcli-*.whl")
    return wheel


@pytest.fixture(scope="module")
def installed(wheel_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``jlgcli`` console script of a fresh venv holding only the wheel."""
    venv = tmp_path_factory.mktemp("venv")
    made = _run([sys.executable, "-m", "venv", str(venv)], cwd=venv)
    assert made.returncode == 0, made.stderr
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                     cwd=venv).stdout.strip())  # fmt: skip
    # jlgcli's dependencies from this environment (appended after the venv's own packages).
    (site / "zz_test_dependencies.pth").write_text(
        sysconfig.get_path("purelib") + "\n", encoding="utf-8"
    )
    added = _run([str(python), "-m", "pip", "install", "--no-deps", "--no-index",
                  str(wheel_file)], cwd=venv)  # fmt: skip
    assert added.returncode == 0, added.stdout + added.stderr
    return venv / ("Scripts/jlgcli.exe" if os.name == "nt" else "bin/jlgcli")


def test_the_wheel_ships_the_demo_recording(wheel_file: Path) -> None:
    names = set(zipfile.ZipFile(wheel_file).namelist())
    for name in ("jlgcli/demo/task.md", "jlgcli/demo/recording/meta.json",
                 "jlgcli/demo/recording/iterations/003/final.md",
                 "jlgcli/integrations/hook_prompt.md", "jlgcli/py.typed",
                 "jlgcli/board/static/board.js", "jlgcli/board/static/board.css"):  # fmt: skip
        assert name in names
    assert not any(name.startswith(("tests/", "examples/")) for name in names)


def test_the_wheel_states_its_licence_as_an_spdx_expression(wheel_file: Path) -> None:
    # PEP 639: setuptools stops building a `license = {text = …}` table after 2027-02-18.
    with zipfile.ZipFile(wheel_file) as archive:
        (metadata,) = (name for name in archive.namelist() if name.endswith(".dist-info/METADATA"))
        headers = archive.read(metadata).decode("utf-8").split("\n\n", 1)[0].splitlines()
    assert "License-Expression: MIT" in headers


def test_the_installed_wheel_runs_the_demo_from_anywhere(installed: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    version = _run([str(installed), "--version"], cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("jlgcli "), version.stderr
    where = _run([str(installed.parent / "python"), "-c", "import jlgcli; print(jlgcli.__file__)"],
                 cwd=tmp_path)  # fmt: skip
    assert ROOT not in Path(where.stdout.strip()).parents  # the wheel, not this work tree
    python = str(installed.parent / "python")
    as_module = _run([python, "-m", "jlgcli", "--version"], cwd=elsewhere)
    assert as_module.stdout == version.stdout, as_module.stderr  # README: `python -m jlgcli`
    invoke_door = _run([python, "-c", "import jlgcli.invoke_tasks"], cwd=elsewhere)
    assert invoke_door.returncode == 0, invoke_door.stderr  # the [invoke] extra's door
    demo = _run([str(installed), "demo", "--json"], cwd=elsewhere)
    assert demo.returncode == 0, demo.stderr
    summary = json.loads(demo.stdout)
    assert (summary["status"], summary["iterations"], summary["backend"]) == ("done", 3, "replay")
    assert list(elsewhere.iterdir()) == []
