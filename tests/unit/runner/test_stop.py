"""``api.stop``: which process a stop may signal, and how (issue 52)."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from support.board import write_run

from jlgcli import api
from jlgcli.config.started import RunLock, record_start, started_process
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
    assert started_process(root, RUN) is None
    at = datetime.now(timezone.utc)
    record_start(root, RUN, at)
    import os

    assert started_process(root, RUN) == (os.getpid(), at)
    assert started_process(tmp_path / "elsewhere", RUN) is None  # another project's run


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
    import jlgcli.config.started as started

    long_ago = datetime(2020, 1, 1, tzinfo=timezone.utc)  # the start the user's record holds
    monkeypatch.setattr(started, "started_process", lambda r, i: (sleeper.pid, long_ago))
    _refused_and_left_alone(root, run_id, sleeper)


def _refused_and_left_alone(root: Path, run_id: str, sleeper: subprocess.Popen[bytes]) -> None:
    """While the run's lock is held, a stop is refused and the sleeper is not signalled."""
    lock = RunLock(root / run_id)
    assert lock.acquire()
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

    monkeypatch.setattr(started, "started_process", lambda r, i: (sleeper.pid, later))
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


def test_the_start_time_comes_from_the_users_record_not_the_run_folder(
    tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    """A run folder claiming a later start does not make a reused pid look older: the
    record's own time decides."""
    root = tmp_path / "runs"
    later = datetime.now(timezone.utc) + timedelta(days=1)
    run_id = later.strftime("%Y%m%dT%H%M%SZ") + "-abcdef"
    write_run(root, run_id)  # its state says it started tomorrow
    record_start(root, run_id, datetime(2020, 1, 1, tzinfo=timezone.utc))
    import os

    import jlgcli.config.started as started

    record = started._record_path()  # the sleeper as the recorded process, started in 2020
    text = record.read_text("utf-8")
    record.write_text(text.replace(f'"pid": {os.getpid()}', f'"pid": {sleeper.pid}'), "utf-8")
    assert started_process(root, run_id) == (sleeper.pid, datetime(2020, 1, 1, tzinfo=timezone.utc))
    _refused_and_left_alone(root, run_id, sleeper)


BATCH = "batch-20261128T220000Z-abcdef"


def test_a_batch_unknown_or_not_running_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    (root / ".batches" / BATCH).mkdir(parents=True)
    with pytest.raises(JlgError, match="no batch 'batch-20261128T220000Z-ffffff'"):
        api.stop("batch-20261128T220000Z-ffffff", runs_dir=root)
    with pytest.raises(JlgError, match=f"batch {BATCH} is not running"):
        api.stop(BATCH, runs_dir=root)


def test_a_batch_still_running_after_the_wait_is_exit_75(
    tmp_path: Path, sleeper: subprocess.Popen[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The batch's process is signalled; its lock (held here, by another process than the
    one signalled) stays held, so the wait ends with 75 and the pid in the hint."""
    root = tmp_path / "runs"
    folder = root / ".batches" / BATCH
    folder.mkdir(parents=True)
    lock = RunLock(folder)
    assert lock.acquire()
    import jlgcli.config.started as started

    later = datetime.now(timezone.utc) + timedelta(seconds=5)
    monkeypatch.setattr(started, "started_process", lambda r, i: (sleeper.pid, later))
    try:
        with pytest.raises(JlgError, match=r"still runs after 0\.3 s") as raised:
            api.stop(BATCH, runs_dir=root, wait_s=0.3)
    finally:
        lock.release()
    assert raised.value.code == 75 and str(sleeper.pid) in (raised.value.hint or "")
    assert sleeper.wait(timeout=60) != 0


def test_wait_ended_returns_at_once_when_nothing_holds_the_lock(tmp_path: Path) -> None:
    ticks = iter([0.0, 100.0])
    assert stop.wait_ended(tmp_path, 1.0, clock=lambda: next(ticks), sleep=lambda s: None)
