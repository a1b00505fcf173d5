"""jlgcli against its peers on the same loop: per-iteration overhead, start-up, memory (issue 50).

Every tool drives one fake ``claude`` (tests/fakes, stream-json) that completes on the
20th call, in a git repository of its own, with its own HOME. Per round, interleaved
(the order alternates), for each tool:

* overhead per iteration = (its loop of 20 − 20 direct runs of the fake with the
  tool's own flags and prompt, read from the fake's record of its first call) / 20, in
  wall time and in CPU time (of each whole process tree, from ``wait4``: much steadier
  on a busy machine);
* start-up: ``<tool> --version`` against ``python -c pass`` in the same round (the
  Python jlgcli's console script runs on);
* memory (separate rounds, so that sampling ``/proc`` does not slow the timed ones): the
  peak PSS of the tool's own processes (its tree without the agent's), sampled every
  20 ms.

Each figure is paired per round, peer ÷ jlgcli (above 1.0: jlgcli is lighter), and the
median over rounds is printed. Linux only (``/proc``).

    python benchmarks/peers.py [--rounds 7] [--memory-rounds 3] [--jlgcli EXE]
                               [--peer-path DIR ...]

Peers, each from a package registry (none is a dependency of jlgcli):
* ralph-tui (npm; runs under bun, which npm's ``bun`` package ships):
  ``npm install ralph-tui bun``, then ``--peer-path node_modules/.bin``. It runs
  headless with its JSON tracker on a one-story ``prd.json`` and its claude agent in
  stream mode; the story completes when the reply holds ``<promise>COMPLETE</promise>``.
A peer that is not installed is said so, and the script still exits 0.

Time an installed jlgcli (``pip install .`` into a venv, then ``--jlgcli VENV/bin/jlgcli``):
an editable install's import hook adds ~10 ms to every start.
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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FAKE = REPO / "tests" / "fakes" / "claude.py"
AGENT = [str(FAKE).encode()]  # and the launcher's path, once made
RALPH_CONFIG = """\
defaultAgent = "claude"
defaultTracker = "json"
maxIterations = {iterations}
iterationDelay = 0
autoCommit = false
configVersion = "2.1"

[[agents]]
name = "claude"
plugin = "claude"
default = true

[agents.options]
printMode = "stream"
"""
RALPH_PRD = {
    "name": "bench",
    "description": "Benchmark",
    "branchName": "main",
    "userStories": [
        {
            "id": "US-001",
            "title": "Benchmark task",
            "description": "Benchmark task.",
            "acceptanceCriteria": ["done"],
            "priority": 1,
            "passes": False,
        }
    ],
}


@dataclass
class Tool:
    """One tool on the loop: how to run it, how to reset its project between rounds."""

    name: str
    program: str
    loop: list[str]
    project: Path
    reset: Callable[[Path], None]
    env: dict[str, str] = field(default_factory=dict)
    direct_argv: list[str] = field(default_factory=list)  # the fake's flags, as this tool ran it
    direct_prompt: str = ""
    direct_env: dict[str, str] = field(default_factory=dict)  # what the tool adds for its agent
    overhead_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)  # the same in CPU time (steadier)
    startup: list[float] = field(default_factory=list)  # × python -c pass, per round
    pss_mb: list[float] = field(default_factory=list)


def _git(cwd: Path, *args: str) -> None:
    who = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b"}  # fmt: skip
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, **who})  # fmt: skip


def _project(work: Path, name: str, files: dict[str, str]) -> Path:
    """A small git project: the tool's task files, and some source it could work on."""
    project = work / name
    (project / "src").mkdir(parents=True)
    for number in range(20):
        (project / "src" / f"module{number}.py").write_text(f"VALUE = {number}\n" * 50, "utf-8")
    for relative, text in files.items():
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text(text, "utf-8")
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "start")
    return project


def _script(work: Path, iterations: int) -> Path:
    """Different replies (no no-progress stop), the last one done for every tool."""
    turns = [{"text": f"step {i}: progress on a different part " * (i + 1)}
             for i in range(1, iterations)]  # fmt: skip
    turns.append({"text": "all done\n<promise>COMPLETE</promise>\nDONE"})
    path = work / "script.json"
    path.write_text(json.dumps({"turns": turns, "repeat_last": True}), "utf-8")
    (work / "script.json.state").unlink(missing_ok=True)
    shutil.rmtree(work / "script.json.prompts", ignore_errors=True)
    return path


def _reset_jlgcli(project: Path) -> None:
    shutil.rmtree(project / ".jlgcli", ignore_errors=True)


def _reset_ralph(project: Path) -> None:
    (project / "prd.json").write_text(json.dumps(RALPH_PRD), "utf-8")
    for name in ("iterations", "reports", "progress.md", "session.json", "session-meta.json",
                 "ralph.lock"):  # fmt: skip
        target = project / ".ralph-tui" / name
        shutil.rmtree(target, ignore_errors=True) if target.is_dir() else target.unlink(
            missing_ok=True
        )


