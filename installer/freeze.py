"""Build the standalone jlgcli with PyInstaller on the current OS (``invoke freeze`` runs this).

    python installer/freeze.py [--onefile] [--dist DIR] [--work DIR]

Output: ``DIST/jlgcli/jlgcli[.exe]`` (onedir: what the zip and the setup
program ship) and, with ``--onefile``, ``DIST/jlgcli-onefile[.exe]``. Needs
PyInstaller (``pip install -e '.[freeze]'``) and jlgcli installed in the same
Python (its metadata is copied into the build).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "installer" / "jlgcli.spec"


def exe_name(stem: str, *, is_windows: bool | None = None) -> str:
    """``jlgcli`` → ``jlgcli.exe`` on Windows."""
    is_windows = sys.platform == "win32" if is_windows is None else is_windows
    return f"{stem}.exe" if is_windows else stem


def onedir_exe(dist: Path, *, is_windows: bool | None = None) -> Path:
    """Where the onedir build's executable is under ``dist``."""
    return dist / "jlgcli" / exe_name("jlgcli", is_windows=is_windows)


def onefile_exe(dist: Path, *, is_windows: bool | None = None) -> Path:
    """Where the onefile build's executable is under ``dist``."""
    return dist / exe_name("jlgcli-onefile", is_windows=is_windows)


def pyinstaller_argv(dist: Path, work: Path, *, onefile: bool, python: str) -> list[str]:
    """The PyInstaller command line (argv only, no shell)."""
    argv = [python, "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN",
            "--distpath", str(dist), "--workpath", str(work), str(SPEC)]  # fmt: skip
    if onefile:
        argv += ["--", "--onefile"]
    return argv


def freeze(dist: Path, work: Path, *, onefile: bool = False) -> Path:
    """Build into ``dist`` (intermediate files in ``work``); returns the onedir executable."""
    subprocess.run(pyinstaller_argv(dist, work, onefile=onefile, python=sys.executable),
                   cwd=ROOT, check=True)  # fmt: skip
    exe = onedir_exe(dist)
    if not exe.is_file() or (onefile and not onefile_exe(dist).is_file()):
        raise SystemExit(f"freeze: PyInstaller finished but {exe} is missing")
    return exe


def main(argv: list[str] | None = None) -> int:
    """Command line of this script."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--onefile", action="store_true", help="also build the one-file exe")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="output dir (dist/)")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "pyinstaller",
                        help="PyInstaller's work dir (build/pyinstaller/)")  # fmt: skip
    args = parser.parse_args(argv)
    try:
        exe = freeze(args.dist.resolve(), args.work.resolve(), onefile=args.onefile)
    except subprocess.CalledProcessError as exc:
        print(f"freeze: PyInstaller failed (exit {exc.returncode})", file=sys.stderr)
        return 1
    print(f"built {exe}")
    if args.onefile:
        print(f"built {onefile_exe(args.dist.resolve())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
