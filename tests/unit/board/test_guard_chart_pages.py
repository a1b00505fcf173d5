"""The board's guard, chart and pages as pure functions (issue 52)."""

from __future__ import annotations

import re

import pytest

from jlgcli.board import chart, pages
from jlgcli.board.guard import Guard, url


def test_the_guard_answers_only_to_its_own_port_on_loopback() -> None:
    guard = Guard(5000)
    assert guard.host_ok("127.0.0.1:5000") and guard.host_ok("localhost:5000")
    for host in (None, "", "127.0.0.1", "127.0.0.1:5001", "evil.example:5000",
                 "[::1]:5000", "127.0.0.1:5000.evil.example", "LOCALHOST:5000x"):  # fmt: skip
        assert not guard.host_ok(host), host


def test_the_token_the_cookie_and_the_form_token() -> None:
    guard = Guard(5000)
    assert len(guard.token) >= 32 and guard.token != Guard(5000).token
    assert url(guard) == f"http://127.0.0.1:5000/?token={guard.token}"
    assert guard.token_ok(guard.token)
    assert not guard.token_ok(None) and not guard.token_ok(guard.token[:-1])
    cookie = guard.set_cookie()
    assert cookie.startswith(f"jlgcli_board_5000={guard.token};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert guard.cookie_ok(f"other=1; jlgcli_board_5000={guard.token}")
    assert not guard.cookie_ok(f"jlgcli_board_5001={guard.token}")  # another board's name
    assert not guard.cookie_ok("jlgcli_board_5000=wrong")
    assert not guard.cookie_ok(None) and not guard.cookie_ok("")
    assert not guard.cookie_ok('jlgcli_board_5000="unterminated')
    # the form token is derived: a page carries it, never the token itself
    assert re.fullmatch(r"[0-9a-f]{64}", guard.form_token) and guard.token not in guard.form_token
    assert guard.form_ok(guard.form_token) and not guard.form_ok(guard.token)
    assert not guard.form_ok(None)


def test_an_action_comes_from_the_board_itself_or_says_nothing() -> None:
    guard = Guard(5000)
    assert guard.origin_ok(None, "127.0.0.1:5000")
    assert guard.origin_ok("http://127.0.0.1:5000", "127.0.0.1:5000")
    assert not guard.origin_ok("http://evil.example", "127.0.0.1:5000")
    assert not guard.origin_ok("null", "127.0.0.1:5000")  # a sandboxed frame, a data: page


def test_the_chart_stacks_each_days_backends_and_fills_the_empty_days() -> None:
    points = [
        {"day": "2026-11-01", "backend": "claude", "cost": 1.0},
        {"day": "2026-11-01", "backend": "codex", "cost": 0.5},
        {"day": "2026-11-03", "backend": "claude", "cost": 2.0},
    ]
    days, backends, cost = chart.totals(points)
    assert days == ["2026-11-01", "2026-11-02", "2026-11-03"]
    assert backends == ["claude", "codex"] and cost[("2026-11-01", "codex")] == 0.5
    drawn = chart.svg(points)
    assert drawn.startswith("<svg") and drawn.count("<rect") == 3 + 2  # bars + legend
    assert "class=" not in drawn and "style" not in drawn  # an image: attributes only
    assert "claude $3.0000" in drawn and "codex $0.5000" in drawn


def test_the_chart_keeps_the_last_sixty_days_and_escapes_names() -> None:
    points = [{"day": f"2026-{m:02d}-01", "backend": "<b>x</b>", "cost": 1.0} for m in (1, 11)]
    days, _, _ = chart.totals(points)
    assert len(days) == chart.MAX_DAYS and days[-1] == "2026-11-01"
    assert "<b>" not in chart.svg(points) and "&lt;b&gt;" in chart.svg(points)
    assert "No run recorded a cost" in chart.svg([])


def _run(**over: object) -> dict[str, object]:
    row: dict[str, object] = {
        "runId": "20261128T220000Z-abcdef", "outcome": "done", "status": "done",
        "backendWords": "claude",
        "iterations": 1, "costUsd": 0.5, "durationMs": 1500, "startedAt": "2026-11-28T22:00:00",
        "exitCode": 0, "task": None,
    }  # fmt: skip
    row.update(over)
    return row


def test_every_recorded_value_is_escaped_never_markup() -> None:
    evil = '<script>alert(1)</script>"'
    listing = {"runs": [_run(backendWords=evil, task=evil)], "page": 1, "pages": 1, "total": 1}
    html = pages.index(listing, [], "f" * 64)
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    gate = {"command": evil, "ok": False, "exitCode": 1, "output": evil}
    it = {"n": 1, "backend": evil, "durationMs": 5, "inputTokens": None, "outputTokens": None,
          "costUsd": None, "completion": evil, "summary": evil, "diff": None,
          "gates": [gate]}  # fmt: skip
    view = {"run": _run(), "task": evil, "error": {"message": evil, "hint": evil},
            "iterations": [it], "transcript": False, "batch": None}  # fmt: skip
    html = pages.run_page(view, [evil], "f" * 64)
    assert "<script>alert" not in html and "✗" in html
    assert pages.page(evil, "", watch=evil).count("<script") == 1  # the board's own only


def test_the_runs_list_pages_through_a_thousand_runs() -> None:
    listing = {"runs": [_run()], "page": 2, "pages": 20, "total": 1000}
    html = pages.index(listing, [], "f" * 64)
    assert 'href="/?page=1"' in html and 'href="/?page=3"' in html and "1000 runs" in html
    first = pages.index({**listing, "page": 1}, [], "f" * 64)
    assert 'href="/?page=0"' not in first and 'href="/?page=2"' in first
    empty = pages.index({"runs": [], "page": 1, "pages": 1, "total": 0}, [], "f")
    assert "No runs recorded here yet" in empty


@pytest.mark.parametrize(("ms", "shown"), [(None, "-"), ("x", "-"), (1500, "1.5s")])
def test_durations_and_money_as_the_cli_writes_them(ms: object, shown: str) -> None:
    assert pages.duration(ms) == shown
    assert pages.money(None) == "-" and pages.money(0.5) == "$0.5000"
    assert pages.when(None) == "-" and pages.when("2026-11-28T22:15:03+00:00") == "2026-11-28 22:15"
