"""Throughput, memory, latency and spawn cost of the process layer (jlgcli.process).

Everything runs in one invocation, interleaved round by round so machine
noise hits every variant alike. Throughput (MB/s) is the best round of each
variant; a ratio to ``cat`` or ``script`` is paired: the median, over rounds,
of the ratio within each round. (``cat`` is bimodal on a 2-core machine: most
rounds run at 0.6-0.8 GB/s, one in four at 1.1-2.5 GB/s when the scheduler
places writer and reader well; the ratio of two best rounds compares our
typical round with cat's luckiest.) Latency and spawn cost are medians:

- a child writing N MB (pure ASCII, then agent-like text with some UTF-8:
  decoding such text to ``str`` runs at ~0.7 GB/s in CPython and bounds the
  transports), read by ``cat > /dev/null`` (the pipe limit), by the
  pipe transport with a counting sink, by the pipe transport with the NDJSON
  ``TranscriptSink`` (without, then with the redactor a run always uses), by
  the pty transport, and under ``script -qfc`` (the kernel pty limit);
- peak RSS of a child process that streams 10 MB and then 1 GB through the
  pipe transport (``ru_maxrss`` of that process; the writer is not counted);
- latency of a short line from the child's write to the sink (median, p99),
  measured on the shared CLOCK_MONOTONIC;
- spawn + wait of a trivial child (``true``) on each transport.

Targets: pipe >= 0.75x cat; with transcript, redacted or not, >= 0.25x cat; pty >= 0.85x script;
RSS <= 40 MB and growing <= 5 MB from 10 MB to 1 GB; line latency median
<= 1 ms, p99 <= 5 ms; spawn+wait <= 10 ms median.

    .venv/bin/python benchmarks/stream.py [--quick] [--rounds N]
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

from jlgcli.process import run_invocation
from jlgcli.process.model import Invocation, Limits, OutputEvent

MB = 1_000_000
LIMITS = Limits(total_timeout=600)
# Agent-like lines, mostly ASCII with some UTF-8, in a 1 MiB block the writer repeats.
_LINES = (
    "I'll start by reading the failing test to understand what the parser expects.\n",
    '{"type":"assistant","message":{"content":[{"type":"text","text":"Running tests"}]}}\n',
    "src/jlgcli/completion/json_mode.py:42: error: Incompatible return value type\n",
    "    def parse(self, text: str) -> Result:  # see the spec\n",
    "Résumé : les tests passent — 42 réussis, 0 échec ✓\n",
)
WRITER = (
    "import sys\n"
    "block = open(sys.argv[1], 'rb').read()\n"
    "n, rest = divmod(int(sys.argv[2]), len(block))\n"
    "out = sys.stdout.buffer\n"
    "for _ in range(n): out.write(block)\n"
    "out.write(block[:rest]); out.flush()\n"
)
LINE_WRITER = (
    "import sys, time\n"
    "for _ in range(int(sys.argv[1])):\n"
    "    sys.stdout.write(f'{time.monotonic():.9f}\\n'); sys.stdout.flush()\n"
    "    time.sleep(0.002)\n"
)
RSS_CHILD = (
    "import resource, sys\n"
    "from jlgcli.process import run_invocation\n"
    "from jlgcli.process.model import Invocation, Limits\n"
    "seen = [0]\n"
    "def count(event): seen[0] += len(event.text)\n"
    "run_invocation(Invocation(tuple(sys.argv[1:])), limits=Limits(), sinks=(count,))\n"
    "print(seen[0], resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
)


def _block(content: str = "mixed") -> bytes:
    """1 MiB of output: agent-like lines with some UTF-8 ("mixed") or pure ASCII."""
    text = "".join(_LINES)
    if content == "ascii":
        text = text.encode("ascii", "ignore").decode("ascii")
    raw = text.encode()
    return (raw * (1024 * 1024 // len(raw) + 1))[: 1024 * 1024]


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _transport(argv: list[str], transport: str, sink: Callable[[OutputEvent], None]) -> None:
    outcome = run_invocation(
        Invocation(tuple(argv), transport=transport),  # type: ignore[arg-type]
        limits=LIMITS,
        sinks=(sink,),
    )
    assert outcome.ok, outcome


def throughput(tmp: Path, size: int, rounds: int, content: str) -> dict[str, list[float]]:
    """Seconds of each round, per variant, for ``size`` bytes of ``content``."""
    block = tmp / f"block-{content}"
    block.write_bytes(_block(content))
    writer = [sys.executable, "-c", WRITER, str(block), str(size)]
    shell_writer = shlex.join(writer)
    transcript_path = tmp / "transcript.ndjson"

    def count(_event: OutputEvent) -> None:
        pass

    def with_transcript(*, redact: bool = False) -> None:
        sink = _transcript_sink(transcript_path, redact=redact)
        try:
            _transport(writer, "pipe", sink)
        finally:
            sink.close()

    variants: dict[str, Callable[[], object]] = {
        "cat > /dev/null": lambda: subprocess.run(
            ["sh", "-c", f"{shell_writer} | cat > /dev/null"], check=True
        ),
        "pipe transport": lambda: _transport(writer, "pipe", count),
        "pipe + transcript": with_transcript,
        "+ redaction": lambda: with_transcript(redact=True),
        "pty transport": lambda: _transport(writer, "pty", count),
        "script -qfc": lambda: subprocess.run(
            ["script", "-qfc", shell_writer, "/dev/null"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            check=True,
        ),
    }
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(rounds):
        for name, action in variants.items():
            samples[name].append(_timed(action))
    return samples


def _transcript_sink(path: Path, *, redact: bool) -> Callable[[OutputEvent], None] | _Fallback:
    try:
        from jlgcli.artifacts.redact import Redactor
        from jlgcli.artifacts.transcript import TranscriptSink
    except ImportError:  # pragma: no cover - before the artifacts layer existed
        return _Fallback(path)
    # A run's transcript is always redacted; the environment's secret values included.
    return TranscriptSink(path, redactor=Redactor() if redact else None)  # type: ignore[no-any-return]


class _Fallback:
    """One JSON line per chunk with the stdlib's fast ASCII escaping."""

    def __init__(self, path: Path) -> None:
        from json.encoder import encode_basestring_ascii

        self._escape = encode_basestring_ascii
        self._fh = path.open("w", encoding="utf-8")

    def __call__(self, event: OutputEvent) -> None:
        self._fh.write(
            f'{{"s":"{event.stream}","t":{event.t:.6f},"d":{self._escape(event.text)}}}\n'
        )

    def close(self) -> None:
        self._fh.close()


