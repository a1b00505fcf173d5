"""One-shot ``run`` against the original Node jlgcli, same fake agent CLI (issue 18).

The original ``@jlguenego/ai-cli`` (github.com/jlguenego/ai-cli, folder
``project/``; TypeScript on Node 20) drives ``codex`` and ``copilot`` only. Both
programs run ``run <prompt file> -b codex`` with their default settings against
the same fake ``codex``, interleaved round by round; the figure is the ratio of
the medians. Target: jlgcli ≤ 0.6× the Node program. Two fakes, both reported:

- ``sh``: a few lines of POSIX sh printing codex's answers (``--version``,
  ``login status``, ``exec --json`` events; backends.md §2-3). Each call costs
  ~2 ms, so the ratio compares the two programs' own costs (start-up, probes,
  parsing, files), as a native ``codex`` binary would.
- ``python``: the test suite's ``tests/fakes/codex.py`` behind a shell
  launcher, run with ``python -S`` as the suite's launchers do. Each call
  costs a Python start (~30 ms here): the Node program makes three
  (``--version`` twice, then the call, one after the other), jlgcli three
  (``--version`` and ``login status`` side by side, then ``exec``).

The Node program calls ``codex`` with no arguments and the prompt on stdin (its
``runOnce``); jlgcli calls ``codex exec --json …``. Both fakes answer the bare
call as ``exec`` would, so both programs get the same answer.

Build the Node program first (needs Node >= 20 and npm's registry)::

    git clone https://github.com/jlguenego/ai-cli /tmp/ai-cli
    (cd /tmp/ai-cli/project && npm ci && npm run build)
    python benchmarks/oneshot.py --node-cli /tmp/ai-cli/project/dist/cli.js [--rounds 15]

Without ``--node-cli`` only ``--compare`` is timed (no Node needed).

Time an installed jlgcli (``pip install .``, as the README's first command does),
not an editable one: the editable install's import hook adds ~10 ms per start.
``--compare OTHER/bin/jlgcli`` times a second installed jlgcli (another commit, a
change being tried) in the same rounds, so the two can be compared while the
machine's speed drifts (on this machine kind, Node's own run moved from 183 to 327 ms
within an hour).
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
PYTHON_FAKE = """#!/bin/sh
# The Node jlgcli calls bare `codex` with the prompt on stdin: give it the exec path.
if [ "$#" -eq 0 ]; then set -- exec --skip-git-repo-check -; fi
exec "{python}" -S "{fake}" "$@"
"""
# codex-cli 0.169.0's answers (research/backends.md §2, §3): version, login, exec --json.
SH_FAKE = r"""#!/bin/sh
case "$1" in
  --version) echo "codex-cli 0.169.0"; exit 0 ;;
  login) echo "Logged in using ChatGPT"; exit 0 ;;
esac
cat > /dev/null
if [ "$1" != exec ]; then echo "fake answer: hello"; exit 0; fi
echo '{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}'
echo '{"type":"turn.started"}'
echo '{"type":"item.completed","item":{"id":"item_0",'\
'"type":"agent_message","text":"fake answer: hello"}}'
echo '{"type":"turn.completed","usage":{"input_tokens":1200,'\
'"cached_input_tokens":200,"output_tokens":34}}'
"""


def _fake_codex(bin_dir: Path, kind: str) -> None:
    launcher = bin_dir / "codex"
    fake = REPO / "tests" / "fakes" / "codex.py"
    text = SH_FAKE if kind == "sh" else PYTHON_FAKE.format(python=sys.executable, fake=fake)
    launcher.write_text(text, "utf-8")
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


def measure(
    node_argv: list[str] | None, jlgcli: str, kind: str, rounds: int, compare: str | None = None
) -> tuple[dict[str, float], float | None]:
    """Median seconds of each program's one-shot run against the ``kind`` fake, and the
    median over rounds of jlgcli's time over the compared one's in the same round (paired)."""
    work = Path(tempfile.mkdtemp(prefix="jlgcli-bench-oneshot-"))
    (work / "bin").mkdir()
    _fake_codex(work / "bin", kind)
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
    variants = {"jlgcli": [jlgcli, "run", "task.md", "-b", "codex"]}
    if node_argv is not None:
        variants["Node jlgcli"] = [*node_argv, "run", "task.md", "-b", "codex"]
    if compare is not None:
        variants["compared"] = [compare, "run", "task.md", "-b", "codex"]
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for argv in variants.values():  # warm the page cache once
        _run(argv, work, env)
    for round_number in range(rounds):
        order = list(variants.items())
        for name, argv in order[:: -1 if round_number % 2 else 1]:
            samples[name].append(_run(argv, work, env))
    shutil.rmtree(work, ignore_errors=True)
    paired = None
    if compare is not None:
        pairs = zip(samples["jlgcli"], samples["compared"], strict=True)
        paired = statistics.median(ours / theirs for ours, theirs in pairs)
    return {name: statistics.median(values) for name, values in samples.items()}, paired


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--node-cli", help="the Node program's dist/cli.js (else not timed)")
    parser.add_argument("--jlgcli", help="the jlgcli to time (default: next to this Python)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--fake", choices=("sh", "python"), action="append")
    parser.add_argument("--compare", help="a second jlgcli to time in the same rounds")
    args = parser.parse_args()
    node = shutil.which("node")
    jlgcli = args.jlgcli or shutil.which("jlgcli", path=str(Path(sys.executable).parent))
    if jlgcli is None:
        sys.exit("needs jlgcli next to this Python, or --jlgcli EXE")
    if args.node_cli is not None and (node is None or not Path(args.node_cli).is_file()):
        sys.exit("--node-cli needs node on PATH and the Node program's dist/cli.js")
    if args.node_cli is None and args.compare is None:
        sys.exit("nothing to compare with: give --node-cli, --compare or both")
    if args.compare is not None and not Path(args.compare).is_file():
        sys.exit(f"--compare: no such program: {args.compare}")
    node_argv = None if args.node_cli is None else [str(node), str(Path(args.node_cli).resolve())]
    missed = False
    for kind in args.fake or ["sh", "python"]:
        medians, paired = measure(node_argv, jlgcli, kind, args.rounds, args.compare)
        line = f"{kind:6s} fake: jlgcli {medians['jlgcli'] * 1000:6.1f} ms"
        if "Node jlgcli" in medians:
            ratio = medians["jlgcli"] / medians["Node jlgcli"]
            missed |= ratio > TARGET
            line += (
                f", Node jlgcli {medians['Node jlgcli'] * 1000:6.1f} ms (medians of {args.rounds}):"
                f" {ratio:.2f}×   target ≤ {TARGET}×: {'MISSED' if ratio > TARGET else 'ok'}"
            )
        print(line)
        if paired is not None:
            print(
                f"{'':6s}       compared: {medians['compared'] * 1000:6.1f} ms in the same rounds;"
                f" this jlgcli / compared, paired (median of {args.rounds} rounds): {paired:.2f}×"
            )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