def _tools(work: Path, args: argparse.Namespace, path: str) -> tuple[list[Tool], list[str]]:
    n = str(args.iterations)
    jlgcli = args.jlgcli or shutil.which("jlgcli", path=str(Path(sys.executable).parent))
    if jlgcli is None:
        sys.exit("no jlgcli: install it (pip install .) or give --jlgcli EXE")
    tools = [
        Tool("jlgcli", jlgcli,
             ["loop", "task.md", "-b", "claude", "-q", "-n", n, "--no-progress-limit", "100"],
             _project(work, "jlgcli", {"task.md": "Benchmark task.\n"}), _reset_jlgcli,
             {"JLGCLI_CONFIG_DIR": str(work / "jlgcli-config")}),
    ]  # fmt: skip
    missing = []
    ralph = shutil.which("ralph-tui", path=path)
    if ralph is None or shutil.which("bun", path=path) is None:
        missing.append("ralph-tui (npm install ralph-tui bun; then --peer-path node_modules/.bin)")
    else:
        files = {".ralph-tui/config.toml": RALPH_CONFIG.format(iterations=n)}
        tools.append(
            Tool(
                "ralph-tui",
                ralph,
                [
                    "run",
                    "--prd",
                    "prd.json",
                    "--headless",
                    "--iterations",
                    n,
                    "--delay",
                    "0",
                    "--no-notify",
                    "--no-sandbox",
                    "--no-setup",
                ],
                _project(work, "ralph-tui", files),
                _reset_ralph,
                direct_env={"IS_SANDBOX": "1"},
            )
        )  # with skipPermissions (its default)
    return tools, missing


def _spawn(
    argv: list[str],
    cwd: Path,
    env: dict[str, str],
    stdin: bytes = b"",
    on_start: Callable[[int], None] | None = None,
) -> tuple[float, float, bytes]:
    """Run ``argv`` to its end: wall time, CPU time of its whole tree (what it reaped), output."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # fmt: skip
    if on_start is not None:
        on_start(child.pid)
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write(stdin)
    child.stdin.close()
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - started
    if child.returncode != 0:
        sys.exit(f"{argv[0]} failed ({child.returncode}): {output[-2000:].decode()}")
    return elapsed, usage.ru_utime + usage.ru_stime, output


def _run_loop(tool: Tool, env: dict[str, str], sample: bool) -> tuple[float, float, float]:
    """The loop's wall and CPU time and (when ``sample``) the peak PSS of its own processes."""
    tool.reset(tool.project)
    peak = [0.0]
    stop = threading.Event()

    def start_sampling(pid: int) -> None:
        if sample:
            threading.Thread(target=_sample, args=(pid, peak, stop), daemon=True).start()

    try:
        wall, cpu, _ = _spawn(
            [tool.program, *tool.loop], tool.project, env, on_start=start_sampling
        )
    finally:
        stop.set()
    return wall, cpu, peak[0]


def _sample(root: int, peak: list[float], stop: threading.Event) -> None:
    while not stop.wait(0.02):
        peak[0] = max(peak[0], _own_pss_kb(root) / 1024)


def _own_pss_kb(root: int) -> int:
    """PSS of ``root`` and its descendants, less the agent's subtrees (the fake claude)."""
    from fanout import children_by_parent  # beside this script

    children = children_by_parent()
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes()
            if any(mark in argv for mark in AGENT):
                continue  # the agent (its launcher, then the fake): not the tool's own
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        except OSError:
            continue
        total += next(int(line.split()[1]) for line in rollup.splitlines()
                      if line.startswith("Pss:"))  # fmt: skip
        todo += children.get(pid, [])
    return total


def _direct(tool: Tool, bin_dir: Path, env: dict[str, str], iterations: int) -> tuple[float, float]:
    wall = cpu = 0.0
    for _ in range(iterations):
        argv = [str(bin_dir / "claude"), *tool.direct_argv]
        agent_env = {**env, **tool.direct_env}
        one_wall, one_cpu, _ = _spawn(argv, tool.project, agent_env, tool.direct_prompt.encode())
        wall, cpu = wall + one_wall, cpu + one_cpu
    return wall, cpu


def _startup(argv: list[str], env: dict[str, str], times: int = 5) -> float:
    started = time.perf_counter()
    for _ in range(times):
        subprocess.run(argv, env=env, capture_output=True, check=False)
    return (time.perf_counter() - started) / times


def _python_of(program: str) -> str:
    """The Python a console script runs on (its ``#!`` line): start-up's baseline."""
    with open(program, "rb") as script:
        first = script.readline()
    interpreter = first[2:].strip().decode() if first.startswith(b"#!") else ""
    return interpreter if "python" in Path(interpreter).name else sys.executable


