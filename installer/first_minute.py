"""A released exe's first minute, as a user meets it (issue 35): the release workflow runs it
on every target against the unzipped release zip; the frozen tests run it here.

    python installer/first_minute.py --exe path/to/jlgcli[.exe]

``--version``, ``demo``, ``doctor`` and a ``loop`` with the fake claude of
``tests/fakes`` first on PATH (on Windows through a ``.cmd`` shim, as npm
installs the real one), in a temporary HOME, config dir and project. Exits 1 at
the first step that does not do what a user expects, saying which.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAKE_CLAUDE = ROOT / "tests" / "fakes" / "claude.py"
TASK = ROOT / "examples" / "quickstart" / "task.md"


def fake_claude(bin_dir: Path, *, windows: bool = os.name == "nt") -> Path:
    """A ``claude`` on PATH that runs the fake: a ``.cmd`` shim on Windows, sh elsewhere."""
    python = sys.executable
    bin_dir.mkdir(parents=True, exist_ok=True)
    if windows:
        shim = bin_dir / "claude.cmd"
        shim.write_text(f'@"{python}" "{FAKE_CLAUDE}" %*\r\n', encoding="utf-8")
        return shim
    shim = bin_dir / "claude"
    shim.write_text(f'#!/bin/sh\nexec "{python}" "{FAKE_CLAUDE}" "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    return shim


def user_environment(home: Path, bin_dir: Path) -> dict[str, str]:
    """The environment of a new user: a fresh HOME and config dir, the fake claude first."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JLGCLI_", "COVERAGE_"))}
    for name in ("HOME", "USERPROFILE"):
        env[name] = str(home)
    env["APPDATA"] = str(home / "AppData" / "Roaming")
    env["LOCALAPPDATA"] = str(home / "AppData" / "Local")
    env["XDG_CONFIG_HOME"] = str(home / ".config")
    env["JLGCLI_CONFIG_DIR"] = str(home / "jlgcli-config")
    env["PATH"] = os.pathsep.join([str(bin_dir), env.get("PATH", "")])
    env["NO_COLOR"] = "1"
    return env


def first_minute(exe: Path, work: Path) -> list[str]:
    """Run each step; what went wrong (empty: all good)."""
    home, project = work / "home", work / "project"
    home.mkdir(parents=True)
    project.mkdir()
    fake_claude(work / "bin")
    env = user_environment(home, work / "bin")
    shutil.copy(TASK, project / "task.md")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        print("$ jlgcli", " ".join(args), flush=True)
        done = subprocess.run([str(exe), *args], cwd=project, env=env, capture_output=True,
                              encoding="utf-8", errors="replace", timeout=300)  # fmt: skip
        print(done.stdout + done.stderr, flush=True)
        return done

    problems = []
    version = run("--version")
    if version.returncode != 0 or not version.stdout.startswith("jlgcli "):
        problems.append(f"--version: exit {version.returncode}, {version.stdout!r}")
    demo = run("demo", "-q")
    if demo.returncode != 0:
        problems.append(f"demo: exit {demo.returncode}")
    doctor = run("doctor")
    if doctor.returncode != 0 or "standalone executable" not in doctor.stdout + doctor.stderr:
        problems.append(f"doctor: exit {doctor.returncode} (the fake claude is on PATH)")
    loop = run("loop", "task.md", "--backend", "claude", "--max-iterations", "3", "--json", "-q")
    summary = json.loads(loop.stdout or "{}") if loop.stdout.strip().startswith("{") else {}
    if loop.returncode != 0 or summary.get("status") != "done":
        status = summary.get("status")
        problems.append(f"loop with the fake claude: exit {loop.returncode}, status {status}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exe", type=Path, required=True)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="jlgcli-first-minute-") as work:
        problems = first_minute(args.exe.resolve(), Path(work))
    for problem in problems:
        print(f"first minute: {problem}", file=sys.stderr)
    print("first minute: " + ("FAILED" if problems else "ok"), file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
