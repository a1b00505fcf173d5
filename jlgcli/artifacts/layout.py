"""Names and places of a run's artifacts (F-006): shared by the writer and the reader."""

from __future__ import annotations

from pathlib import Path

META_FILE = "meta.json"
RESULT_FILE = "result.json"
TRANSCRIPT_FILE = "transcript.ndjson"
EVENTS_FILE = "events.ndjson"  # every run's events, the lines of --events (issue 51)
ITERATIONS_DIR = "iterations"
PROMPT_FILE = "prompt.md"
FINAL_FILE = "final.md"
DEFAULT_ROOT = Path(".jlgcli") / "runs"


def default_root(cwd: Path | None = None) -> Path:
    """``<cwd>/.jlgcli/runs`` (seed 001 §13: artifacts live in the working directory)."""
    return (Path.cwd() if cwd is None else cwd) / DEFAULT_ROOT


def iteration_name(n: int) -> str:
    """``001``: zero-padded so a listing sorts; wider past 999."""
    return f"{n:03d}"
