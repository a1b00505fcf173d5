"""The run's backend probe starts as soon as the options name the backend (issues 49, 50)."""

from __future__ import annotations

import io
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from jlgcli.backends.base import Availability
from jlgcli.errors import ExitCode, JlgError
from jlgcli.prompts import Prompt
from jlgcli.runner import early_probe
from jlgcli.runner.console import Console
from jlgcli.runner.select import select_backend
from jlgcli.runner.spec import RunSpec


def _spec(backend: str, **extra: Any) -> RunSpec:
    return RunSpec(command="run", prompt=Prompt(text="x", source="x"), backend=backend,
                   cwd=Path.cwd(), **extra)  # fmt: skip


def _console() -> Console:
    return Console(1, out=io.StringIO(), err=io.StringIO())


@pytest.mark.parametrize(
    "spec",
    [_spec("auto"), _spec("replay"), _spec("claude", known_versions=(("/x/claude", "2.1.0"),))],
    ids=["auto probes them all", "replay starts nothing", "a batch's task has its versions"],
)
def test_no_early_probe_where_the_run_probes_otherwise(spec: RunSpec) -> None:
    assert early_probe.start(spec) is None


def test_the_early_answer_is_the_one_the_run_uses(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake codex's version, asked once: select_backend does not probe again."""
    probed: list[str] = []
    real = early_probe.installed

    def counted(backend: Any) -> Availability:
        probed.append(threading.current_thread().name)
        return real(backend)

    monkeypatch.setattr(early_probe, "installed", counted)
    probe = early_probe.start(_spec("codex"))
    assert probe is not None
    selected = select_backend(_spec("codex"), _console(), early=probe)
    assert selected.backend.id == "codex"
    assert selected.availability.status == "available"
    assert selected.availability.version  # the fake's `codex --version`
    assert probed == ["early-probe"]  # asked in the probe's thread only


def test_an_answer_for_another_backend_is_not_used() -> None:
    probe = early_probe.start(_spec("codex"))
    assert probe is not None
    assert probe.take("claude") is None
    assert probe.take("codex") is not None


def test_an_error_of_the_probe_is_raised_where_the_run_takes_it() -> None:
    """An unknown backend id: the same usage error as without the early probe, raised by take."""
    probe = early_probe.start(_spec("no-such-backend"))
    assert probe is not None
    with pytest.raises(JlgError) as raised:
        probe.take("no-such-backend")
    assert raised.value.code == ExitCode.USAGE


def test_a_missing_backend_stops_the_run_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    probe = early_probe.start(_spec("codex"))
    with pytest.raises(JlgError) as raised:
        select_backend(_spec("codex"), _console(), early=probe)
    assert raised.value.code == ExitCode.BACKEND_UNAVAILABLE


def test_a_one_shot_run_imports_no_loop_guardrail(tmp_path: Path) -> None:
    """Issue 49: the no-progress and stuck-gates checks are a loop's: ``run`` never imports them,
    and the version of Python in meta.json needs no ``platform``."""
    from tests.unit.test_cli import _modules_after

    task = tmp_path / "task.md"
    task.write_text("Say hello.\n", "utf-8")
    modules = _modules_after(repr(["run", str(task), "-b", "codex", "--cwd", str(tmp_path)]))
    assert "jlgcli.runner.engine" in modules  # it ran
    assert not {"jlgcli.runner.progress", "jlgcli.runner.stuck_gates", "platform"} & modules


def test_the_switch_interval_is_lowered_while_the_probe_runs_and_restored_after() -> None:
    """Issue 50: the probe's thread gets the interpreter lock every 0.2 ms while the run
    imports; the process's own interval is back once the probe has ended."""
    before = sys.getswitchinterval()
    seen: list[float] = []
    real = early_probe.installed

    def watched(backend: Any) -> Availability:
        seen.append(sys.getswitchinterval())
        return real(backend)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(early_probe, "installed", watched)
        probe = early_probe.start(_spec("codex"))
        assert probe is not None
        assert probe.take("codex") is not None
    assert seen == [pytest.approx(early_probe.SWITCH_INTERVAL_S)]
    assert sys.getswitchinterval() == pytest.approx(before)


def test_a_failing_probe_restores_the_switch_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    before = sys.getswitchinterval()

    def broken(_backend: Any) -> Availability:
        raise RuntimeError("the probe broke")

    monkeypatch.setattr(early_probe, "installed", broken)
    probe = early_probe.start(_spec("codex"))
    assert probe is not None
    with pytest.raises(RuntimeError, match="the probe broke"):
        probe.take("codex")
    assert sys.getswitchinterval() == pytest.approx(before)
