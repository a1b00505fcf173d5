"""The board's pages as HTML, from data the server has already redacted (issue 52).

Every value is escaped here (``_e``): a record, a task name or a gate's output
is text, never markup. Pages load only the board's own stylesheet and script
(``/static/``); a live page names what it watches (``data-watch``) and the
script redraws its ``<main>`` when the server says it changed.
"""

from __future__ import annotations

from html import escape
from typing import Any
from urllib.parse import quote

TITLE = "jlgcli board"


def _e(value: Any) -> str:
    return escape("" if value is None else str(value))


def page(title: str, body: str, *, watch: str, ident: str = "") -> str:
    """A whole page around ``body`` (the ``<main>`` the script redraws)."""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)} · {TITLE}</title>"
        '<link rel="stylesheet" href="/static/board.css">'
        '<script src="/static/board.js" defer></script></head>'
        f'<body data-watch="{_e(watch)}" data-id="{_e(ident)}">'
        f'<header><a href="/" class="brand">{TITLE}</a>'
        '<span id="live" class="live" title="live updates">●</span></header>'
        f'<main id="main">{body}</main></body></html>'
    )


def money(value: Any) -> str:
    return "-" if not isinstance(value, (int, float)) else f"${value:.4f}"


def duration(ms: Any) -> str:
    from jlgcli.durations import format_duration_ms

    ok = isinstance(ms, int) and not isinstance(ms, bool) and ms >= 0
    return format_duration_ms(ms) if ok else "-"


def when(text: Any) -> str:
    """``2026-11-28T22:15:03+00:00`` → ``2026-11-28 22:15`` (UTC, as recorded)."""
    return "-" if not isinstance(text, str) else text[:16].replace("T", " ")


def status(word: Any) -> str:
    word = _e(word or "-")
    return f'<span class="status s-{quote(word.split(" ")[0], safe="")}">{word}</span>'


def index(runs: dict[str, Any], batches: list[dict[str, Any]], form: str) -> str:
    """The runs and batches list, with the cost chart."""
    rows = "".join(
        "<tr>"
        f'<td><a href="/run/{quote(r["runId"])}">{_e(r["runId"])}</a></td>'
        f"<td>{status(r['outcome'])}</td><td>{_e(r['backendWords'])}</td>"
        f"<td class=num>{_e(r['iterations'] if r['iterations'] is not None else '-')}</td>"
        f"<td class=num>{money(r['costUsd'])}</td><td class=num>{duration(r['durationMs'])}</td>"
        f"<td>{when(r['startedAt'])}</td><td>{_e(r.get('task') or '-')}</td></tr>"
        for r in runs["runs"]
    )
    pager = _pager(runs["page"], runs["pages"], runs["total"])
    table = (
        '<table id="runs"><thead><tr><th>run</th><th>status</th><th>backend</th>'
        "<th>iter</th><th>cost</th><th>duration</th><th>started</th><th>task</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>{pager}"
        if runs["runs"]
        else '<p class="muted">No runs recorded here yet: every loop is recorded.</p>'
    )
    return (
        f"<h1>Runs</h1>{table}<h2>Batches</h2>{batch_list(batches)}"
        # a new address when the runs change, or a redrawn list would keep the old image
        f'<h2>Cost per day</h2><img class="chart" src="/chart.svg?v={_chart_version(runs)}" '
        'alt="the cost of the runs per day and backend">'
        f'<h2>Worktrees</h2><form method="post" action="/action/prune">'
        f'<input type="hidden" name="csrf" value="{_e(form)}">'
        '<button type="submit">Prune merged and empty worktrees</button></form>'
    )


def _chart_version(runs: dict[str, Any]) -> str:
    shown = sum(r["costUsd"] or 0 for r in runs["runs"] if isinstance(r["costUsd"], (int, float)))
    return f"{runs['total']}-{shown:.6f}"


def _pager(current: int, pages: int, total: int) -> str:
    if pages <= 1:
        return f'<p class="muted">{total} runs</p>'
    links = []
    if current > 1:
        links.append(f'<a href="/?page={current - 1}">newer</a>')
    links.append(f"page {current} of {pages} ({total} runs)")
    if current < pages:
        links.append(f'<a href="/?page={current + 1}">older</a>')
    return f'<p class="pager">{" · ".join(links)}</p>'


