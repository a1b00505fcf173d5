"""One-shot ``run`` against the original Node jlgcli, same fake agent CLI (issue 18).

The original ``@jlguenego/ai-cli`` (github.com/jlguenego/ai-cli, folder
``project/``; TypeScript on Node 20) drives ``codex`` and ``copilot`` only. Both
programs here run ``run <prompt file> -b codex`` against the same fake ``codex``
(``tests/fakes/codex.py`` behind a shell launcher), with their default settings,
interleaved round by round; the figure is the ratio of the medians. Target: jlgcli
≤ 0.6× the Node program.

The Node program calls ``codex`` with no arguments and the prompt on stdin (its
``runOnce``); jlgcli calls ``codex exec --json …``. The launcher maps the bare call
to ``exec --skip-git-repo-check -``, so both get the same fake answer.

Build the Node program first (needs Node >= 20 and npm's registry)::

    git clone https://github.com/jlguenego/ai-cli /tmp/ai-cli
    (cd /tmp/ai-cli/project && npm ci && npm run build)
    python benchmarks/oneshot.py --node-cli /tmp/ai-cli/project/dist/cli.js [--rounds 15]
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
TARGET = 0.6
LAUNCHER = """#!/bin/sh
# The Node jlgcli calls bare `codex` with the prompt on stdin: give it the exec path.
if [ "$#" -eq 0 ]; then set -- exec --skip-git-repo-check -; fi
exec "{python}" "{fake}" "$@"
"""


def _fake_codex(bin_dir: Path) -> None:
    launcher = bin_dir / "codex"
    fake = REPO / "tests" / "fakes" / "codex.py"
    launcher.write_text(LAUNCHER.format(python=sys.executable, fake=fake), "utf-8")
    launcher.chmod(0o755)


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    result = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"{argv[:2]} failed ({result.returncode}): {result.stderr[-2000:]}")
    if "fake answer" not in result.stdout + result.stderr:
        sys.exit(f"{argv[:2]} did not show the agent's answer:\n{result.stdout[-2000:]}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--node-cli", required=True, help="the Node program's dist/cli.js")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    node = shutil.which("node")
    jlgcli = shutil.which("jlgcli", path=str(Path(sys.executable).parent))
    if node is None or jlgcli is None or not Path(args.node_cli).is_file():
        sys.exit("needs node on PATH, jlgcli next to this Python and --node-cli dist/cli.js")

    work = Path(tempfile.mkdtemp(prefix="jlgcli-bench-oneshot-"))
    (work / "bin").mkdir()
    _fake_codex(work / "bin")
    (work / "task.md").write_text("Say hello.\n", "utf-8")
    script = work / "script.json"
    script.write_text('{"turns": [{"text": "fake answer: hello"}], "repeat_last": true}', "utf-8")
    env = dict(
        os.environ,
        PATH=f"{work / 'bin'}{os.pathsep}{os.environ['PATH']}",
        HOME=str(work),
        USERPROFILE=str(work),
        JLGCLI_CONFIG_DIR=str(work / "cfg"),
        XDG_CONFIG_HOME=str(work / ".config"),
        XDG_CACHE_HOME=str(work / ".cache"),
        JLGCLI_FAKE_SCRIPT=str(script),
        NO_COLOR="1",
    )
    variants = {
        "Node jlgcli": [node, str(Path(args.node_cli).resolve()), "run", "task.md", "-b", "codex"],
        "jlgcli (this tree)": [jlgcli, "run", "task.md", "-b", "codex"],
    }
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for argv in variants.values():  # warm the page cache once
        _run(argv, work, env)
    for round_number in range(args.rounds):
        order = list(variants.items())
        for name, argv in order[:: -1 if round_number % 2 else 1]:
            samples[name].append(_run(argv, work, env))
    shutil.rmtree(work, ignore_errors=True)

    medians = {name: statistics.median(values) for name, values in samples.items()}
    for name, median in medians.items():
        print(f"{name:20s} {median * 1000:8.1f} ms (median of {args.rounds})")
    ratio = medians["jlgcli (this tree)"] / medians["Node jlgcli"]
    verdict = "ok" if ratio <= TARGET else "MISSED"
    print(f"jlgcli / Node jlgcli: {ratio:.2f}×   target ≤ {TARGET}×: {verdict}")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
