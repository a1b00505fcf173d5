"""What a one-shot ``jlgcli run`` loads (issue 49: the one-shot's start-up).

A run's Literal types and Protocols are for type checkers only, so the run imports no
``typing`` (~3 ms of every run and loop start); patterns a run may not need compile at
their first use (``jlgcli.lazy_re``); ``datetime``'s classes come from its C module
without running ``datetime.py`` (``jlgcli.moments``, ~1.4 ms).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.cli import fake_script
from support.environ import without_coverage

PROGRAM = """
import atexit, sys
def said():
    sys.stderr.write("\\nMODULES " + " ".join(sorted(sys.modules)) + "\\n")
atexit.register(said)
sys.argv = ["jlgcli", "run", "task.md", "--backend", "codex"]
from jlgcli.cli import console_script
console_script()
"""


def _one_shot(tmp_path: Path) -> tuple[int, set[str], str]:
    (tmp_path / "task.md").write_text("Say hello.\n", "utf-8")
    # coverage's subprocess start-up imports typing and more: measured without it
    env = without_coverage() | fake_script(tmp_path, {"text": "hello DONE"})
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], cwd=tmp_path, env=env, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    modules = set(done.stderr.rsplit("\nMODULES ", 1)[-1].split())
    return done.returncode, modules, done.stdout + done.stderr


def test_a_one_shot_run_imports_no_typing(tmp_path: Path) -> None:
    code, modules, said = _one_shot(tmp_path)
    assert code == 0, said
    assert "jlgcli.runner.engine" in modules  # the run really ran in this interpreter
    assert "hello" in said
    assert "typing" not in modules
    assert "pydantic" not in modules
    assert "datetime" not in modules  # its C classes, from _datetime (jlgcli.moments)
