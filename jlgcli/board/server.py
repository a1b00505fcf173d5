"""The board's HTTP server: loopback only, every request guarded, live pages by SSE (issue 52).

The standard library's ``ThreadingHTTPServer`` is enough for one person's
browser on 127.0.0.1 (a handful of pages, one event stream a tab): a web
framework would add a dependency and start-up cost for nothing the board
uses. Each request is checked by ``guard`` before anything is read; every
value read from the records is redacted once (``Redactor.redact_obj``) before
a page or a JSON answer is made of it. Nothing of the environment is served.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from jlgcli.board import pages
from jlgcli.board.data import BoardData
from jlgcli.board.guard import FORM_FIELD, TOKEN_PARAM, Guard

STATIC = {"board.css": "text/css; charset=utf-8", "board.js": "text/javascript; charset=utf-8"}
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; "
    "base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    # same-origin, not no-referrer: under no-referrer Chrome sends a form's POST with
    # "Origin: null", which the action check refuses; no page links elsewhere anyway
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
MAX_FORM = 64 * 1024
TRANSCRIPT_LINES = 2000  # a run page shows the end of a long transcript
POLL_S = 0.4  # how often a live page's files are looked at
PING_S = 15.0  # a comment line on an idle stream finds a closed tab


class Board(ThreadingHTTPServer):
    """The server: its data, its guard, and the event that ends its live streams."""

    daemon_threads = True  # Ctrl-C ends the server without waiting for open streams
    # Windows: SO_REUSEADDR would let another program bind the same port beside the board
    allow_reuse_address = sys.platform != "win32"

    def __init__(self, root: Path, project: Path, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        from jlgcli.artifacts.redact import Redactor

        self.data = BoardData(root)
        self.project = project
        self.guard = Guard(self.server_address[1])
        self.redactor = Redactor()
        self.closing = threading.Event()

    def shutdown(self) -> None:
        self.closing.set()
        super().shutdown()


class Handler(BaseHTTPRequestHandler):
    server: Board
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the terminal shows the URL and errors, not every request

    # --- the guard -------------------------------------------------------------------

    def _allowed(self) -> bool:
        guard = self.server.guard
        if not guard.host_ok(self.headers.get("Host")):
            self._send(HTTPStatus.FORBIDDEN, "text/plain", b"forbidden: unknown Host\n")
            return False
        split = urlsplit(self.path)
        given = parse_qs(split.query).get(TOKEN_PARAM)
        if given is not None and self.command == "GET":
            if not guard.token_ok(given[0]):
                self._forbidden()
                return False
            query = "&".join(
                f"{k}={v}" for k, vs in parse_qs(split.query).items() if k != TOKEN_PARAM
                for v in vs
            )  # fmt: skip
            self._redirect(split.path + (f"?{query}" if query else ""), guard.set_cookie())
            return False
        if not guard.cookie_ok(self.headers.get("Cookie")):
            self._forbidden()
            return False
        return True

    def _forbidden(self) -> None:
        text = b"forbidden: open the address jlgcli board printed (it carries the token)\n"
        self._send(HTTPStatus.FORBIDDEN, "text/plain", text)

    # --- GET -------------------------------------------------------------------------

    def do_GET(self) -> None:
        if not self._allowed():
            return
        split = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(split.query).items()}
        parts = [p for p in split.path.split("/") if p]
        try:
            self._route(parts, query)
        except _NotFoundError as exc:
            self._page(HTTPStatus.NOT_FOUND, "Not found", pages.message_page("Not found", str(exc)))

    def _route(self, parts: list[str], query: dict[str, str]) -> None:
        from jlgcli.errors import JlgError

        data, red = self.server.data, self.server.redactor.redact_obj
        form = self.server.guard.form_token
        whole = query.get("part") != "main"
        if parts and parts[0] == "static" and len(parts) == 2 and parts[1] in STATIC:
            self._static(parts[1])
        elif parts == ["live"]:
            self._live(query.get("watch", "index"), query.get("id"))
        elif not parts or parts == ["index.html"]:
            runs = red(data.runs_page(_int(query.get("page"), 1)))
            body = pages.index(runs, red(data.batches()), form)
            self._html(pages.page("Runs", body, watch="index") if whole else body)
        elif len(parts) == 2 and parts[0] in ("run", "batch"):
            try:
                view = data.run(parts[1]) if parts[0] == "run" else data.batch(parts[1])
            except JlgError as exc:
                raise _NotFoundError(exc.message) from None
            if parts[0] == "run":
                lines = [red(line) for line in self._transcript(view["run"]["runId"])]
                body = pages.run_page(red(view), lines, form)
            else:
                body = pages.batch_page(red(view), form)
            title = f"{parts[0]} {parts[1]}"
            self._html(pages.page(title, body, watch=parts[0], ident=parts[1]) if whole else body)
        elif len(parts) == 4 and parts[0] == "batch" and parts[2] == "diff":
            from jlgcli.batch.worktrees import main_tree
            from jlgcli.board.diffs import task_diff

            try:
                view = data.batch(parts[1])
            except JlgError as exc:
                raise _NotFoundError(exc.message) from None
            shown = red(task_diff(main_tree(self.server.project), view, parts[3]))
            body = pages.diff_page(view["batchId"], shown)
            self._html(pages.page(f"diff {parts[3]}", body, watch="none") if whole else body)
        elif parts == ["chart.svg"]:
            from jlgcli.board.chart import svg

            self._send(HTTPStatus.OK, "image/svg+xml", svg(red(data.costs())).encode("utf-8"))
        elif parts == ["api", "runs"]:
            self._json(red(data.runs_page(_int(query.get("page"), 1))))
        else:
            raise _NotFoundError(f"no page {'/'.join(parts)!r} on the board")

    def _transcript(self, run_id: str) -> list[str]:
        """The run's transcript as a person reads it (``api.transcript_lines``, what ``runs
        log`` prints): its last ``TRANSCRIPT_LINES`` lines; none when it kept none."""
        from collections import deque

        from jlgcli import api
        from jlgcli.errors import JlgError

        root = self.server.data.root
        try:
            lines = deque(api.transcript_lines(run_id, cwd=root, runs_dir=root),
                          maxlen=TRANSCRIPT_LINES + 1)  # fmt: skip
        except JlgError:
            return []  # no transcript kept (--no-transcript, or a run from before)
        if len(lines) > TRANSCRIPT_LINES:
            lines.popleft()
            note = f"(the last {TRANSCRIPT_LINES} lines; all of it: jlgcli runs log {run_id})"
            return [note, *lines]
        return list(lines)

    def _static(self, name: str) -> None:
        from importlib.resources import files

        body = files("jlgcli.board").joinpath("static").joinpath(name).read_bytes()
        self._send(HTTPStatus.OK, STATIC[name], body)

    def _live(self, kind: str, ident: str | None) -> None:
        """Server-sent events: ``change`` whenever what the page shows changed on disk."""
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        for name, value in HEADERS.items():
            self.send_header(name, value)
        self.end_headers()
        self.close_connection = True
        marks, last_write, count = self.server.data.marks(kind, ident), time.monotonic(), 0
        try:
            self.wfile.write(b"retry: 1000\n\n")
            self.wfile.flush()
            while not self.server.closing.wait(POLL_S):
                now = self.server.data.marks(kind, ident)
                if now != marks:
                    marks, count = now, count + 1
                    self.wfile.write(b"event: change\ndata: %d\n\n" % count)
                elif time.monotonic() - last_write > PING_S:
                    self.wfile.write(b": ping\n\n")
                else:
                    continue
                self.wfile.flush()
                last_write = time.monotonic()
        except OSError:
            pass  # the tab went away

    # --- POST: actions ---------------------------------------------------------------

    def do_POST(self) -> None:
        if not self._allowed():
            return
        guard = self.server.guard
        length = _int(self.headers.get("Content-Length"), -1)
        if not 0 <= length <= MAX_FORM:
            self._send(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "text/plain", b"form too large\n")
            return
        posted = parse_qs(self.rfile.read(length).decode("utf-8", "replace"))
        form = {k: v[0] for k, v in posted.items()}
        if not guard.form_ok(form.get(FORM_FIELD)) or not guard.origin_ok(
            self.headers.get("Origin"), str(self.headers.get("Host"))
        ):
            refused = b"forbidden: this form is not one of this board's pages\n"
            self._send(HTTPStatus.FORBIDDEN, "text/plain", refused)
            return
        from jlgcli.board.actions import ACTIONS
        from jlgcli.errors import JlgError

        name = urlsplit(self.path).path.removeprefix("/action/")
        action = ACTIONS.get(name)
        if action is None:
            self._page(HTTPStatus.NOT_FOUND, "Not found", pages.message_page("Not found", name))
            return
        try:
            title, text, back = action(self.server, form)
        except JlgError as exc:
            title, text, back = "Refused", f"{exc.message} ({exc.hint})", form.get("back", "/")
        red = self.server.redactor.redact
        self._page(HTTPStatus.OK, title, pages.message_page(red(title), red(text), _local(back)))

    # --- answers ---------------------------------------------------------------------

    def _page(self, code: HTTPStatus, title: str, body: str) -> None:
        self._send(code, "text/html; charset=utf-8",
                   pages.page(title, body, watch="none").encode("utf-8"))  # fmt: skip

    def _html(self, text: str) -> None:
        self._send(HTTPStatus.OK, "text/html; charset=utf-8", text.encode("utf-8"))

    def _json(self, obj: Any) -> None:
        body = json.dumps(obj, ensure_ascii=False).encode("utf-8")
        self._send(HTTPStatus.OK, "application/json", body)

    def _redirect(self, where: str, cookie: str) -> None:
        self.send_response(HTTPStatus.SEE_OTHER)
        self.send_header("Location", where)
        self.send_header("Set-Cookie", cookie)
        self.send_header("Content-Length", "0")
        for name, value in HEADERS.items():
            self.send_header(name, value)
        self.end_headers()

    def _send(self, code: HTTPStatus, kind: str, body: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in HEADERS.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


class _NotFoundError(Exception):
    pass


def _local(path: str) -> str:
    """A page of the board to go back to (a posted value: never another site)."""
    ok = path.startswith(("/run/", "/batch/")) and "//" not in path and "\\" not in path
    return path if ok else "/"


def _int(text: str | None, default: int) -> int:
    try:
        return int(text) if text is not None else default
    except ValueError:
        return default
