"""What ``-v`` adds to a run (issue 38: it printed the same as the default).

In-process through ``jlgcli.api`` with the fake ``claude`` first on PATH: the
spawned command line, each gate's output tail, and why an iteration was not
counted appear at verbosity 2 and not at 1.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from support.cli import fake_script
from support.fake_backend import FakeBackend, FakeClock, caller, selector

from jlgcli.api import loop
from jlgcli.prompts import Prompt
from jlgcli.runner.console import Console
from jlgcli.runner.engine import execute
from jlgcli.runner.spec import RunSpec


def _loop(tmp_path: Path, verbosity: int, capsys: pytest.CaptureFixture[str]) -> str:
    task = tmp_path / "task.md"
    task.write_text("Say done.\n", encoding="utf-8")
    gate = f"{sys.executable} -c \"print('first line'); print('GATE-' + 'TAIL')\""
    summary = loop(task, backend="claude", gates=[gate], verbosity=verbosity, cwd=str(tmp_path))
    assert summary.stopCause == "done"
    return capsys.readouterr().err


def test_verbose_shows_the_command_line_and_the_gates_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, value in fake_script(tmp_path, {"text": "All done.\nDONE"}).items():
        monkeypatch.setenv(name, value)
    normal = _loop(tmp_path, 1, capsys)
    verbose = _loop(tmp_path, 2, capsys)
    assert "spawn:" not in normal and "GATE-TAIL" not in normal
    spawn = next(line for line in verbose.splitlines() if "spawn:" in line)
    assert "claude" in spawn and spawn.endswith("(pipe)")
    assert "output (tail):\nfirst line\nGATE-TAIL" in verbose


def test_verbose_says_why_an_iteration_is_not_counted(tmp_path: Path) -> None:
    def run(verbosity: int) -> str:
        clock = FakeClock()
        backend = FakeBackend(clock=clock)
        backend.enqueue(ok=False, rate_limited=True, error_kind="rate-limit",
                        rate_limit_reset=clock.t + 1 + 60)  # fmt: skip
        backend.enqueue("DONE")
        spec = RunSpec(command="loop", prompt=Prompt("Do it.", "task.md"), backend="fake",
                       cwd=tmp_path, max_iterations=3, timeout_ms=3_600_000,
                       idle_timeout_ms=0)  # fmt: skip
        err = io.StringIO()
        summary = execute(spec, Console(verbosity, out=io.StringIO(), err=err), clock=clock,
                          caller=caller, select=selector(backend))  # fmt: skip
        assert summary.iterations == 1
        return err.getvalue()

    assert "is not counted" not in run(1)
    assert "iteration 1 is not counted: backend fake rate-limited" in run(2)
