"""Fan-out of ``jlgcli loop TASK... -j N`` (issue 37): wall time and memory per task.

Same invocation, interleaved rounds: (a) ``jlgcli loop`` of 8 tasks with ``-j 4``, each
one call of the fake ``claude`` that takes 2 s (tests/fakes, ``delay_seconds``), in a git
repository; (b) a single ``jlgcli loop`` of one such task. The ideal batch is 2 rounds of
calls (8 tasks / 4 at a time × 2 s = 4 s); paired, the batch is also compared with 2 × the
single loop of the same round (what the batch would cost with no scheduling overhead).
Memory: the peak, sampled every 50 ms, of the unique set size (USS, psutil) of every
jlgcli process (parent and task children, not the fake agents), for the batch and for
the single loop; "extra per task" is (batch − single) / 4 running tasks.

    python benchmarks/fanout.py [--rounds 3] [--tasks 8] [--jobs 4] [--delay 2]

Targets (issue 37): batch wall ≤ ideal + 1 s; extra memory ≤ 10 MB per task.
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
import threading
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
GIT_ID = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com",
          "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com"}  # fmt: skip


def _setup(work: Path, tasks: int, delay: float) -> tuple[dict[str, str], list[str], Path]:
    bin_dir = work / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "claude"
    launcher.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" -S "{REPO / "tests/fakes/claude.py"}" "$@"\n', "utf-8"
    )
    launcher.chmod(0o755)
    scripts = work / "scripts"
    scripts.mkdir()
    names = [f"t{i}" for i in range(tasks)] + ["single"]
    for name in names:
        turn = {"text": f"{name} done\nDONE", "delay_seconds": delay, "files": {name: name}}
        (scripts / f"{name}.json").write_text(json.dumps({"turns": [turn]}), "utf-8")
        (work / f"{name}.md").write_text(f"Task {name}.\nfake-script: {name}\n", "utf-8")
    home = work / "home"
    home.mkdir()
    env = {**os.environ, **GIT_ID, "HOME": str(home), "JLGCLI_CONFIG_DIR": str(home / "cfg"),
           "JLGCLI_FAKE_SCRIPT": str(scripts), "NO_COLOR": "1",
           "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}  # fmt: skip
    return env, [str(work / f"{n}.md") for n in names[:-1]], work / "single.md"


def _repo(work: Path, env: dict[str, str], n: int) -> Path:
    repo = work / f"repo{n}"
    repo.mkdir()
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "init"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    return repo


def _timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and the peak USS (MB) summed over the jlgcli processes of the run."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    peak = [0.0]
    stop = threading.Event()

    def sample() -> None:
        root = psutil.Process(proc.pid)
        while not stop.is_set():
            total = 0
            try:
                for p in [root, *root.children(recursive=True)]:
                    try:
                        if any("jlgcli" in part for part in p.cmdline()[:3]):
                            total += p.memory_full_info().uss
                    except psutil.Error:
                        pass
            except psutil.Error:
                pass
            peak[0] = max(peak[0], total / 2**20)
            stop.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    code = proc.wait()
    wall = time.perf_counter() - start
    stop.set()
    sampler.join()
    if code != 0:
        raise SystemExit(f"{argv[:4]}… exited {code}")
    return wall, peak[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--delay", type=float, default=2.0)
    args = parser.parse_args()
    jlgcli = shutil.which("jlgcli") or sys.exit("jlgcli is not on PATH")
    ideal = -(-args.tasks // args.jobs) * args.delay
    batch_walls, single_walls, batch_mem, single_mem = [], [], [], []
    with tempfile.TemporaryDirectory() as temp:
        work = Path(temp)
        env, tasks, single = _setup(work, args.tasks, args.delay)
        for n in range(args.rounds):
            repo = _repo(work, env, n)
            wall, mem = _timed([jlgcli, "loop", *tasks, "-j", str(args.jobs), "-b", "claude"],
                               repo, env)  # fmt: skip
            batch_walls.append(wall)
            batch_mem.append(mem)
            wall, mem = _timed([jlgcli, "loop", str(single), "-b", "claude"], repo, env)
            single_walls.append(wall)
            single_mem.append(mem)
            print(f"round {n + 1}: batch {batch_walls[-1]:.2f} s ({batch_mem[-1]:.0f} MB), "
                  f"single {single_walls[-1]:.2f} s ({single_mem[-1]:.0f} MB)")  # fmt: skip
    rounds = -(-args.tasks // args.jobs)
    batch = statistics.median(batch_walls)
    paired = statistics.median(
        b - rounds * s for b, s in zip(batch_walls, single_walls, strict=True)
    )
    extra = (statistics.median(batch_mem) - statistics.median(single_mem)) / args.jobs
    print(f"batch of {args.tasks}, -j {args.jobs}: {batch:.2f} s; ideal {ideal:.1f} s "
          f"(+{batch - ideal:.2f} s, target ≤ +1 s)")  # fmt: skip
    print(f"paired: batch − {rounds} × single loop = {paired:+.2f} s (median of the rounds)")
    print(f"jlgcli memory (USS): batch {statistics.median(batch_mem):.0f} MB, single "
          f"{statistics.median(single_mem):.0f} MB; extra per running task {extra:.1f} MB "
          "(target ≤ 10 MB)")  # fmt: skip
    return 0 if batch - ideal <= 1.0 and extra <= 10.0 else 1


if __name__ == "__main__":
    sys.exit(main())