def peak_rss_kib(size: int, tmp: Path) -> int:
    """ru_maxrss (KiB) of a child process streaming ``size`` bytes through the pipe transport."""
    block = tmp / "block"
    block.write_bytes(_block())
    out = subprocess.run(
        [sys.executable, "-c", RSS_CHILD, sys.executable, "-c", WRITER, str(block), str(size)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return int(out[1])


def line_latency(transport: str, lines: int) -> list[float]:
    """Seconds from the child's write of a short line to the sink call, per line."""
    latencies: list[float] = []
    partial = [""]

    def sink(event: OutputEvent) -> None:
        now = time.monotonic()
        text = partial[0] + event.text
        *complete, partial[0] = text.split("\n")
        latencies.extend(now - float(line) for line in complete if line.strip())

    _transport([sys.executable, "-c", LINE_WRITER, str(lines)], transport, sink)
    return latencies


def spawn_wait(transport: str, count: int) -> float:
    """Median seconds to spawn ``true`` and collect its exit on ``transport``."""
    true = shutil.which("true") or "true"
    times = [_timed(lambda: _transport([true], transport, lambda _e: None)) for _ in range(count)]
    return statistics.median(times)


def _percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * pct / 100))]


TARGETS = {
    "pipe transport": ("cat", 0.75),
    "pipe + transcript": ("cat", 0.25),
    "+ redaction": ("cat", 0.25),
    "pty transport": ("script", 0.85),
}


