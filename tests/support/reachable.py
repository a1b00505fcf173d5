"""A jlgcli another user can run: issue 33's e2e tests "as an unprivileged user".

The tests' Python often lives where ``nobody`` cannot go (pyenv under a ``/root``
of mode 700, as on this machine kind; a venv whose ``python`` links there), and
so do the fakes' launchers, which exec that Python. ``build_runtime`` assembles,
under a folder ``nobody`` may enter, what a user's own installation would be:
a Python of the same version that ``nobody`` can start, a copy of the jlgcli
under test and of the files of every distribution it needs (from its metadata,
with the markers of this machine), launchers for the fakes that exec that
Python, and links to the system tools. Nothing is downloaded.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.requirements import Requirement

import jlgcli

NOBODY = 65534
SETPRIV = "/usr/bin/setpriv"
AS_NOBODY = (SETPRIV, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups")
FAKES_DIR = Path(__file__).resolve().parents[1] / "fakes"


@dataclass(frozen=True)
class Runtime:
    """A jlgcli ``nobody`` can run: its command, and the environment it needs."""

    python: Path
    site: Path
    path: str

    @property
    def jlgcli(self) -> list[str]:
        return [str(self.python), "-m", "jlgcli"]

    def environ(self, env: dict[str, str]) -> dict[str, str]:
        return env | {"PATH": self.path, "PYTHONPATH": str(self.site)}


def _others_may_run(path: Path) -> bool:
    real = Path(os.path.realpath(path))
    folders_open = all(folder.stat().st_mode & stat.S_IXOTH for folder in real.parents)
    return folders_open and bool(real.stat().st_mode & stat.S_IXOTH)


def nobody_python() -> Path | None:
    """A Python of this version that ``nobody`` can start, with its standard library."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    candidates = [Path(sys.executable), Path(sys.base_prefix) / "bin" / f"python{version}"]
    candidates += [Path(f"/usr/bin/python{version}"), Path(f"/usr/local/bin/python{version}")]
    for candidate in candidates:
        if not candidate.exists() or not _others_may_run(candidate):
            continue
        probe = [*AS_NOBODY, os.path.realpath(candidate), "-c", "import json, subprocess"]
        if subprocess.run(probe, capture_output=True, timeout=30).returncode == 0:
            return Path(os.path.realpath(candidate))
    return None


def _distributions(name: str) -> list[importlib.metadata.Distribution]:
    """``name``'s distribution and those it needs here, each once."""
    found: dict[str, importlib.metadata.Distribution] = {}
    todo = [name]
    while todo:
        key = todo.pop().lower().replace("_", "-")
        if key in found:
            continue
        found[key] = importlib.metadata.distribution(key)
        for text in found[key].requires or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return list(found.values())


def _copy_site(site: Path) -> None:
    shutil.copytree(Path(jlgcli.__file__).parent, site / "jlgcli", ignore=_no_caches)
    for dist in _distributions("jlgcli"):
        if dist.metadata["Name"].lower() == "jlgcli":
            continue  # an editable install's files are its .pth: the package is copied above
        for file in dist.files or []:
            source = Path(str(dist.locate_file(file)))
            if file.parts[0] == ".." or not source.is_file() or source.suffix == ".pyc":
                continue  # a console script in bin/, a compiled cache
            target = site / file
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def _no_caches(_folder: str, names: list[str]) -> list[str]:
    return [name for name in names if name == "__pycache__"]


def _launcher(path: Path, python: Path, folder: Path, module: str) -> None:
    run_module = (
        f"import sys; sys.path.insert(0, {str(folder)!r}); import runpy; "
        f'runpy.run_module("{module}", run_name="__main__", alter_sys=True)'
    )
    path.write_text(f'#!/bin/sh\nexec "{python}" -S -c {shlex.quote(run_module)} "$@"\n', "utf-8")
    path.chmod(0o755)


def build_runtime(base: Path, python: Path, system_bin: Path) -> Runtime:
    """Lay a runtime out under ``base`` (which ``nobody`` must be able to enter)."""
    site, fakes, fake_bin, tools = base / "site", base / "fakes", base / "fakebin", base / "sysbin"
    _copy_site(site)
    shutil.copytree(FAKES_DIR, fakes, ignore=_no_caches)
    fake_bin.mkdir()
    for script in sorted(fakes.glob("*.py")):
        if not script.name.startswith("_"):
            _launcher(fake_bin / script.stem.replace("_", "-"), python, fakes, script.stem)
    tools.mkdir()
    for link in system_bin.iterdir():
        target = python if link.name in ("python", "python3") else Path(os.readlink(link))
        (tools / link.name).symlink_to(target)
    return Runtime(python=python, site=site, path=os.pathsep.join([str(fake_bin), str(tools)]))


def give_to_nobody(root: Path) -> None:
    """``root`` and all under it belong to ``nobody`` (a project, a config dir, a home)."""
    for path in [root, *root.rglob("*")]:
        os.chown(path, NOBODY, NOBODY, follow_symlinks=False)


@contextlib.contextmanager
def nobody_workspace(system_bin: Path) -> Iterator[tuple[Runtime, Path]]:
    """A runtime for ``nobody`` and an empty folder to work in, both removed after.

    Skips where the tests cannot become ``nobody`` (not root, no setpriv) or no
    Python of this version is open to others. Both live under a fresh folder of
    the system's temporary directory: pytest's own is private to its user.
    """
    if os.geteuid() != 0 or not Path(AS_NOBODY[0]).exists():
        pytest.skip("needs root (to become nobody) and setpriv")
    python = nobody_python()
    if python is None:
        pytest.skip("no Python of this version that nobody may run")
    base = Path(tempfile.mkdtemp(prefix="jlgcli-nobody-"))
    try:
        base.chmod(0o755)
        runtime = build_runtime(base / "runtime", python, system_bin)
        (base / "run").mkdir()
        yield runtime, base / "run"
    finally:
        shutil.rmtree(base, ignore_errors=True)
