"""``jlgcli board`` started as a user does, and plain HTTP requests to it (issue 52)."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit


@dataclass
class Served:
    """A running board: its address (with the token), port and process."""

    url: str
    port: int
    token: str
    process: subprocess.Popen[str]


@contextlib.contextmanager
def serve(exe: str, cwd: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[Served]:
    """Start ``jlgcli board --json`` in ``cwd``; stop it with Ctrl-C (SIGINT / CTRL_C) after."""
    flags = subprocess.CREATE_NEW_PROCESS_GROUP if sys.platform == "win32" else 0
    with subprocess.Popen(
        [exe, "board", "--json", *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        creationflags=flags,
    ) as process:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line:
            process.wait(timeout=30)
            raise AssertionError(f"board did not start: {process.stderr and process.stderr.read()}")
        facts = json.loads(line)
        token = facts["url"].split("token=", 1)[1]
        served = Served(facts["url"], int(facts["port"]), token, process)
        try:
            yield served
        finally:
            if process.poll() is None:
                sig = signal.CTRL_C_EVENT if sys.platform == "win32" else signal.SIGINT
                process.send_signal(sig)
            process.communicate(timeout=60)


def request(
    port: int,
    path: str,
    *,
    method: str = "GET",
    host: str | None = None,
    headers: dict[str, str] | None = None,
    body: str | None = None,
) -> Answer:
    """One request to 127.0.0.1:``port`` with the Host and headers given."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.putrequest(method, path, skip_host=True)
    conn.putheader("Host", host if host is not None else f"127.0.0.1:{port}")
    for name, value in (headers or {}).items():
        conn.putheader(name, value)
    data = body.encode("utf-8") if body is not None else b""
    if body is not None:
        conn.putheader("Content-Type", "application/x-www-form-urlencoded")
        conn.putheader("Content-Length", str(len(data)))
    conn.endheaders(data if body is not None else None)
    response = conn.getresponse()
    try:
        return Answer(response.status, dict(response.getheaders()),
                      response.read().decode("utf-8", "replace"))  # fmt: skip
    finally:
        conn.close()


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: str


def cookie_for(port: int, token: str) -> str:
    """The cookie the board hands out for its token (what a browser sends back)."""
    answer = request(port, f"/?token={token}")
    assert answer.status == 303, answer.status
    return answer.headers["Set-Cookie"].split(";", 1)[0]


def path_of(url: str) -> str:
    split = urlsplit(url)
    return f"{split.path}?{split.query}" if split.query else split.path


def write_run(
    root: Path,
    run_id: str,
    *,
    cost: float | None = 0.01,
    backend: str = "claude",
    cause: str | None = "done",
    task: str = "Do the thing.",
    metrics: list[dict[str, object]] | None = None,
) -> Path:
    """A loop's run folder holding only its ``state.json`` (what every loop writes)."""
    folder = root / run_id
    folder.mkdir(parents=True, exist_ok=True)
    day, hms = run_id[0:8], run_id[9:15]
    started = f"{day[:4]}-{day[4:6]}-{day[6:]}T{hms[:2]}:{hms[2:4]}:{hms[4:]}+00:00"
    if metrics is None:
        metrics = [{"index": 1, "durationMs": 1200, "stopReason": "exit", "completion": "done",
                    "outputChars": 10, "backend": backend, "costUsd": cost,
                    "inputTokens": 100, "outputTokens": 20,
                    "diffStat": {"files": 1, "insertions": 3, "deletions": 1},
                    "gates": [{"command": "pytest -q", "exitCode": 0, "durationMs": 50,
                               "ok": True, "outputTail": "1 passed"}]}]  # fmt: skip
    state = {"version": 1, "run_id": run_id, "task": task, "backend": backend, "options": {},
             "iterations": len(metrics), "elapsed_ms": 1200, "cost_usd": cost,
             "stop_cause": cause, "metrics": metrics, "started_at": started}  # fmt: skip
    (folder / "state.json").write_text(json.dumps(state), encoding="utf-8")
    return folder