def paired_ratio(baseline: list[float], variant: list[float]) -> float:
    """Median over rounds of baseline seconds / variant seconds in the same round (speed ratio)."""
    pairs = zip(baseline, variant, strict=True)
    return statistics.median(base / seconds for base, seconds in pairs)


def _print_throughput(samples: dict[str, list[float]], size: int, content: str) -> bool:
    """Print one table; False when a target is missed."""
    cat, script = samples["cat > /dev/null"], samples["script -qfc"]
    rounds = len(cat)
    print(
        f"throughput, {size // MB} MB of {content} text, {rounds} interleaved rounds "
        "(MB/s: best round; ratios: median of the rounds' own ratios; best/best in brackets):"
    )
    met = True
    for name, seconds in samples.items():
        ratios = {"cat": paired_ratio(cat, seconds), "script": paired_ratio(script, seconds)}
        best = {"cat": min(cat) / min(seconds), "script": min(script) / min(seconds)}
        shown = "  ".join(f"x{ratios[b]:5.2f} {b} ({best[b]:4.2f})" for b in ("cat", "script"))
        verdict = ""
        if name in TARGETS:
            base, goal = TARGETS[name]
            ok = ratios[base] >= goal
            met = met and ok
            verdict = f"  target >= {goal} x {base}: {'ok' if ok else 'MISSED'}"
        print(f"  {name:18s} {size / MB / min(seconds):8.0f} MB/s  {shown}{verdict}")
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer rounds")
    parser.add_argument("--rounds", type=int, default=None)
    args = parser.parse_args()
    size = (50 if args.quick else 100) * MB
    big = (200 if args.quick else 1000) * MB
    rounds = args.rounds or 5
    warnings.filterwarnings("ignore", category=DeprecationWarning)  # forkpty + threads (3.12+)

    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        tables = {content: throughput(tmp, size, rounds, content) for content in ("ascii", "mixed")}
        rss_small = peak_rss_kib(10 * MB, tmp)
        rss_big = peak_rss_kib(big, tmp)
    lat = {t: line_latency(t, 200 if args.quick else 500) for t in ("pipe", "pty")}
    spawn = {t: spawn_wait(t, 30 if args.quick else 100) for t in ("pipe", "pty")}
    baseline_spawn = statistics.median(
        _timed(lambda: subprocess.run(["true"], check=True)) for _ in range(30)
    )

    met = all([_print_throughput(samples, size, content) for content, samples in tables.items()])
    growth = (rss_big - rss_small) / 1024
    rss_ok = rss_big <= 40 * 1024 and growth <= 5
    met = met and rss_ok
    print(
        f"peak RSS, pipe transport: {rss_small / 1024:.1f} MB at 10 MB, "
        f"{rss_big / 1024:.1f} MB at {big // MB} MB (growth {growth:+.1f} MB; "
        f"target <= 40 MB, growth <= 5 MB: "
        f"{'ok' if rss_ok else 'MISSED'})"
    )
    for transport, values in lat.items():
        med, p99 = statistics.median(values) * 1e3, _percentile(values, 99) * 1e3
        latency_ok = med <= 1 and p99 <= 5
        met = met and latency_ok
        verdict = "ok" if latency_ok else "MISSED"
        print(f"line latency, {transport:4s}: median {med:.3f} ms, p99 {p99:.3f} ms ({verdict})")
    for transport, seconds in spawn.items():
        met = met and seconds <= 0.010
        verdict = "ok" if seconds <= 0.010 else "MISSED"
        print(f"spawn+wait of `true`, {transport:4s}: median {seconds * 1e3:.2f} ms ({verdict})")
    print(f"spawn+wait of `true`, subprocess.run baseline: median {baseline_spawn * 1e3:.2f} ms")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