def _learn_flags(tool: Tool, work: Path, env: dict[str, str]) -> None:
    """A first loop, untimed: the tool's set-up happens once, and the fake records the
    flags and the first prompt this tool gives it (the direct runs use the same)."""
    _run_loop(tool, env, sample=False)
    prompts = work / "script.json.prompts"
    tool.direct_argv = json.loads((prompts / "000.argv.json").read_text("utf-8"))
    tool.direct_prompt = (prompts / "000.txt").read_text("utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--memory-rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--jlgcli", metavar="EXE", help="the jlgcli to time (default: beside "
                        "this Python)")  # fmt: skip
    parser.add_argument(
        "--peer-path",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder holding a peer's programs (e.g. node_modules/.bin)",
    )
    args = parser.parse_args()
    if sys.platform != "linux":
        sys.exit("peers.py reads /proc: Linux only")
    work = Path(tempfile.mkdtemp(prefix="jlgcli-bench-peers-"))
    bin_dir = work / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "claude"
    launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n', "utf-8")
    launcher.chmod(0o755)
    AGENT.append(str(launcher).encode())
    path = os.pathsep.join([str(bin_dir), *map(os.path.abspath, args.peer_path),
                            os.environ["PATH"]])  # fmt: skip
    tools, missing = _tools(work, args, path)
    for peer in missing:
        print(f"not installed, left out: {peer}")
    envs = {}
    for tool in tools:
        home = work / f"{tool.name}-home"
        home.mkdir()
        envs[tool.name] = {**os.environ, "PATH": path, "HOME": str(home), **tool.env,
                           "JLGCLI_FAKE_SCRIPT": str(work / "script.json")}  # fmt: skip
        _script(work, args.iterations)
        _learn_flags(tool, work, envs[tool.name])
    python = _python_of(tools[0].program)
    load = os.getloadavg()
    for number in range(args.rounds):
        order = tools if number % 2 == 0 else tools[::-1]
        for tool in order:
            env = envs[tool.name]
            _script(work, args.iterations)
            loop_s, loop_cpu, _ = _run_loop(tool, env, sample=False)
            _script(work, args.iterations)
            direct_s, direct_cpu = _direct(tool, bin_dir, env, args.iterations)
            tool.overhead_ms.append((loop_s - direct_s) / args.iterations * 1000)
            tool.cpu_ms.append((loop_cpu - direct_cpu) / args.iterations * 1000)
            python_s = _startup([python, "-c", "pass"], env)
            tool.startup.append(_startup([tool.program, "--version"], env) / python_s)
        print(f"round {number + 1}/{args.rounds}: " + ", ".join(
            f"{tool.name} {tool.overhead_ms[-1]:.1f} ms/iteration" for tool in tools))  # fmt: skip
    for number in range(args.memory_rounds):
        for tool in tools if number % 2 == 0 else tools[::-1]:
            _script(work, args.iterations)
            tool.pss_mb.append(_run_loop(tool, envs[tool.name], sample=True)[2])
    load = tuple(max(a, b) for a, b in zip(load, os.getloadavg(), strict=True))
    _report(tools, args, load)
    shutil.rmtree(work, ignore_errors=True)
    return 0


def _report(tools: list[Tool], args: argparse.Namespace, load: tuple[float, ...]) -> None:
    print(f"\n{args.iterations}-iteration loop of the fake claude, {args.rounds} interleaved "
          f"rounds ({args.memory_rounds} for memory); load average up to "
          f"{', '.join(f'{value:.1f}' for value in load)}")  # fmt: skip
    print(f"{'':10s} {'overhead/iteration':>20s} {'(CPU)':>10s} {'start-up ×python':>18s} "
          f"{'own PSS':>10s}")  # fmt: skip
    for tool in tools:
        print(f"{tool.name:10s} {statistics.median(tool.overhead_ms):17.1f} ms "
              f"{statistics.median(tool.cpu_ms):7.1f} ms "
              f"{statistics.median(tool.startup):17.1f}× "
              f"{statistics.median(tool.pss_mb):7.1f} MB")  # fmt: skip
    ours = tools[0]
    for peer in tools[1:]:
        pairs = {
            "overhead per iteration": zip(peer.overhead_ms, ours.overhead_ms, strict=True),
            "the same in CPU time": zip(peer.cpu_ms, ours.cpu_ms, strict=True),
            "start-up": zip(peer.startup, ours.startup, strict=True),
            "memory (PSS)": zip(peer.pss_mb, ours.pss_mb, strict=True),
        }
        print(f"\n{peer.name} ÷ jlgcli, paired per round (above 1.0: jlgcli is lighter):")
        for what, pair in pairs.items():
            ratios = sorted(theirs / mine if mine > 0 else float("inf") for theirs, mine in pair)
            print(f"  {what:24s} median {statistics.median(ratios):5.2f}   "
                  f"rounds {', '.join(f'{r:.2f}' for r in ratios)}")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
