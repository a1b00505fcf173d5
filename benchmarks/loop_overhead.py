"""Per-iteration overhead of ``jlgcli loop`` over the backend it drives.

Same invocation, interleaved rounds: (a) ``jlgcli loop`` of 20 iterations against the fake
``claude`` (tests/fakes), (b) 20 direct runs of that fake with the same flags and a prompt on
stdin. Overhead per iteration = (a − b) / 20. Target (issue 18): ≤ 15 ms per iteration.

    python benchmarks/loop_overhead.py [--rounds 5] [--iterations 20]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _launcher(bin_dir: Path) -> None:
    launcher = bin_dir / "claude"
    launcher.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" "{REPO / "tests/fakes/claude.py"}" "$@"\n', "utf-8"
    )
    launcher.chmod(0o755)


def _script(work: Path, iterations: int) -> Path:
    turns = [
        {"text": f"step {i}: progress on a different part " * (i + 1)} for i in range(1, iterations)
    ]
    turns.append({"text": "all done\nDONE"})
    path = work / "script.json"
    path.write_text(json.dumps({"turns": turns, "repeat_last": True}), "utf-8")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=20)
    args = parser.parse_args()
    jlgcli = shutil.which("jlgcli", path=str(Path(sys.executable).parent))
    if jlgcli is None:
        sys.exit("install jlgcli next to this Python first: pip install -e .")
    work = Path(tempfile.mkdtemp(prefix="jlgcli-bench-loop-"))
    bin_dir = work / "bin"
    bin_dir.mkdir()
    _launcher(bin_dir)
    (work / "task.md").write_text("Benchmark task.\n", "utf-8")
    env = dict(
        os.environ,
        PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        JLGCLI_CONFIG_DIR=str(work / "cfg"),
        HOME=str(work),
    )
    loop_times, direct_times = [], []
    for _ in range(args.rounds):
        script = _script(work, args.iterations)
        (work / "script.json.state").unlink(missing_ok=True)
        shutil.rmtree(work / "script.json.prompts", ignore_errors=True)
        env["JLGCLI_FAKE_SCRIPT"] = str(script)
        started = time.perf_counter()
        result = subprocess.run(
            [
                jlgcli,
                "loop",
                "task.md",
                "-b",
                "claude",
                "-q",
                "-n",
                str(args.iterations),
                "--no-progress-limit",
                "100",
            ],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
        )
        loop_times.append(time.perf_counter() - started)
        if result.returncode != 0:
            sys.exit(f"loop failed ({result.returncode}): {result.stderr[-2000:]}")

        (work / "script.json.state").unlink(missing_ok=True)
        started = time.perf_counter()
        for _ in range(args.iterations):
            subprocess.run(
                [str(bin_dir / "claude"), "-p", "--output-format", "stream-json", "--verbose"],
                cwd=work,
                env=env,
                input="Benchmark task.\n",
                capture_output=True,
                text=True,
                check=True,
            )
        direct_times.append(time.perf_counter() - started)

    loop_s, direct_s = statistics.median(loop_times), statistics.median(direct_times)
    per_iteration_ms = (loop_s - direct_s) / args.iterations * 1000
    print(
        f"loop of {args.iterations} iterations   {loop_s * 1000:8.1f} ms (median of {args.rounds})"
    )
    print(f"{args.iterations} direct fake runs     {direct_s * 1000:8.1f} ms")
    print(
        f"overhead per iteration  {per_iteration_ms:8.1f} ms   target ≤ 15 ms "
        + ("ok" if per_iteration_ms <= 15 else "MISSED")
    )
    shutil.rmtree(work, ignore_errors=True)
    return 0 if per_iteration_ms <= 15 else 1


if __name__ == "__main__":
    sys.exit(main())
