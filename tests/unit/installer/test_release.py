"""installer/release.py: asset names, zips that keep symlinks, checksums, manifests, stamping."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from jlgcli._version import __version__

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("system", "machine", "target"),
    [("Windows", "AMD64", "windows-x64"), ("Linux", "x86_64", "linux-x64"),
     ("Linux", "aarch64", "linux-arm64"), ("Darwin", "arm64", "macos-arm64"),
     ("Darwin", "x86_64", "macos-x64")],
)  # fmt: skip
def test_target_names(release: ModuleType, system: str, machine: str, target: str) -> None:
    assert release.target_name(system, machine) == target


@pytest.mark.parametrize(("system", "machine"), [("FreeBSD", "amd64"), ("Linux", "riscv64")])
def test_no_target_for_unsupported_platforms(release: ModuleType, system, machine) -> None:
    with pytest.raises(ValueError, match="no release target"):
        release.target_name(system, machine)


def test_this_machine_has_a_target(release: ModuleType) -> None:
    assert release.target_name().split("-")[0] in ("windows", "linux", "macos")


def test_asset_names(release: ModuleType) -> None:
    assert release.zip_name("windows-x64") == "jlgcli-windows-x64.zip"
    assert release.onefile_name("windows-x64") == "jlgcli-windows-x64-onefile.exe"
    assert release.onefile_name("linux-x64") == "jlgcli-linux-x64-onefile"
    assert release.SETUP_NAME == "jlgcli-setup.exe"


def test_version_is_read_from_the_source(release: ModuleType) -> None:
    assert release.version() == __version__


@pytest.mark.parametrize(
    ("text", "quad"),
    [
        ("1.2.3", "1.2.3.0"),
        ("0.1.0rc1", "0.1.0.0"),
        ("2.0", "2.0.0.0"),
        ("1.2.3+local.7", "1.2.3.0"),
    ],
)
def test_numeric_version(release: ModuleType, text: str, quad: str) -> None:
    assert release.numeric_version(text) == quad


def test_checksum_files_use_sha256sum_format(release: ModuleType, tmp_path: Path) -> None:
    asset = tmp_path / "jlgcli-linux-x64.zip"
    asset.write_bytes(b"zip bytes")
    digest = hashlib.sha256(b"zip bytes").hexdigest()
    assert release.sha256_file(asset) == digest
    sidecar = release.write_checksum(asset)
    assert sidecar.name == "jlgcli-linux-x64.zip.sha256"
    assert sidecar.read_bytes() == f"{digest}  jlgcli-linux-x64.zip\n".encode()
    sums = release.write_sums(tmp_path)
    assert sums.read_text(encoding="utf-8") == f"{digest}  jlgcli-linux-x64.zip\n"
    if shutil.which("sha256sum"):
        subprocess.run(["sha256sum", "-c", sidecar.name], cwd=tmp_path, check=True,
                       capture_output=True)  # fmt: skip


LINKS = os.name != "nt"  # creating symlinks needs a privilege on Windows


def _fake_onedir(root: Path, exe: str = "jlgcli") -> Path:
    onedir = root / "jlgcli"
    (onedir / "_internal" / "pkg").mkdir(parents=True)
    (onedir / exe).write_text("#!/bin/sh\necho 'jlgcli 9.9.9'\n", encoding="utf-8")
    (onedir / exe).chmod(0o755)
    (onedir / "_internal" / "libpython.so.1.0").write_bytes(b"\x7fELF library")
    (onedir / "_internal" / "pkg" / "data.txt").write_text("data", encoding="utf-8")
    if LINKS:
        (onedir / "_internal" / "libpython.so").symlink_to("libpython.so.1.0")
        (onedir / "_internal" / "linked-dir").symlink_to("pkg")
    return onedir


@pytest.mark.skipif(not LINKS, reason="symlinks and exec bits are POSIX build matters")
def test_zip_keeps_symlinks_and_exec_bits(release: ModuleType, tmp_path: Path) -> None:
    onedir = _fake_onedir(tmp_path / "dist")
    archive = release.write_zip(
        onedir, tmp_path / "out" / "a.zip", {"extra.txt": onedir / "jlgcli"}
    )
    with zipfile.ZipFile(archive) as z:
        infos = {i.filename: i for i in z.infolist()}
        assert set(infos) == {
            "jlgcli/jlgcli", "jlgcli/extra.txt", "jlgcli/_internal/libpython.so.1.0",
            "jlgcli/_internal/libpython.so", "jlgcli/_internal/linked-dir",
            "jlgcli/_internal/pkg/data.txt",
        }  # fmt: skip
        link = infos["jlgcli/_internal/libpython.so"]
        assert stat.S_ISLNK(link.external_attr >> 16)
        assert z.read(link) == b"libpython.so.1.0"
        assert stat.S_ISLNK(infos["jlgcli/_internal/linked-dir"].external_attr >> 16)
        assert (infos["jlgcli/jlgcli"].external_attr >> 16) & 0o111
    if shutil.which("unzip"):  # what install.sh uses: links come back as links
        subprocess.run(["unzip", "-q", str(archive), "-d", str(tmp_path / "x")], check=True)
        assert (tmp_path / "x" / "jlgcli" / "_internal" / "libpython.so").is_symlink()
        assert (tmp_path / "x" / "jlgcli" / "jlgcli").stat().st_mode & stat.S_IXUSR


def test_package_windows(release: ModuleType, tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    _fake_onedir(dist, exe="jlgcli.exe")
    (dist / "jlgcli-onefile.exe").write_bytes(b"MZ onefile")
    assets = release.package(dist, tmp_path / "release", "windows-x64")
    names = sorted(p.name for p in assets)
    assert names == [
        "jlgcli-windows-x64-onefile.exe", "jlgcli-windows-x64-onefile.exe.sha256",
        "jlgcli-windows-x64.zip", "jlgcli-windows-x64.zip.sha256",
    ]  # fmt: skip
    with zipfile.ZipFile(tmp_path / "release" / "jlgcli-windows-x64.zip") as z:
        assert "jlgcli/uninstall.ps1" in z.namelist()  # install.ps1 registers it as uninstaller


def test_package_posix_without_onefile(release: ModuleType, tmp_path: Path) -> None:
    _fake_onedir(tmp_path / "dist")
    assets = release.package(tmp_path / "dist", tmp_path / "release", "linux-x64")
    assert sorted(p.name for p in assets) == ["jlgcli-linux-x64.zip", "jlgcli-linux-x64.zip.sha256"]
    with zipfile.ZipFile(assets[0]) as z:
        assert "jlgcli/uninstall.ps1" not in z.namelist()


def test_package_needs_a_build(release: ModuleType, tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"freeze\.py"):
        release.package(tmp_path, tmp_path / "release", "linux-x64")


def test_fill_replaces_placeholders_and_keeps_scoop_variables(release: ModuleType) -> None:
    assert release.fill("@A@ $version @B@", {"A": "1", "B": "2"}) == "1 $version 2"
    with pytest.raises(ValueError, match="unfilled placeholders: MISSING"):
        release.fill("@A@ @MISSING@", {"A": "1"})


def _assets(tmp_path: Path) -> Path:
    assets = tmp_path / "assets"
    assets.mkdir()
    (assets / "jlgcli-windows-x64.zip").write_bytes(b"zip")
    (assets / "jlgcli-setup.exe").write_bytes(b"MZ setup")
    return assets


def test_manifests(release: ModuleType, tmp_path: Path) -> None:
    values = release.manifest_values("ann/jlgcli", _assets(tmp_path), "1.2.3")
    written = release.write_manifests(values, tmp_path / "out")
    names = sorted(p.relative_to(tmp_path / "out").as_posix() for p in written)
    assert names == [
        "scoop/jlgcli.json", "winget/ann.jlgcli.installer.yaml",
        "winget/ann.jlgcli.locale.en-US.yaml", "winget/ann.jlgcli.yaml",
    ]  # fmt: skip
    scoop = json.loads((tmp_path / "out" / "scoop" / "jlgcli.json").read_text(encoding="utf-8"))
    assert scoop["version"] == "1.2.3"
    arch = scoop["architecture"]["64bit"]
    assert (
        arch["url"]
        == "https://github.com/ann/jlgcli/releases/download/v1.2.3/jlgcli-windows-x64.zip"
    )
    assert arch["hash"] == hashlib.sha256(b"zip").hexdigest()
    assert arch["extract_dir"] == "jlgcli" and scoop["bin"] == "jlgcli.exe"
    assert "$version" in scoop["autoupdate"]["architecture"]["64bit"]["url"]
    yaml = pytest.importorskip("yaml")
    installer = yaml.safe_load(
        (tmp_path / "out" / "winget" / "ann.jlgcli.installer.yaml").read_text()
    )
    assert installer["PackageIdentifier"] == "ann.jlgcli" and installer["Scope"] == "user"
    assert installer["InstallerType"] == "nullsoft" and installer["ProductCode"] == "jlgcli"
    [entry] = installer["Installers"]
    assert entry["InstallerUrl"].endswith("/v1.2.3/jlgcli-setup.exe")
    assert entry["InstallerSha256"] == hashlib.sha256(b"MZ setup").hexdigest().upper()
    for name in ("ann.jlgcli.yaml", "ann.jlgcli.locale.en-US.yaml"):
        manifest = yaml.safe_load((tmp_path / "out" / "winget" / name).read_text())
        assert manifest["PackageVersion"] == "1.2.3" and manifest["ManifestVersion"] == "1.6.0"


def test_manifest_repo_must_be_owner_slash_name(release: ModuleType, tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="OWNER/NAME"):
        release.manifest_values("jlgcli", _assets(tmp_path), "1.2.3")


@pytest.mark.parametrize("name", ["install.ps1", "install.sh"])
def test_stamp_sets_the_repo_and_tag_and_nothing_else(release: ModuleType, name: str) -> None:
    text = (ROOT / "installer" / name).read_text(encoding="utf-8")
    stamped = release.stamp(text, repo="ann/fork", tag="v9.9.9")
    changed = [
        (a, b) for a, b in zip(text.splitlines(), stamped.splitlines(), strict=True) if a != b
    ]
    assert len(changed) == 2, changed
    assert "ann/fork" in changed[0][1] and "v9.9.9" in changed[1][1]
    assert len(stamped.splitlines()) == len(text.splitlines())


def test_main_package_stamp_manifests_sums(release: ModuleType, tmp_path: Path, capsys) -> None:
    _fake_onedir(tmp_path / "dist")
    out = tmp_path / "release"
    assert release.main(["package", "--dist", str(tmp_path / "dist"), "--out", str(out),
                         "--target", "linux-x64"]) == 0  # fmt: skip
    assert release.main(["stamp", "--repo", "ann/jlgcli", "--out", str(out)]) == 0
    assert "$DefaultRepo = 'ann/jlgcli'" in (out / "install.ps1").read_text(encoding="utf-8")
    assets = _assets(tmp_path)
    assert release.main(["manifests", "--repo", "ann/jlgcli", "--assets", str(assets),
                         "--out", str(tmp_path / "m")]) == 0  # fmt: skip
    assert release.main(["sums", str(out)]) == 0
    sums = (out / "SHA256SUMS").read_text(encoding="utf-8")
    assert "jlgcli-linux-x64.zip" in sums and "install.sh" in sums and ".sha256" not in sums
    assert "jlgcli-linux-x64.zip" in capsys.readouterr().out


def test_check_version(release: ModuleType, capsys) -> None:
    assert release.main(["check-version", "--tag", f"v{__version__}"]) == 0
    assert release.main(["check-version", "--tag", "v0.0.0-nope"]) == 1
    assert "does not match" in capsys.readouterr().err


def test_makensis_argv(release: ModuleType, tmp_path: Path) -> None:
    argv = release.makensis_argv(tmp_path / "onedir", tmp_path / "s.exe", "1.2.3rc1", "makensis")
    assert argv[0] == "makensis" and argv[-1].endswith("jlgcli.nsi")
    assert "-DVERSION=1.2.3rc1" in argv and "-DVERSION_QUAD=1.2.3.0" in argv
    assert f"-DSOURCE_DIR={tmp_path / 'onedir'}" in argv


def test_setup_needs_the_windows_build(release: ModuleType, tmp_path: Path) -> None:
    _fake_onedir(tmp_path)
    with pytest.raises(SystemExit, match=r"jlgcli\.exe"):
        release.build_setup(tmp_path / "jlgcli", tmp_path / "out")


@pytest.mark.parametrize(
    ("tag", "major"),
    [("v1.2.3", "v1"), ("v0.1.0", "v0"), ("v10.0.1", "v10"), ("v1.2.3rc1", None),
     ("v1", None), ("1.2.3", None)],
)  # fmt: skip
def test_major_tag(release: ModuleType, tag: str, major: str | None) -> None:
    # issue 35: the floating tag `uses: OWNER/REPO@v1` follows; a pre-release moves none
    assert release.major_tag(tag) == major


def test_release_notes_and_the_major_tag_from_the_command_line(
    release: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert release.main(["notes", "--repo", "me/jl", "--tag", "v2.3.4"]) == 0
    notes = capsys.readouterr().out
    assert "rev: v2.3.4" in notes and "- uses: me/jl@v2\n" in notes
    assert "releases/download/v2.3.4/install.sh" in notes and "jlgcli==2.3.4" in notes
    assert "@" not in notes.replace("me/jl@v2", "")  # every placeholder filled
    assert release.main(["major-tag", "--tag", "v2.3.4"]) == 0
    assert capsys.readouterr().out == "v2\n"
    assert release.main(["major-tag", "--tag", "v2.3.4rc1"]) == 0
    assert capsys.readouterr().out == "\n"
