"""The board's data and server in this process, over recorded runs and a batch (issue 52)."""

from __future__ import annotations

import http.client
import json
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.board import cookie_for, request, write_run

from jlgcli.batch.record import BatchRecord, TaskRecord, save
from jlgcli.board.data import BoardData
from jlgcli.board.server import Board

RUN = "20261128T220000Z-abcdef"
BATCH = "batch-20261128T220100Z-123456"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "runs"
    write_run(folder, RUN, cost=0.25, task="Fix the login. sk-ant-api03-" + "A" * 90)
    record = BatchRecord(batchId=BATCH, base=None, target="main", merge=True, isolated=True,
                         tasks=[TaskRecord(name="alpha", task="/t/alpha.md", branch="jlgcli/alpha",
                                           runId=RUN, exitCode=0, merged=True, iterations=1,
                                           costUsd=0.25),
                                TaskRecord(name="beta", task="/t/beta.md", branch="jlgcli/beta")],
                         started="2026-11-28T22:01:00Z")  # fmt: skip
    save(folder, record)
    return folder


@pytest.fixture
def board(root: Path, tmp_path: Path) -> Iterator[Board]:
    server = Board(root, tmp_path)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=30)


def _jar(board: Board) -> dict[str, str]:
    return {"Cookie": cookie_for(board.guard.port, board.guard.token)}


