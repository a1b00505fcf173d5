"""Start-up time of the installed console script, as ratios to ``python -c pass``.

Runs every command interleaved (round-robin), so machine noise hits them
alike, and prints medians and ratios. Targets (issue 18): ``--version`` ≤ 1.8×,
``--help`` and ``run --help`` ≤ 3×, ``config get backend`` ≤ 3×, ``backends`` with
no agent CLI on PATH ≤ 5× ``python -c pass``.

    python benchmarks/startup.py [--rounds 30] [--frozen DIR_OR_EXE ...] [--compare EXE]

``--compare EXE`` times another installed jlgcli (a ``pip install .`` of another tree) in
the same rounds, each command next to this one's, and prints its figures and the paired
ratio: the median, over rounds, of this jlgcli's time over the other's, in wall and in CPU
time (the process's user + system time, steadier on a busy machine).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {
    "jlgcli --version": 1.8,
    "jlgcli --help": 3.0,
    "jlgcli run --help": 3.0,
    "jlgcli config get backend": 3.0,
    "jlgcli backends (no agent CLI)": 5.0,
}


def _editable_install() -> bool:
    """Whether this Python's jlgcli is an editable install (PEP 610 ``direct_url.json``)."""
    import json
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        text = distribution("jlgcli").read_text("direct_url.json")
    except PackageNotFoundError:
        return False
    return bool(text) and bool(json.loads(text).get("dir_info", {}).get("editable"))


def _time(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one run of ``argv``."""
    started = time.perf_counter()
    # `backends` exits 2 when no backend is available: only the time matters here.
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, usage = os.wait4(child.pid, 0)
    child.returncode = 0  # reaped above
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def _paired(ours: list[float], theirs: list[float]) -> str:
    ratios = [a / b for a, b in zip(ours, theirs, strict=True) if b > 0]
    if not ratios:
        return "-"
    return f"{statistics.median(ratios):.3f} ({min(ratios):.2f} … {max(ratios):.2f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument(
        "--frozen",
        action="append",
        default=[],
        metavar="EXE",
        help="a frozen jlgcli executable to time too (onedir or onefile)",
    )
    parser.add_argument(
        "--compare",
        metavar="EXE",
        help="another installed jlgcli to time in the same rounds (paired ratios)",
    )
    args = parser.parse_args()

    script = shutil.which("jlgcli", path=str(Path(sys.executable).parent)) or shutil.which("jlgcli")
    if script is None:
        sys.exit("jlgcli is not installed next to this Python: pip install -e .")
    env = dict(os.environ)
    env["JLGCLI_CONFIG_DIR"] = tempfile.mkdtemp(prefix="jlgcli-bench-")
    # No agent CLI on PATH: only the directory holding this Python (and jlgcli).
    env["PATH"] = str(Path(script).parent)
    commands: dict[str, list[str]] = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "jlgcli --version": [script, "--version"],
        "jlgcli --help": [script, "--help"],
        "jlgcli run --help": [script, "run", "--help"],
        "jlgcli config get backend": [script, "config", "get", "backend"],
        "jlgcli backends (no agent CLI)": [script, "backends"],
    }
    for exe in args.frozen:
        commands[f"frozen {Path(exe).name} --version"] = [exe, "--version"]
    if args.compare:
        ours = [name for name in commands if name.startswith("jlgcli ")]
        for name in ours:  # each right after this jlgcli's, so both see the same moment
            commands[f"compare{name[len('jlgcli') :]}"] = [args.compare, *commands[name][1:]]
    samples: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for argv in commands.values():  # warm the page cache once
        _time(argv, env)
    for _ in range(args.rounds):
        for name, argv in commands.items():
            wall, used = _time(argv, env)
            samples[name].append(wall)
            cpu[name].append(used)

    base = statistics.median(samples["python -c pass"])
    if _editable_install():
        # Its import hook (a .pth run by site) slows `python -c pass` as much as jlgcli:
        # ~30 ms against ~15 ms here, so every ratio below reads too low.
        print("warning: jlgcli is an editable install here; time a `pip install .` in a "
              "fresh venv instead (the baseline is inflated, the ratios flattered)")  # fmt: skip
    print(f"{'command':34} {'median':>9} {'ratio':>7} {'target':>11} {'CPU':>8}")
    failed = False
    for name, values in samples.items():
        median = statistics.median(values)
        ratio = median / base
        target = TARGETS.get(name)
        if target is None and name.startswith("frozen") and "onefile" not in name:
            target = 7.0  # a minimal PyInstaller onedir app is ≈ 6.6× here
        mark = ""
        if target is not None:
            mark = f"≤{target:g}×" + (" ok" if ratio <= target else " MISSED")
            failed |= ratio > target
        cpu_ms = statistics.median(cpu[name]) * 1000
        print(f"{name:34} {median * 1000:8.1f}ms {ratio:6.2f}× {mark:>11} {cpu_ms:6.1f}ms")
    if args.compare:
        print(f"\nthis jlgcli ÷ {args.compare}, paired: median over rounds (min … max)")
        for name in (name for name in commands if name.startswith("jlgcli ")):
            other = f"compare{name[len('jlgcli') :]}"
            wall = _paired(samples[name], samples[other])
            used = _paired(cpu[name], cpu[other])
            print(f"{name:34} wall {wall:24} CPU {used}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
