"""install.sh installs from a local zip into a temp prefix and uninstalls again (issue 9)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "installer" / "install.sh"
SHELLCHECK = shutil.which("shellcheck")  # looked up before the tests' PATH isolation

pytestmark = pytest.mark.skipif(os.name == "nt", reason="install.sh is for macOS/Linux")


def _archive(tmp_path: Path, version: str = "9.9.9") -> Path:
    """A zip shaped like the release one: jlgcli/jlgcli + jlgcli/_internal with a link."""
    archive = tmp_path / "jlgcli-test.zip"
    with zipfile.ZipFile(archive, "w") as z:
        exe = zipfile.ZipInfo("jlgcli/jlgcli")
        exe.external_attr = 0o100644 << 16  # not executable: install.sh must chmod it
        z.writestr(exe, f'#!/bin/sh\necho "jlgcli {version} $0"\n')
        z.writestr("jlgcli/_internal/lib.so.1", "library")
        link = zipfile.ZipInfo("jlgcli/_internal/lib.so")
        link.create_system = 3
        link.external_attr = 0o120777 << 16
        z.writestr(link, "lib.so.1")
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    (tmp_path / "jlgcli-test.zip.sha256").write_text(
        f"{digest}  jlgcli-test.zip\n", encoding="utf-8"
    )
    return archive


def _sh(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "TMPDIR": str(home)}
    return subprocess.run(["sh", str(SCRIPT), *args], env=env, capture_output=True, text=True,
                          timeout=120)  # fmt: skip


def test_round_trip(tmp_path: Path) -> None:
    archive, prefix = _archive(tmp_path), tmp_path / "prefix"
    installed = _sh("--archive", str(archive), "--prefix", str(prefix), home=tmp_path)
    assert installed.returncode == 0, installed.stderr
    assert "Checksum OK" in installed.stdout and "Add " in installed.stdout  # not on PATH yet
    link = prefix / "bin" / "jlgcli"
    assert link.is_symlink() and os.readlink(link) == str(prefix / "lib" / "jlgcli" / "jlgcli")
    assert (prefix / "lib" / "jlgcli" / "_internal" / "lib.so").is_symlink()
    run = subprocess.run([str(link), "--version"], capture_output=True, text=True, check=True)
    assert run.stdout.startswith("jlgcli 9.9.9")

    again = _sh(
        "--archive", str(_archive(tmp_path, "9.9.10")), "--prefix", str(prefix), home=tmp_path
    )
    assert again.returncode == 0, again.stderr  # an upgrade replaces the program
    assert subprocess.run([str(link)], capture_output=True, text=True).stdout.startswith(
        "jlgcli 9.9.10"
    )

    removed = _sh("--uninstall", "--prefix", str(prefix), home=tmp_path)
    assert removed.returncode == 0, removed.stderr
    assert not link.is_symlink() and not (prefix / "lib" / "jlgcli").exists()


def test_a_wrong_checksum_installs_nothing(tmp_path: Path) -> None:
    archive, prefix = _archive(tmp_path), tmp_path / "prefix"
    result = _sh(
        "--archive", str(archive), "--sha256", "0" * 64, "--prefix", str(prefix), home=tmp_path
    )
    assert result.returncode != 0
    assert "checksum mismatch" in result.stderr
    assert not (prefix / "lib" / "jlgcli").exists() and not (prefix / "bin" / "jlgcli").exists()


def test_an_upper_case_checksum_is_accepted(tmp_path: Path) -> None:
    archive = _archive(tmp_path)
    digest = hashlib.sha256(archive.read_bytes()).hexdigest().upper()
    result = _sh("--archive", str(archive), "--sha256", digest, "--prefix", str(tmp_path / "p"),
                 home=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr


def test_no_checksum_no_install(tmp_path: Path) -> None:
    archive = _archive(tmp_path)
    (tmp_path / "jlgcli-test.zip.sha256").unlink()
    result = _sh("--archive", str(archive), "--prefix", str(tmp_path / "p"), home=tmp_path)
    assert result.returncode != 0 and "no checksum" in result.stderr


def test_default_prefix_is_home_dot_local(tmp_path: Path) -> None:
    result = _sh("--archive", str(_archive(tmp_path)), home=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / ".local" / "bin" / "jlgcli").is_symlink()


def test_uninstall_leaves_a_foreign_jlgcli_alone(tmp_path: Path) -> None:
    prefix = tmp_path / "prefix"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "bin" / "jlgcli").symlink_to("/usr/bin/env")
    result = _sh("--uninstall", "--prefix", str(prefix), home=tmp_path)
    assert result.returncode == 0
    assert (prefix / "bin" / "jlgcli").is_symlink() and "leaving" in result.stdout


def test_unknown_option_is_refused(tmp_path: Path) -> None:
    result = _sh("--frobnicate", home=tmp_path)
    assert result.returncode != 0 and "unknown option" in result.stderr


def test_help(tmp_path: Path) -> None:
    result = _sh("--help", home=tmp_path)
    assert result.returncode == 0 and "--prefix" in result.stdout


@pytest.mark.skipif(SHELLCHECK is None, reason="shellcheck missing (apt-get install shellcheck)")
def test_shellcheck_is_clean() -> None:
    result = subprocess.run(
        [str(SHELLCHECK), "-s", "sh", str(SCRIPT)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout


@pytest.mark.parametrize(
    ("system", "machine"),
    [("Linux", "x86_64"), ("Linux", "aarch64"), ("Darwin", "arm64"), ("Darwin", "x86_64")],
)
def test_each_platform_asks_for_the_zip_the_release_builds_for_it(
    tmp_path: Path, release: ModuleType, system: str, machine: str
) -> None:
    # issue 35: `curl … install.sh | sh` 404'd on Intel macOS and Linux arm64 (no such zip)
    fake = tmp_path / "bin"
    fake.mkdir()
    uname = fake / "uname"
    uname.write_text(
        f'#!/bin/sh\ncase "$1" in -s) echo {system} ;; -m) echo {machine} ;; esac\n',
        encoding="utf-8",
    )
    uname.chmod(0o755)
    env = {"PATH": f"{fake}:/usr/bin:/bin", "HOME": str(tmp_path)}
    result = subprocess.run(["sh", str(SCRIPT), "--print-target"], env=env,
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    assert result.returncode == 0, result.stderr
    target = result.stdout.strip()
    assert target == release.target_name(system, machine)
    assert f"target: {target}\n" in (ROOT / ".github/workflows/release.yml").read_text("utf-8")
