"""Finding a run or batch and following its events (issue 51: ``watch``, the dashboard)."""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from jlgcli import api
from jlgcli.batch.follow import Follower, Target, find_run_or_batch, parse_event
from jlgcli.config.started import RunLock, record_start
from jlgcli.errors import JlgError

RUN_A = "20261128T100000Z-aaaaaa"
RUN_B = "20261128T110000Z-bbbbbb"
BATCH = "batch-20261128T120000Z-cccccc"


def _root(cwd: Path) -> Path:
    return cwd / ".jlgcli" / "runs"


def _event(kind: str, owner: str = RUN_A, **data: Any) -> str:
    key = "batchId" if owner.startswith("batch-") else "runId"
    record = {"schemaVersion": 1, "type": kind, "time": "2026-11-28T10:00:00.000+00:00",
              key: owner, **data}  # fmt: skip
    return json.dumps(record) + "\n"


def _runs(cwd: Path, *names: str) -> Path:
    root = _root(cwd)
    for name in names:
        folder = root / ".batches" / name if name.startswith("batch-") else root / name
        folder.mkdir(parents=True)
        if name.startswith("batch-"):
            (folder / "batch.json").write_text("{}", "utf-8")
    return root


def test_nothing_yet_unknown_and_ambiguous_are_64_with_a_hint(tmp_path: Path) -> None:
    with pytest.raises(JlgError) as nothing:
        find_run_or_batch("latest", tmp_path)
    assert nothing.value.code == 64 and "jlgcli watch" in (nothing.value.hint or "")
    _runs(tmp_path, RUN_A, RUN_B)
    with pytest.raises(JlgError) as ambiguous:
        find_run_or_batch("20261128T1", tmp_path)
    assert "ambiguous" in ambiguous.value.message and RUN_B in (ambiguous.value.hint or "")
    with pytest.raises(JlgError) as unknown:
        find_run_or_batch("2025", tmp_path)
    assert "no run or batch '2025'" in unknown.value.message
    assert (unknown.value.hint or "").startswith(f"recent ones: {RUN_B}, {RUN_A}")


def test_an_id_or_a_unique_prefix_finds_a_run_or_a_batch(tmp_path: Path) -> None:
    root = _runs(tmp_path, RUN_A, RUN_B, BATCH)
    assert find_run_or_batch(RUN_A, tmp_path) == Target("run", RUN_A, root / RUN_A, root)
    assert find_run_or_batch("20261128T11", tmp_path).id == RUN_B
    found = find_run_or_batch("batch-2026", tmp_path)
    assert (found.kind, found.folder) == ("batch", root / ".batches" / BATCH)
    assert found.events_path == root / ".batches" / BATCH / "events.ndjson"
    with pytest.raises(JlgError):
        find_run_or_batch("../" + RUN_A, tmp_path)  # a name is matched, never a path


def test_latest_is_the_users_newest_start_and_a_batch_task_is_its_batch(tmp_path: Path) -> None:
    root = _runs(tmp_path, RUN_A, RUN_B, BATCH)
    assert find_run_or_batch(None, tmp_path).id == BATCH  # no record: the newest folder
    now = datetime.now(timezone.utc)
    record_start(root, RUN_A, now)
    assert find_run_or_batch("latest", tmp_path).id == RUN_A  # the user's record first
    (root / ".batches" / BATCH / "alpha.events.jsonl").write_text(
        _event("run-started", RUN_B), "utf-8"
    )
    record_start(root, RUN_B, now)
    latest = api.find_run_or_batch("latest", tmp_path)
    assert (latest.kind, latest.id) == ("batch", BATCH)  # RUN_B is the batch's task alpha


def test_only_this_targets_schema_objects_are_events(tmp_path: Path) -> None:
    run = Target("run", RUN_A, tmp_path, tmp_path)
    assert parse_event(_event("run-started"), run) is not None
    wrong_type = json.dumps({"schemaVersion": 1, "type": 3, "time": "t", "runId": RUN_A})
    newer = _event("run-started").replace('"schemaVersion": 1', '"schemaVersion": 2')
    for line in ("not json", "[1]", _event("run-started", RUN_B), newer, wrong_type):
        assert parse_event(line, run) is None, line
    batch = Target("batch", BATCH, tmp_path, tmp_path)
    assert parse_event(_event("batch-ended", BATCH, exitCode=0), batch) is not None
    assert parse_event(_event("run-ended"), batch) is None


def _follower(folder: Path, **options: Any) -> Follower:
    options.setdefault("poll_s", 0.01)
    options.setdefault("grace_s", 0.05)
    return Follower(Target("run", RUN_A, folder, folder.parent), **options)


def test_a_run_is_followed_as_it_writes_until_its_end(tmp_path: Path) -> None:
    folder = tmp_path / RUN_A
    folder.mkdir()
    lock = RunLock(folder)
    assert lock.acquire()  # the run is live
    events = folder / "events.ndjson"
    idle = threading.Event()
    follower = _follower(folder, on_idle=idle.set)
    seen: list[str] = []

    def write() -> None:
        with open(events, "w", encoding="utf-8") as out:
            for line in (_event("run-started"), "garbage\n", _event("iteration-started")):
                out.write(line)
                out.flush()
                idle.clear()
                idle.wait(10)  # the follower read it and waits for more
            out.write(_event("run-ended", exitCode=0)[:20])  # half a line: not an event yet
            out.flush()
            time.sleep(0.05)
            out.write(_event("run-ended", exitCode=0)[20:] + _event("iteration-started"))

    writer = threading.Thread(target=write)
    writer.start()
    seen = [event["type"] for event in follower]
    writer.join()
    assert seen == ["run-started", "iteration-started", "run-ended"]
    assert follower.ending == "ended" and follower.skipped == 1 and follower.caught_up
    lock.release()


def test_a_run_whose_process_is_gone_ends_the_follow_after_a_last_look(tmp_path: Path) -> None:
    folder = tmp_path / RUN_A
    folder.mkdir()
    (folder / "events.ndjson").write_text(_event("run-started"), "utf-8")
    follower = _follower(folder)  # no lock held: no process runs it
    assert [event["type"] for event in follower] == ["run-started"]
    assert follower.ending == "gone"


def test_a_file_that_never_appears(tmp_path: Path) -> None:
    """Not live: gone at once (an older run kept no events); live: followed until stopped."""
    folder = tmp_path / RUN_A
    folder.mkdir()
    gone = _follower(folder)
    assert list(gone) == [] and gone.ending == "gone"
    stop = threading.Event()
    waiting = _follower(folder, stop=stop, is_live=lambda: True, on_idle=stop.set)
    assert list(waiting) == [] and waiting.ending == "stopped"


def test_api_follow_events_takes_a_name_or_a_target(tmp_path: Path) -> None:
    root = _runs(tmp_path, RUN_A)
    (root / RUN_A / "events.ndjson").write_text(
        _event("run-started") + _event("run-ended", exitCode=0), "utf-8"
    )
    by_name = [e["type"] for e in api.follow_events(RUN_A, cwd=tmp_path)]
    target = api.find_run_or_batch(RUN_A, tmp_path)
    assert by_name == [e["type"] for e in api.follow_events(target)] == ["run-started", "run-ended"]
