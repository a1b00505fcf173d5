"""A webhook receiver on 127.0.0.1 for notification tests (issue 51): a tiny
``http.server`` stopped by the test, bounded by a socket timeout; it records each POST."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Receiver:
    """What the test's webhook receiver got: one (path, headers, body) per request."""

    def __init__(self, status: int) -> None:
        self.status = status
        self.requests: list[tuple[str, dict[str, str], dict[str, Any]]] = []
        self.url = ""


@contextmanager
def receiver(status: int = 200) -> Iterator[Receiver]:
    got = Receiver(status)

    class Handler(BaseHTTPRequestHandler):
        timeout = 10  # a client that never sends its body cannot hold the thread

        def do_POST(self) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(size).decode("utf-8"))
            got.requests.append((self.path, dict(self.headers.items()), body))
            self.send_response(got.status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    got.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield got
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
