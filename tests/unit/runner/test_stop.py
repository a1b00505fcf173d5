"""``api.stop``: which process a stop may signal, and how (issue 52)."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from support.board import write_run

from jlgcli import api
from jlgcli.config.started import RunLock, record_start, started_pid
from jlgcli.errors import JlgError
from jlgcli.runner import stop

RUN = "20261128T220000Z-abcdef"


@pytest.fixture
def sleeper() -> subprocess.Popen[bytes]:
    """A process started before the run 'started' (now), as a loop's own process is."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    yield process
    process.kill()
    process.wait()


def _held(root: Path) -> RunLock:
    lock = RunLock(root / RUN)
    assert lock.acquire()
    return lock


def test_the_pid_comes_from_the_users_record_newest_start_first(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    root.mkdir()
    assert started_pid(root, RUN) is None
    record_start(root, RUN, datetime.now(timezone.utc))
    import os

    assert started_pid(root, RUN) == os.getpid()
    assert started_pid(tmp_path / "elsewhere", RUN) is None  # another project's run


def test_a_run_not_running_or_not_recorded_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    write_run(root, RUN)
    with pytest.raises(JlgError, match="is not running"):
        api.stop(RUN, runs_dir=root)
    with pytest.raises(JlgError, match="no run"):
        api.stop("../../etc", runs_dir=root)
    with pytest.raises(JlgError, match="no run"):
        api.stop("20261128T220000Z-ffffff", runs_dir=root)


def test_a_live_run_with_no_recorded_process_is_not_guessed(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    write_run(root, RUN)
    lock = _held(root)
    try:
        with pytest.raises(JlgError, match="cannot tell which process"):
            api.stop(RUN, runs_dir=root)
    finally:
        lock.release()


def test_a_process_younger_than_the_run_is_a_reused_pid_and_left_alone(
    tmp_path: Path, sleeper: subprocess.Popen[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "runs"
    write_run(root, "20200101T000000Z-abcdef")  # started long before the sleeper
    run_id = "20200101T000000Z-abcdef"
    lock = RunLock(root / run_id)
    assert lock.acquire()
    import jlgcli.config.started as started

    monkeypatch.setattr(started, "started_pid", lambda r, i: sleeper.pid)
    try:
        with pytest.raises(JlgError, match="cannot tell which process"):
            api.stop(run_id, runs_dir=root)
    finally:
        lock.release()
    assert sleeper.poll() is None


def test_the_runs_own_process_is_signalled(
    tmp_path: Path, sleeper: subprocess.Popen[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "runs"
    later = datetime.now(timezone.utc) + timedelta(seconds=5)
    run_id = later.strftime("%Y%m%dT%H%M%SZ") + "-abcdef"
    write_run(root, run_id)
    lock = RunLock(root / run_id)
    assert lock.acquire()
    import jlgcli.config.started as started

    monkeypatch.setattr(started, "started_pid", lambda r, i: sleeper.pid)
    try:
        assert api.stop(run_id, runs_dir=root) == sleeper.pid
    finally:
        lock.release()
    assert sleeper.wait(timeout=60) != 0


@pytest.mark.parametrize("is_windows", [False, True])
def test_terminate_ends_the_process_on_either_os(
    sleeper: subprocess.Popen[bytes], is_windows: bool
) -> None:
    stop.terminate(sleeper.pid, is_windows=is_windows)
    assert sleeper.wait(timeout=60) != 0
    stop.terminate(sleeper.pid, is_windows=is_windows)  # gone already: nothing to do
