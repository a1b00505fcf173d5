"""From ``jlgcli run`` starting to the agent CLI being spawned, against spawning it directly.

Issue 34: every run waited for ``claude auth status`` (~0.42–0.50 s with the real claude)
before its first call. ``run``/``loop`` now start the call at once and read an auth
failure from the call itself. This script times, in the same interleaved rounds:

(a) ``jlgcli run task.md -b claude`` from its start to the moment ``claude -p`` begins;
(b) starting ``claude -p`` directly, from ``Popen`` to the same moment.

The moment is stamped by a shim named ``claude`` first on PATH: for ``-p`` it writes the
time and answers one stream-json result (no prompt ever reaches a model); anything else
(``--version``, ``auth status``) runs the real claude when one is installed, else the
suite's fake. The figure is the median over rounds of each round's own (a − b), paired.

Each round also times ``jlgcli --version`` (the interpreter and jlgcli's start),
``claude --version`` (the one probe a run still makes, unless npm's package.json gives
the version) and ``claude auth status`` (the probe a run no longer waits for). jlgcli's
own work before the spawn is (a − b) minus the first two.

    python benchmarks/agent_spawn.py [--rounds 15] [--jlgcli EXE] [--compare SRC]

``--compare SRC``: also time the jlgcli whose source tree is SRC (e.g. the tree before
issue 34: ``git archive b8f2d67 | tar -x -C /tmp/before``), run by this interpreter with
``PYTHONPATH=SRC``, in the same rounds.

Compile first (``python -m compileall -q jlgcli``); time an installed jlgcli
(``--jlgcli VENV/bin/jlgcli``): an editable install's import hook adds ~10 ms per start.
Target: jlgcli's own work before the spawn ≤ 200 ms.
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

REPO = Path(__file__).resolve().parents[1]
TARGET_MS = 200.0
RESULT = (
    '{"type":"result","subtype":"success","is_error":false,"result":"ok",'
    '"session_id":"00000000-0000-0000-0000-000000000000","total_cost_usd":0}'
)


def _shim(bin_dir: Path, stamp: Path) -> str:
    """The ``claude`` shim; returns what it runs for anything but ``-p``."""
    real = shutil.which("claude")
    other = f'"{real}"' if real else f'"{sys.executable}" "{REPO / "tests/fakes/claude.py"}"'
    shim = bin_dir / "claude"
    shim.write_text(
        "#!/bin/sh\n"
        f'case "$1" in -p) date +%s%N >> "{stamp}"; cat > /dev/null; '
        f"echo '{RESULT}'; exit 0;; esac\n"
        f'exec {other} "$@"\n',
        encoding="utf-8",
    )
    shim.chmod(0o755)
    return real or "the suite's fake claude (no real claude on PATH)"


def _last_stamp(stamp: Path) -> float:
    return int(stamp.read_text(encoding="utf-8").split()[-1]) / 1e9


def _wall(argv: list[str], work: Path, env: dict[str, str]) -> float:
    started = time.monotonic()
    subprocess.run(argv, cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True)
    return (time.monotonic() - started) * 1000


def _through(jlgcli: list[str], work: Path, stamp: Path, env: dict[str, str]) -> float:
    started = time.time()
    subprocess.run([*jlgcli, "run", "task.md", "-b", "claude", "-q"], cwd=work, env=env,
                   stdin=subprocess.DEVNULL, capture_output=True, check=True)  # fmt: skip
    return (_last_stamp(stamp) - started) * 1000


def _round(
    jlgcli: list[str], work: Path, stamp: Path, env: dict[str, str], other: dict[str, str] | None
) -> tuple[float, ...]:
    through_jlgcli = _through(jlgcli, work, stamp, env)
    compared = _through([sys.executable, "-m", "jlgcli"], work, stamp, other) if other else 0.0
    argv = ["claude", "-p", "--output-format", "stream-json", "--verbose"]
    started = time.time()
    subprocess.run(argv, cwd=work, env=env, input=b"say ok", capture_output=True, check=True)
    direct = _last_stamp(stamp) - started
    return (
        through_jlgcli,
        direct * 1000,
        _wall([*jlgcli, "--version"], work, env),
        _wall(["claude", "--version"], work, env),
        _wall(["claude", "auth", "status"], work, env),
        compared,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--jlgcli", default=shutil.which("jlgcli") or "jlgcli")
    parser.add_argument("--compare", metavar="SRC", help="another jlgcli source tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        bin_dir, work = root / "bin", root / "work"
        bin_dir.mkdir()
        work.mkdir()
        (work / "task.md").write_text("Say ok.\n", encoding="utf-8")
        stamp = root / "stamps"
        probes = _shim(bin_dir, stamp)
        env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
        env["JLGCLI_CONFIG_DIR"] = str(root / "config")
        other = dict(env, PYTHONPATH=str(Path(args.compare).resolve())) if args.compare else None
        jlgcli = [args.jlgcli]
        _round(jlgcli, work, stamp, env, other)  # warm the caches once
        rounds = [_round(jlgcli, work, stamp, env, other) for _ in range(args.rounds)]

    def median(index: int) -> float:
        return statistics.median(r[index] for r in rounds)

    overhead = statistics.median(r[0] - r[1] for r in rounds)
    own = statistics.median(r[0] - r[1] - r[2] - r[3] for r in rounds)
    print(f"probes answered by: {probes}")
    print(f"jlgcli start to agent spawn:  {median(0):.0f} ms (median of {args.rounds} rounds)")
    print(f"spawning the CLI directly:    {median(1):.0f} ms")
    print(f"jlgcli before the spawn:      {overhead:.0f} ms (paired median)")
    print(f"  of which jlgcli --version:  {median(2):.0f} ms, claude --version: {median(3):.0f} ms")
    print(f"  jlgcli's own work:          {own:.0f} ms (paired; target ≤ {TARGET_MS:g})")
    print(f"no longer waited for: claude auth status, {median(4):.0f} ms")
    if args.compare:
        saved = statistics.median(r[5] - r[0] for r in rounds)
        print(f"--compare {args.compare}: start to spawn {median(5):.0f} ms, {saved:.0f} ms later")
    return 0 if own <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
