"""Release assets from a frozen build: zips, checksums, the setup program, scoop/winget manifests.

The one place that names the assets; the release workflow, the install
scripts and the docs use these names (a test checks they agree).

    python installer/release.py package --dist dist --out release     # zip (+ onefile) + .sha256
    python installer/release.py setup --onedir dist/jlgcli --out release   # NSIS jlgcli-setup.exe
    python installer/release.py manifests --repo OWNER/NAME --assets release --out release
    python installer/release.py stamp --repo OWNER/NAME --out release  # install.* for this tag
    python installer/release.py sums release                           # SHA256SUMS
    python installer/release.py check-version --tag v1.2.3             # tag == jlgcli version
    python installer/release.py major-tag --tag v1.2.3                 # v1 (nothing: a pre-release)
    python installer/release.py notes --repo OWNER/NAME --tag v1.2.3   # the release's notes
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import re
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INSTALLER = ROOT / "installer"
SETUP_NAME = "jlgcli-setup.exe"
WINDOWS_TARGET = "windows-x64"
SUMS_NAME = "SHA256SUMS"
INSTALL_SCRIPTS = ("install.ps1", "uninstall.ps1", "install.sh")
_MACHINES = {"x86_64": "x64", "amd64": "x64", "x64": "x64", "arm64": "arm64", "aarch64": "arm64"}
_SYSTEMS = {"windows": "windows", "win32": "windows", "linux": "linux", "darwin": "macos"}


def target_name(system: str | None = None, machine: str | None = None) -> str:
    """``windows-x64``, ``linux-x64``, ``macos-arm64``... for this (or the given) OS and CPU."""
    system = (system or platform.system()).lower()
    machine = (machine or platform.machine()).lower()
    if system not in _SYSTEMS or machine not in _MACHINES:
        raise ValueError(f"no release target for {system}/{machine}")
    return f"{_SYSTEMS[system]}-{_MACHINES[machine]}"


def zip_name(target: str) -> str:
    """The onedir zip of a target: ``jlgcli-windows-x64.zip``."""
    return f"jlgcli-{target}.zip"


def onefile_name(target: str) -> str:
    """The optional one-file executable of a target: ``jlgcli-windows-x64-onefile.exe``."""
    return f"jlgcli-{target}-onefile" + (".exe" if target.startswith("windows") else "")


def version() -> str:
    """jlgcli's version, read from the source (what the exe has baked in)."""
    text = (ROOT / "jlgcli" / "_version.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__ = "([^"]+)"', text, re.MULTILINE)
    if match is None:
        raise SystemExit("release: no __version__ in jlgcli/_version.py")
    return match.group(1)


def numeric_version(text: str) -> str:
    """``1.2.3rc1`` → ``1.2.3.0`` (Windows version resources take four numbers)."""
    numbers = [int(n) for n in re.findall(r"\d+", text.split("+")[0])[:3]]
    return ".".join(str(n) for n in [*numbers, 0, 0, 0, 0][:4])


def sha256_file(path: Path) -> str:
    """Lower-case hex SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as source:
        for chunk in iter(lambda: source.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def write_checksum(path: Path) -> Path:
    """``<file>.sha256`` in ``sha256sum`` format (``<hex>  <name>``)."""
    out = path.with_name(path.name + ".sha256")
    out.write_text(f"{sha256_file(path)}  {path.name}\n", encoding="utf-8", newline="\n")
    return out


def write_sums(folder: Path) -> Path:
    """``SHA256SUMS`` over every asset in ``folder`` (not the .sha256 files)."""
    lines = [f"{sha256_file(p)}  {p.name}\n" for p in sorted(folder.iterdir())
             if p.is_file() and p.name != SUMS_NAME and not p.name.endswith(".sha256")]  # fmt: skip
    out = folder / SUMS_NAME
    out.write_text("".join(lines), encoding="utf-8", newline="\n")
    return out


def write_zip(onedir: Path, out: Path, extra: dict[str, Path] | None = None) -> Path:
    """Zip ``onedir`` as ``jlgcli/...`` keeping symlinks and exec bits (PyInstaller 6 uses links).

    ``extra`` maps names inside ``jlgcli/`` to files to add (e.g. ``uninstall.ps1``).
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for path in sorted(_walk(onedir)):
            name = "jlgcli/" + path.relative_to(onedir).as_posix()
            if path.is_symlink():
                info = zipfile.ZipInfo(name)
                info.create_system = 3  # unix: unzip restores the link
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
                archive.writestr(info, str(path.readlink()))
            elif path.is_file():
                _add_file(archive, path, name)
        for name, path in sorted((extra or {}).items()):
            _add_file(archive, path, f"jlgcli/{name}")
    return out


def _walk(top: Path) -> list[Path]:
    found: list[Path] = []
    for folder, dirs, files in os.walk(top):
        base = Path(folder)
        found += [base / d for d in dirs if (base / d).is_symlink()]  # not descended into
        found += [base / f for f in files]
    return found


def _add_file(archive: zipfile.ZipFile, path: Path, name: str) -> None:
    info = zipfile.ZipInfo.from_file(path, name)
    info.create_system = 3
    info.external_attr = (stat.S_IFREG | (path.stat().st_mode & 0o777)) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    with path.open("rb") as source, archive.open(info, "w") as target:
        shutil.copyfileobj(source, target, 1 << 20)


def package(dist: Path, out: Path, target: str) -> list[Path]:
    """The zip of ``dist/jlgcli`` and, when built, the renamed onefile exe, each with a .sha256."""
    onedir = dist / "jlgcli"
    if not onedir.is_dir():
        raise SystemExit(f"release: no onedir build at {onedir}; run installer/freeze.py first")
    extra = {"uninstall.ps1": INSTALLER / "uninstall.ps1"} if target.startswith("windows") else {}
    assets = [write_zip(onedir, out / zip_name(target), extra)]
    windows = target.startswith("windows")
    onefile = dist / ("jlgcli-onefile.exe" if windows else "jlgcli-onefile")
    if onefile.is_file():
        renamed = out / onefile_name(target)
        shutil.copy2(onefile, renamed)
        assets.append(renamed)
    return [*assets, *(write_checksum(asset) for asset in assets)]


def makensis_argv(onedir: Path, out_file: Path, version_text: str, makensis: str) -> list[str]:
    """The makensis command building the per-user setup program from a onedir build."""
    return [makensis, "-V2", "-INPUTCHARSET", "UTF8",
            f"-DVERSION={version_text}", f"-DVERSION_QUAD={numeric_version(version_text)}",
            f"-DSOURCE_DIR={onedir}", f"-DOUTFILE={out_file}",
            str(INSTALLER / "jlgcli.nsi")]  # fmt: skip


def build_setup(onedir: Path, out: Path, *, makensis: str = "makensis") -> Path:
    """Build ``jlgcli-setup.exe`` with NSIS (works on Linux: Debian's ``nsis``)."""
    if not (onedir / "jlgcli.exe").is_file():
        raise SystemExit(f"release: {onedir} has no jlgcli.exe (the Windows onedir build)")
    out.mkdir(parents=True, exist_ok=True)
    target = out / SETUP_NAME
    subprocess.run(makensis_argv(onedir, target, version(), makensis), check=True)
    write_checksum(target)
    return target


def fill(template: str, values: dict[str, str]) -> str:
    """Replace ``@KEY@`` placeholders; a placeholder left unfilled is an error."""
    text = re.sub(r"@([A-Z0-9_]+)@", lambda m: values.get(m.group(1), m.group(0)), template)
    left = sorted(set(re.findall(r"@([A-Z0-9_]+)@", text)))
    if left:
        raise ValueError(f"unfilled placeholders: {', '.join(left)}")
    return text


def manifest_values(repo: str, assets: Path, version_text: str) -> dict[str, str]:
    """The values the scoop and winget templates take, read from the built assets."""
    owner, _, name = repo.partition("/")
    if not owner or not name:
        raise SystemExit(f"release: --repo must be OWNER/NAME, not {repo!r}")
    return {
        "VERSION": version_text,
        "TAG": f"v{version_text}",
        "REPO": repo,
        "WINGET_ID": f"{owner}.jlgcli",
        "PUBLISHER": owner,
        "ZIP_SHA256": sha256_file(assets / zip_name(WINDOWS_TARGET)),
        "SETUP_SHA256": sha256_file(assets / SETUP_NAME).upper(),
    }


def write_manifests(values: dict[str, str], out: Path) -> list[Path]:
    """Fill every template under ``installer/scoop`` and ``installer/winget`` into ``out``."""
    written = []
    for template in sorted(INSTALLER.glob("*/*.in")):
        name = template.name.removesuffix(".in").replace("PACKAGE_ID", values["WINGET_ID"])
        target = out / template.parent.name / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(fill(template.read_text(encoding="utf-8"), values), encoding="utf-8")
        written.append(target)
    return written


def stamp(text: str, *, repo: str, tag: str) -> str:
    """An install script with this release's repository and tag as its defaults."""
    replacements = {
        r"^(\$DefaultRepo = )'[^']*'$": rf"\g<1>'{repo}'",
        r"^(\$DefaultVersion = )'[^']*'$": rf"\g<1>'{tag}'",
        r'^(DEFAULT_REPO=)"[^"]*"$': rf'\g<1>"{repo}"',
        r'^(DEFAULT_VERSION=)"[^"]*"$': rf'\g<1>"{tag}"',
    }
    for pattern, replacement in replacements.items():
        text = re.sub(pattern, replacement, text, flags=re.MULTILINE)
    return text


def major_tag(tag: str) -> str | None:
    """The floating tag a release moves (``v1.2.3`` → ``v1``), None for a pre-release (``rc``).

    ``uses: OWNER/REPO@v1`` in a workflow follows it. The release workflow runs
    on ``v*.*.*`` only, so moving ``v1`` never starts another release.
    """
    match = re.fullmatch(r"v(\d+)\.\d+\.\d+", tag)
    return f"v{match.group(1)}" if match else None


def release_notes(repo: str, tag: str) -> str:
    """``installer/release-notes.md`` for this release: the install lines and the pins."""
    version_text = tag.removeprefix("v")
    values = {"REPO": repo, "TAG": tag, "VERSION": version_text,
              "MAJOR_TAG": major_tag(tag) or tag}  # fmt: skip
    return fill((INSTALLER / "release-notes.md").read_text(encoding="utf-8"), values)


def main(argv: list[str] | None = None) -> int:
    """Command line of this script (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("package")
    p.add_argument("--dist", type=Path, default=ROOT / "dist")
    p.add_argument("--out", type=Path, default=ROOT / "release")
    p.add_argument("--target", default=None, help="default: this OS and CPU")
    p = sub.add_parser("setup")
    p.add_argument("--onedir", type=Path, required=True)
    p.add_argument("--out", type=Path, default=ROOT / "release")
    p.add_argument("--makensis", default="makensis")
    for command in ("manifests", "stamp"):
        p = sub.add_parser(command)
        p.add_argument("--repo", required=True)
        p.add_argument("--out", type=Path, default=ROOT / "release")
        p.add_argument("--assets", type=Path, default=ROOT / "release")
    sub.add_parser("sums").add_argument("folder", type=Path)
    sub.add_parser("check-version").add_argument("--tag", required=True)
    sub.add_parser("major-tag").add_argument("--tag", required=True)
    p = sub.add_parser("notes")
    p.add_argument("--repo", required=True)
    p.add_argument("--tag", required=True)
    args = parser.parse_args(argv)

    if args.command == "package":
        for asset in package(args.dist, args.out, args.target or target_name()):
            print(asset)
    elif args.command == "setup":
        print(build_setup(args.onedir, args.out, makensis=args.makensis))
    elif args.command == "manifests":
        for path in write_manifests(manifest_values(args.repo, args.assets, version()), args.out):
            print(path)
    elif args.command == "stamp":
        args.out.mkdir(parents=True, exist_ok=True)
        for name in INSTALL_SCRIPTS:
            text = (INSTALLER / name).read_text(encoding="utf-8")
            stamped = stamp(text, repo=args.repo, tag=f"v{version()}")
            (args.out / name).write_text(stamped, encoding="utf-8", newline="")
            print(args.out / name)
    elif args.command == "sums":
        print(write_sums(args.folder))
    elif args.command == "major-tag":
        print(major_tag(args.tag) or "")
    elif args.command == "notes":
        print(release_notes(args.repo, args.tag), end="")
    elif args.tag.removeprefix("v") != version():
        print(f"release: tag {args.tag} does not match jlgcli {version()}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
