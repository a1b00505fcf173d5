"""The resume state between iterations: its bytes written at once, its fsync and rename
beside the next call (issue 50); every error still comes back, in order."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from jlgcli.artifacts import atomic
from jlgcli.errors import ExitCode, JlgError
from jlgcli.runner.resume import write_state_text
from jlgcli.runner.state_writes import StateWrites


def test_one_write_at_a_time_in_order_and_its_error_comes_back_once() -> None:
    writes = StateWrites()
    order: list[str] = []
    gate = threading.Event()

    def first() -> None:
        gate.wait(30)
        order.append("first")

    writes.submit(first)
    gate.set()
    writes.submit(lambda: order.append("second"))  # waits for the first
    writes.wait()
    assert order == ["first", "second"]

    def failing() -> None:
        raise OSError(28, "No space left on device")

    writes.submit(failing)
    with pytest.raises(OSError, match="No space"):
        writes.submit(lambda: order.append("never"))
    writes.wait()  # raised once
    assert order == ["first", "second"]


def test_a_writes_error_is_kept_for_wait_and_its_lock_released() -> None:
    """What each write's thread runs (coverage does not follow a ``_thread``)."""
    import _thread

    writes = StateWrites()
    done = _thread.allocate_lock()
    done.acquire()

    def failing() -> None:
        raise OSError(28, "No space left on device")

    writes._run(failing, done)
    assert not done.locked()
    with pytest.raises(OSError, match="No space"):
        writes.wait()
    writes.wait()  # raised once


def test_the_target_changes_only_when_the_rest_runs(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_text("old\n", encoding="utf-8")
    later: list[object] = []
    atomic.atomic_write_text(target, "new\n", sync_directory=False, finish=later.append)
    assert target.read_text(encoding="utf-8") == "old\n" and len(later) == 1
    later[0]()  # type: ignore[operator]
    assert target.read_text(encoding="utf-8") == "new\n"
    assert not list(tmp_path.glob(".state.json.*"))  # no temporary file left


def test_a_state_that_cannot_be_put_in_place_is_73_where_the_rest_runs(tmp_path: Path) -> None:
    (tmp_path / "state.json").mkdir()  # a folder in the way: the rename fails
    later: list[object] = []
    write_state_text(tmp_path, "{}\n", final=False, finish=later.append)
    with pytest.raises(JlgError) as caught:
        later[0]()  # type: ignore[operator]
    assert caught.value.code == ExitCode.CANT_CREATE and "state.json" in caught.value.message
    assert not list(tmp_path.glob(".state.json.*"))


def test_a_full_disk_is_73_at_once_and_nothing_is_left_to_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic, "_create_temp", full)
    later: list[object] = []
    with pytest.raises(JlgError, match="No space"):
        write_state_text(tmp_path, "{}\n", final=False, finish=later.append)
    assert later == []
