"""``jlgcli board`` over plain HTTP (issue 52): who is refused, what the pages hold.

The board runs as a user starts it (the installed ``jlgcli``), over runs the
fake claude made; requests are made by hand so that every header is ours.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from support.batch import make_repo
from support.board import cookie_for, request, serve
from support.cli import Runner, fake_script

GATE_OK = f"{sys.executable} -c \"print('gate says fine')\""


@pytest.fixture
def project(jlg: Runner, tmp_path: Path) -> Path:
    """A repository with one loop of two iterations (a gate, a file changed each time)."""
    repo = make_repo(tmp_path / "repo")
    (repo / "task.md").write_text("Write the two files.\n", encoding="utf-8")
    env = fake_script(tmp_path, {"text": "one file", "files": {"one.txt": "1\n"}},
                      {"text": "the other\nDONE", "files": {"two.txt": "2\n"}})  # fmt: skip
    done = jlg("loop", "task.md", "-b", "claude", "--gate", GATE_OK, cwd=repo, env=env)
    assert done.returncode == 0, done.stderr
    return repo


def test_every_request_needs_the_token_and_a_loopback_host(jlgcli_exe: str, project: Path) -> None:
    with serve(jlgcli_exe, project) as board:
        port = board.port
        assert board.url.startswith(f"http://127.0.0.1:{port}/?token=")
        for path in ("/", "/static/board.js", "/live", "/api/runs", f"/?token={'x' * 32}"):
            answer = request(port, path)
            assert answer.status == 403, (path, answer.status)
            assert "-abcdef" not in answer.body and board.token not in answer.body
        # The token once: a cookie for this board only, then the page without the token.
        answer = request(port, f"/?token={board.token}")
        assert answer.status == 303 and answer.headers["Location"] == "/"
        cookie = answer.headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert cookie.startswith(f"jlgcli_board_{port}={board.token};")
        jar = cookie_for(port, board.token)
        assert request(port, "/", headers={"Cookie": jar}).status == 200
        # DNS rebinding: the right cookie and token under another name are refused.
        for host in (f"evil.example:{port}", "127.0.0.1", f"127.0.0.1:{port + 1}", ""):
            assert request(port, "/", host=host, headers={"Cookie": jar}).status == 403, host
            assert request(port, f"/?token={board.token}", host=host).status == 403, host
        assert request(port, "/", host=f"localhost:{port}", headers={"Cookie": jar}).status == 200
        assert request(port, "/", headers={"Cookie": f"jlgcli_board_{port}=nope"}).status == 403
    assert board.process.returncode == 0  # Ctrl-C ends the server


def test_actions_need_a_post_with_the_form_token_from_the_board_itself(
    jlgcli_exe: str, project: Path
) -> None:
    with serve(jlgcli_exe, project) as board:
        port, jar = board.port, cookie_for(board.port, board.token)
        page = request(port, "/", headers={"Cookie": jar}).body
        form = re.search(r'name="csrf" value="([0-9a-f]{64})"', page)
        assert form is not None and board.token not in page
        cookie = {"Cookie": jar}
        assert request(port, "/action/prune", method="POST", body="", headers=cookie).status == 403
        wrong = "csrf=" + "0" * 64
        assert request(port, "/action/prune", method="POST", body=wrong,
                       headers=cookie).status == 403  # fmt: skip
        right = f"csrf={form.group(1)}"
        other_site = {**cookie, "Origin": "http://evil.example"}
        assert request(port, "/action/prune", method="POST", body=right,
                       headers=other_site).status == 403  # fmt: skip
        # The form token without the cookie: another local user who read a page's form
        assert request(port, "/action/prune", method="POST", body=right).status == 403
        same = {**cookie, "Origin": f"http://127.0.0.1:{port}"}
        done = request(port, "/action/prune", method="POST", body=right, headers=same)
        assert done.status == 200 and "Worktrees pruned" in done.body


def test_the_pages_show_the_runs_iterations_and_gates(jlgcli_exe: str, project: Path) -> None:
    with serve(jlgcli_exe, project) as board:
        port, jar = board.port, {"Cookie": cookie_for(board.port, board.token)}
        index = request(port, "/", headers=jar)
        assert index.status == 200
        assert "default-src 'none'" in index.headers["Content-Security-Policy"]
        run_id = re.search(r'href="/run/([^"]+)"', index.body)
        assert run_id is not None, index.body
        chart = re.search(r'<img class="chart" src="(/chart\.svg\?v=[^"]+)"', index.body)
        assert chart is not None, index.body
        drawn = request(port, chart.group(1), headers=jar)  # the fake claude reports costs
        assert drawn.headers["Content-Type"] == "image/svg+xml" and "claude $0.0" in drawn.body
        page = request(port, f"/run/{run_id.group(1)}", headers=jar)
        assert page.status == 200
        assert page.body.count("gate says fine") == 2 and "✓" in page.body
        assert "one file" in page.body and "the other" in page.body  # the transcript
        assert str(project) not in page.body  # where the user's files are is not served
        assert request(port, "/run/nope", headers=jar).status == 404
        assert request(port, "/static/../../etc/passwd", headers=jar).status == 404
        css = request(port, "/static/board.css", headers=jar)
        assert css.status == 200 and css.headers["Content-Type"].startswith("text/css")


def test_the_stop_button_ends_a_running_loop_as_a_termination_does(
    jlgcli_exe: str, tmp_path: Path
) -> None:
    import json
    import os
    import subprocess
    import time

    repo = make_repo(tmp_path / "repo")
    (repo / "task.md").write_text("Take your time.\n", encoding="utf-8")
    env = {**os.environ, **fake_script(tmp_path, {"text": "thinking", "delay_seconds": 120})}
    with serve(jlgcli_exe, repo) as board, subprocess.Popen(
        [jlgcli_exe, "loop", "task.md", "-b", "claude"], cwd=repo, env=env,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    ) as loop:  # fmt: skip
        port, jar = board.port, {"Cookie": cookie_for(board.port, board.token)}
        deadline, running = time.monotonic() + 90, None
        while running is None and time.monotonic() < deadline:
            runs = json.loads(request(port, "/api/runs", headers=jar).body)["runs"]
            running = next((r["runId"] for r in runs if r["status"] == "running"), None)
            time.sleep(0.2)
        assert running is not None, "the loop never showed as running"
        page = request(port, f"/run/{running}", headers=jar).body
        form = re.search(r'name="csrf" value="([0-9a-f]{64})"', page)
        assert form is not None and ">Stop</button>" in page
        body = f"csrf={form.group(1)}&run={running}&back=/run/{running}"
        done = request(port, "/action/stop", method="POST", body=body, headers=jar)
        assert done.status == 200 and "Stopping" in done.body, done.body
        _, err = loop.communicate(timeout=120)
        assert loop.returncode == 143, err
        again = request(port, "/action/stop", method="POST", body=body, headers=jar)
        assert "is not running" in again.body
        runs = json.loads(request(port, "/api/runs", headers=jar).body)["runs"]
        assert [r["stopCause"] for r in runs if r["runId"] == running] == ["interrupted"]


def test_retry_runs_a_conflicting_task_again_on_the_merged_result(
    jlg: Runner, jlgcli_exe: str, tmp_path: Path
) -> None:
    import json
    import time

    from support.batch import make_tasks

    repo = make_repo(tmp_path / "repo")
    turns = {
        "alpha": [{"text": "did alpha\nDONE", "files": {"shared.txt": "alpha\n"}}],
        "gamma": [{"text": "did gamma\nDONE", "files": {"shared.txt": "gamma\n"}},
                  {"text": "gamma again\nDONE", "files": {"g.txt": "g\n"}}],
    }  # fmt: skip
    tasks = make_tasks(tmp_path / "tasks", tmp_path / "scripts", turns)
    env = {"JLGCLI_FAKE_SCRIPT": str(tmp_path / "scripts")}
    first = jlg("loop", *tasks, "-j", "1", "--merge", "-b", "claude", cwd=repo, env=env)
    assert first.returncode != 0, first.stderr  # gamma's merge stopped on a conflict
    (batch_file,) = (repo / ".jlgcli" / "runs" / ".batches").glob("*/batch.json")
    batch_id = batch_file.parent.name
    with serve(jlgcli_exe, repo, env=env) as board:
        port, jar = board.port, {"Cookie": cookie_for(board.port, board.token)}
        page = request(port, f"/batch/{batch_id}", headers=jar).body
        assert 'action="/action/retry"' in page
        assert f'href="/batch/{batch_id}/diff/gamma"' in page  # its branch, kept on conflict
        diff = request(port, f"/batch/{batch_id}/diff/gamma", headers=jar).body
        assert "+gamma" in diff and "shared.txt" in diff and ".jlgcli" not in diff
        assert "no such task" in request(port, f"/batch/{batch_id}/diff/nope", headers=jar).body
        form = re.search(r'name="csrf" value="([0-9a-f]{64})"', page)
        assert form is not None
        body = f"csrf={form.group(1)}&batch={batch_id}"
        done = request(port, "/action/retry", method="POST", body=body, headers=jar)
        assert done.status == 200 and "Retrying" in done.body, done.body
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            record = json.loads(batch_file.read_text("utf-8"))
            gamma = next(t for t in record["tasks"] if t["name"] == "gamma")
            if gamma["merged"]:
                break
            time.sleep(0.3)
        log = (batch_file.parent / "retry.log").read_text("utf-8", "replace")
        assert gamma["merged"] and not gamma["conflict"], log
        assert (repo / "g.txt").read_text("utf-8") == "g\n"

        again = request(port, "/action/retry", method="POST", body=body, headers=jar)
        assert "stopped on a conflict" in again.body  # nothing left to retry