def batch_list(batches: list[dict[str, Any]]) -> str:
    if not batches:
        return '<p class="muted">No batches (jlgcli loop A.md B.md -j 2).</p>'
    items = []
    for item in batches:
        bid = item["batchId"]
        if "error" in item:
            items.append(f"<li>{_e(bid)} <span class=muted>(record unreadable)</span></li>")
            continue
        t = item["totals"]
        items.append(
            f'<li><a href="/batch/{quote(bid)}">{_e(bid)}</a> exit {_e(item["exitCode"])} · '
            f"{_e(t['tasks'])} tasks, {_e(t['done'])} done, {_e(t['merged'])} merged · "
            f"{money(t['costUsd'])}</li>"
        )
    return f'<ul class="batches">{"".join(items)}</ul>'


def run_page(data: dict[str, Any], transcript: list[str] | None, form: str) -> str:
    """One run: its line, the iteration table with each gate's output, the transcript."""
    r = data["run"]
    facts = [
        ("status", status(r["outcome"]) + (f" (exit {_e(r['exitCode'])})"
                                           if r["exitCode"] is not None else "")),
        ("backend", _e(r["backendWords"])),
        ("started", when(r["startedAt"])),
        ("duration", duration(r["durationMs"])),
        ("cost", money(r["costUsd"])),
        ("task", _e(data["task"] or "-")),
    ]  # fmt: skip
    if data.get("batch"):
        bid = str(data["batch"]).split("/")[0]
        facts.append(("batch", f'<a href="/batch/{quote(bid)}">{_e(data["batch"])}</a>'))
    if data.get("error"):
        facts.append(("error", _e(data["error"].get("message"))))
        facts.append(("hint", _e(data["error"].get("hint"))))
    dl = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in facts)
    body = f"<h1>Run {_e(r['runId'])}</h1><dl class=facts>{dl}</dl>"
    if r["status"] == "running":
        body += stop_button(r["runId"], form, f"/run/{quote(r['runId'])}")
    if data.get("parked"):
        body += answer_form(r["runId"], data.get("question"), form)
    body += "<h2>Iterations</h2>" + iteration_table(data["iterations"])
    body += "<h2>Transcript</h2>"
    if transcript:
        body += f'<pre id="transcript">{_e(chr(10).join(transcript))}</pre>'
    else:
        body += '<p class="muted" id="transcript">No transcript kept for this run.</p>'
    return body


def iteration_table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return '<p class="muted">No iteration ended yet.</p>'
    out = []
    for it in rows:
        diff = it["diff"] or {}
        changed = (f"{_e(diff.get('files', 0))} files +{_e(diff.get('insertions', 0))} "
                   f"−{_e(diff.get('deletions', 0))}") if diff else "-"  # fmt: skip
        tokens = "-" if it["inputTokens"] is None else (
            f"{_e(it['inputTokens'])} in / {_e(it['outputTokens'] or 0)} out")  # fmt: skip
        gates = "".join(
            f'<details class="gate {"ok" if g["ok"] else "bad"}"><summary>'
            f"{'✓' if g['ok'] else '✗'} {_e(g['command'])}</summary>"
            f"<pre>{_e(g['output'] or '(no output)')}</pre></details>"
            for g in it["gates"]
        )
        out.append(
            f"<tr><td class=num>{_e(it['n'])}</td><td>{_e(it['backend'] or '-')}</td>"
            f"<td class=num>{duration(it['durationMs'])}</td><td>{tokens}</td>"
            f"<td class=num>{money(it['costUsd'])}</td><td>{changed}</td>"
            f"<td>{gates or '-'}</td><td>{_e(it['completion'])} {_e(it['summary'] or '')}</td></tr>"
        )
    return (
        '<table id="iterations"><thead><tr><th>#</th><th>backend</th><th>duration</th>'
        "<th>tokens</th><th>cost</th><th>files changed</th><th>gates</th><th>outcome</th></tr>"
        f"</thead><tbody>{''.join(out)}</tbody></table>"
    )


