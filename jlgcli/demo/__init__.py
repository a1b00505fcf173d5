"""The recording ``jlgcli demo`` replays, shipped as package data (issue 19, item 4).

A copy of ``examples/quickstart`` (a test keeps the two equal), so that a
pip- or pipx-installed jlgcli, which has no ``examples/``, can run it from any
directory.
"""

from __future__ import annotations

from pathlib import Path

DEMO_DIR = Path(__file__).resolve().parent
TASK_FILE = DEMO_DIR / "task.md"
RECORDING_DIR = DEMO_DIR / "recording"