def test_a_page_of_runs_reads_only_its_own_rows(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    for n in range(120):
        write_run(folder, f"20261128T{n // 60:02d}{n % 60:02d}00Z-{n:06x}", cost=0.01)
    data = BoardData(folder)
    first = data.runs_page(1)
    assert (first["page"], first["pages"], first["total"]) == (1, 3, 120)
    assert len(first["runs"]) == 50 and first["runs"][0]["runId"].startswith("20261128T0159")
    last = data.runs_page(99)  # past the end: the last page
    assert last["page"] == 3 and len(last["runs"]) == 20
    assert data.runs_page(-4)["page"] == 1
    assert "path" not in first["runs"][0]  # the user's folders are not the page's business
    [spent] = data.costs()  # a day's runs summed per backend
    assert (spent["day"], spent["backend"]) == ("2026-11-28", "claude")
    assert spent["cost"] == pytest.approx(1.2)


def test_an_ended_run_is_read_again_only_when_its_files_change(root: Path) -> None:
    data = BoardData(root)
    once = data.info(RUN)
    assert data.info(RUN) is once
    state = json.loads((root / RUN / "state.json").read_text("utf-8"))
    state["cost_usd"] = 9.0
    (root / RUN / "state.json").write_text(json.dumps(state), "utf-8")
    os.utime(root / RUN / "state.json", ns=(1, 1))  # a new mark even on a coarse clock
    assert data.info(RUN).cost_usd == 9.0


def test_the_batch_page_has_each_task_with_its_run_line(root: Path) -> None:
    data = BoardData(root)
    view = data.batch(BATCH)
    alpha, beta = view["tasks"]
    assert alpha["status"] == "merged" and alpha["run"]["runId"] == RUN
    assert beta["status"] == "not started" and beta["run"] is None
    assert data.tasks_of_runs() == {RUN: f"{BATCH}/alpha"}
    before = data.marks("batch", BATCH)
    assert before == data.marks("batch", BATCH)
    (root / RUN / "state.json").write_text("{}", "utf-8")
    os.utime(root / RUN / "state.json", ns=(2, 2))
    assert data.marks("batch", BATCH) != before  # a task's run changed: the page redraws
    # what the address names is an id, never a path: anything else watches the list
    assert data.marks("run", "../../etc") == data.marks("batch", "../x") == data.marks("", None)


def test_pages_are_redacted_and_serve_nothing_of_the_user(board: Board, root: Path) -> None:
    port, jar = board.guard.port, _jar(board)
    page = request(port, f"/run/{RUN}", headers=jar)
    assert page.status == 200 and "Fix the login." in page.body
    assert "sk-ant-api03-AAAA" not in page.body and "[REDACTED]" in page.body
    assert str(root) not in page.body and "1 passed" in page.body
    part = request(port, f"/run/{RUN}?part=main", headers=jar)
    assert part.body.startswith("<h1>") and "<html" not in part.body  # what the script swaps
    batch = request(port, f"/batch/{BATCH}", headers=jar)
    assert batch.status == 200 and 'data-task="beta"' in batch.body
    assert request(port, "/batch/batch-nope", headers=jar).status == 404
    assert request(port, "/nowhere", headers=jar).status == 404
    listing = json.loads(request(port, "/api/runs?page=x", headers=jar).body)
    assert listing["total"] == 1 and "sk-ant" not in json.dumps(listing)


def test_the_token_in_the_address_keeps_the_rest_of_the_query(board: Board) -> None:
    port, token = board.guard.port, board.guard.token
    answer = request(port, f"/?page=2&token={token}")
    assert answer.status == 303 and answer.headers["Location"] == "/?page=2"
    assert request(port, f"/?token={token}", method="POST", body="").status == 403


def test_a_live_page_hears_of_a_change_on_disk(board: Board, root: Path) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", board.guard.port, timeout=60)
    conn.request("GET", f"/live?watch=run&id={RUN}", headers={**_jar(board)})
    stream = conn.getresponse()
    assert stream.status == 200 and stream.getheader("Content-Type") == "text/event-stream"
    assert stream.readline() == b"retry: 1000\n"
    stream.readline()
    (root / RUN / "result.json").write_text('{"status": "done"}', "utf-8")
    assert stream.readline() == b"event: change\n"
    assert stream.readline() == b"data: 1\n"
    conn.close()


def test_a_post_without_its_length_or_too_big_is_refused(board: Board) -> None:
    port, jar = board.guard.port, _jar(board)
    page = request(port, "/", headers=jar).body
    form = re.search(r'name="csrf" value="([0-9a-f]{64})"', page)
    assert form is not None
    big = "csrf=" + form.group(1) + "&x=" + "y" * 70_000
    assert request(port, "/action/prune", method="POST", body=big, headers=jar).status == 413
    unknown = request(port, "/action/launch", method="POST", body=f"csrf={form.group(1)}",
                      headers=jar)  # fmt: skip
    assert unknown.status == 404
    outside_git = request(port, "/action/prune", method="POST", body=f"csrf={form.group(1)}",
                          headers=jar)  # fmt: skip
    assert outside_git.status == 200 and "not in a git repository" in outside_git.body


def test_retry_and_stop_refuse_what_they_cannot_do(board: Board) -> None:
    port, jar = board.guard.port, _jar(board)
    page = request(port, f"/batch/{BATCH}", headers=jar).body
    assert 'action="/action/retry"' not in page  # no task of it stopped on a conflict
    form = re.search(r'name="csrf" value="([0-9a-f]{64})"', request(port, "/", headers=jar).body)
    assert form is not None
    token = form.group(1)
    retry = request(port, "/action/retry", method="POST", body=f"csrf={token}&batch={BATCH}",
                    headers=jar)  # fmt: skip
    assert "no task of" in retry.body and "stopped on a conflict" in retry.body
    bad = request(port, "/action/retry", method="POST", body=f"csrf={token}&batch=../x",
                  headers=jar)  # fmt: skip
    assert "is not a batch id" in bad.body
    stop = request(port, "/action/stop", method="POST",
                   body=f"csrf={token}&run={RUN}&back=//evil.example/", headers=jar)  # fmt: skip
    assert "is not running" in stop.body and "evil.example" not in stop.body  # never elsewhere


def test_an_answer_needs_a_parked_run_and_some_text(board: Board) -> None:
    port, jar = board.guard.port, _jar(board)
    form = re.search(r'name="csrf" value="([0-9a-f]{64})"', request(port, "/", headers=jar).body)
    assert form is not None
    page = request(port, f"/run/{RUN}", headers=jar).body
    assert 'action="/action/answer"' not in page  # it ended done: nothing to answer
    for body, said in ((f"run={RUN}&answer=Blue", "is not parked on a question"),
                       (f"run={RUN}&answer=+", "the answer is empty"),
                       ("run=../x&answer=Blue", "is not parked on a question")):  # fmt: skip
        answer = request(port, "/action/answer", method="POST",
                         body=f"csrf={form.group(1)}&{body}", headers=jar)  # fmt: skip
        assert answer.status == 200 and said in answer.body, body
