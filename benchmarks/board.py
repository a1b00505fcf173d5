"""``jlgcli board`` over a thousand runs, as ratios to what ``jlgcli runs`` reads (issue 52).

Writes ``--runs`` loop runs (each a ``state.json`` of five iterations with a
gate, as every loop leaves) and a batch, then times, in paired rounds
(round-robin, so machine noise hits each alike):

- baseline: ``runner.listing.list_runs(root, 50)``, what ``jlgcli runs`` reads;
- the runs list page, served over HTTP by a running board (warm: ended runs cached);
- the same page on a new board (cold: every shown run read once);
- the cost chart (its own image: it reads every run once, then only the live ones);
- a run's page and its live-update check (``marks``: what each open tab does
  every 0.4 s).

Targets: the warm list page ≤ 3× the baseline (it also reads the batches and
draws the chart); a live check ≤ 1× (it must stay cheaper than a listing).

    .venv/bin/python benchmarks/board.py [--runs 1000] [--rounds 15]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))

from support.board import cookie_for, request, write_run

from jlgcli.board.server import Board
from jlgcli.runner.listing import list_runs


def _metrics(n: int) -> list[dict[str, object]]:
    return [
        {"index": i, "durationMs": 60_000, "stopReason": "exit", "completion": "continue",
         "outputChars": 4000, "backend": "claude" if n % 3 else "codex", "costUsd": 0.05,
         "inputTokens": 12_000, "outputTokens": 900,
         "diffStat": {"files": 2, "insertions": 30, "deletions": 4},
         "gates": [{"command": "pytest -q", "exitCode": 0, "durationMs": 9000, "ok": True,
                    "outputTail": "412 passed in 8.1s\n" * 20}]}
        for i in range(1, 6)
    ]  # fmt: skip


def make_runs(root: Path, count: int) -> list[str]:
    ids = []
    for n in range(count):
        day, minute = 1 + n // 100 % 28, n % 1440
        run_id = f"202611{day:02d}T{minute // 60:02d}{minute % 60:02d}{n % 60:02d}Z-{n:06x}"
        write_run(root, run_id, cost=0.25, backend="claude" if n % 3 else "codex",
                  metrics=_metrics(n))  # fmt: skip
        ids.append(run_id)
    return ids


def serve(root: Path) -> tuple[Board, threading.Thread, dict[str, str]]:
    board = Board(root, root)
    thread = threading.Thread(target=board.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    return board, thread, {"Cookie": cookie_for(board.guard.port, board.guard.token)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "runs"
        ids = make_runs(root, args.runs)
        warm, thread, jar = serve(root)
        port = warm.guard.port
        assert request(port, "/", headers=jar).status == 200  # fills the cache once

        def cold() -> None:
            board, cold_thread, cold_jar = serve(root)
            try:
                assert request(board.guard.port, "/", headers=cold_jar).status == 200
            finally:
                board.shutdown()
                board.server_close()
                cold_thread.join()

        cases: dict[str, Callable[[], object]] = {
            "baseline: list_runs(root, 50)": lambda: list_runs(root, 50),
            "board: runs page, warm (HTTP)": lambda: request(port, "/", headers=jar),
            "board: runs page, new board (HTTP)": cold,
            "board: a run's page (HTTP)": lambda: request(port, f"/run/{ids[7]}", headers=jar),
            "board: the cost chart, warm (HTTP)": lambda: request(port, "/chart.svg", headers=jar),
            "board: live check of the list": lambda: warm.data.marks("index", None),
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.rounds):
            for name, call in cases.items():
                start = time.perf_counter()
                call()
                times[name].append(time.perf_counter() - start)
        warm.shutdown()
        warm.server_close()
        thread.join()
    base = statistics.median(times["baseline: list_runs(root, 50)"])
    targets = {"board: runs page, warm (HTTP)": 3.0, "board: live check of the list": 1.0}
    failed = False
    print(f"{args.runs} runs, {args.rounds} paired rounds; medians, ratio to the baseline")
    for name, values in times.items():
        ratio = statistics.median(values) / base
        target = targets.get(name)
        failed |= target is not None and ratio > target
        mark = "" if target is None else f"  (target ≤ {target:.1f}×)"
        print(f"  {name:<38} {statistics.median(values) * 1000:8.1f} ms  {ratio:5.2f}×{mark}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