def batch_page(data: dict[str, Any], form: str) -> str:
    """A batch: each task's state and line, its branch, its merge result."""
    rows = []
    for t in data["tasks"]:
        run = t.get("run")
        line = "-"
        if t.get("question") and t.get("runId"):  # parked: what it asks, answered on its page
            line = (f'asks: {_e(t["question"])} · <a href="/run/{quote(t["runId"])}#question">'
                    "answer</a>")  # fmt: skip
        elif t.get("line"):  # the task's live line, as the batch's terminal shows it
            line = _e(t["line"])
        elif run:
            line = (f"iter {_e(run['iterations'] or 0)} · {money(run['costUsd'])} · "
                    f"{duration(run['durationMs'])}")  # fmt: skip
        link = f'<a href="/run/{quote(t["runId"])}">{_e(t["runId"])}</a>' if t["runId"] else "-"
        if run and run["status"] == "running":
            link += " " + stop_button(t["runId"], form, f"/batch/{quote(data['batchId'])}")
        merge = "merged" if t["merged"] else _e(t.get("mergeNote") or "-")
        if t["branch"]:
            changes = _e(t.get("diffStat") or "")
            href = f"/batch/{quote(data['batchId'])}/diff/{quote(t['id'])}"
            merge += f' · <a href="{href}">diff</a> <span class="muted">{changes}</span>'.rstrip()
        rows.append(
            f'<tr data-task="{_e(t["id"])}"><td>{_e(t["id"])}</td>'
            f'<td class="state">{status(t["status"])}</td><td>{line}</td><td>{link}</td>'
            f"<td>{_e(t['branch'] or '(in place)')}</td><td>{merge}</td></tr>"
        )
    totals = data["totals"]
    head = (
        f"<h1>Batch {_e(data['batchId'])}</h1><dl class=facts>"
        f"<dt>status</dt><dd>exit {_e(data['exitCode'])}</dd>"
        f"<dt>started</dt><dd>{_e(data['started'])}</dd>"
        f"<dt>merge</dt><dd>{'into ' + _e(data['target']) if data['merge'] else 'no'}</dd>"
        f"<dt>totals</dt><dd>{_e(totals['tasks'])} tasks, {_e(totals['done'])} done, "
        f"{_e(totals['merged'])} merged, {money(totals['costUsd'])}</dd></dl>"
    )
    if any(t.get("conflict") for t in data["tasks"]):
        head += (
            '<form method="post" action="/action/retry">'
            f'<input type="hidden" name="csrf" value="{_e(form)}">'
            f'<input type="hidden" name="batch" value="{_e(data["batchId"])}">'
            '<button type="submit">Retry the conflicting tasks on the merged result</button>'
            "</form>"
        )
    table = (
        '<table id="tasks"><thead><tr><th>task</th><th>state</th><th>line</th><th>run</th>'
        f"<th>branch</th><th>merge</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
    return head + table


def stop_button(run_id: str, form: str, back: str) -> str:
    """A POST form that stops a running run (the board's form token in it)."""
    return (
        '<form class="inline" method="post" action="/action/stop">'
        f'<input type="hidden" name="csrf" value="{_e(form)}">'
        f'<input type="hidden" name="run" value="{_e(run_id)}">'
        f'<input type="hidden" name="back" value="{_e(back)}">'
        '<button type="submit" class="stop">Stop</button></form>'
    )


def diff_page(batch_id: str, shown: dict[str, Any]) -> str:
    """A task's branch's diff, or why there is none."""
    back = f'<p><a href="/batch/{quote(batch_id)}">{_e(batch_id)}</a></p>'
    note = f'<p class="muted">{_e(shown["note"])}</p>' if shown.get("note") else ""
    text = f'<pre id="diff">{_e(shown["text"])}</pre>' if shown.get("text") else ""
    title = f"{_e(shown['task'])}: {_e(shown['branch'] or 'no branch')}"
    return f"<h1>{title}</h1>{back}{note}{text}"


def answer_form(run_id: str, question: str | None, form: str) -> str:
    """The question a parked run asked, and a form to answer it (``jlgcli answer``)."""
    return (
        '<section id="question"><h2>The agent asks</h2>'
        f'<pre class="question">{_e(question or "(the question was not recorded)")}</pre>'
        '<form method="post" action="/action/answer">'
        f'<input type="hidden" name="csrf" value="{_e(form)}">'
        f'<input type="hidden" name="run" value="{_e(run_id)}">'
        f'<input type="hidden" name="back" value="/run/{_e(quote(run_id))}">'
        '<textarea name="answer" required placeholder="your answer"></textarea>'
        '<button type="submit">Answer and resume</button></form></section>'
    )


def message_page(title: str, text: str, back: str = "/") -> str:
    """An action's outcome or an error, with the way back."""
    return f'<h1>{_e(title)}</h1><p>{_e(text)}</p><p><a href="{_e(back)}">back</a></p>'
