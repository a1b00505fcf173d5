"""Reading the rebound ledger back: list sessions, load one, render its chain (REQ_AUTO_050).

The step files on disk are the truth: a step journaled before a crash (its
index entry never written) is still shown, with the phase it reached.
Rendering is plain ASCII so it reads the same in a Windows console, a CI log
and a pipe.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jlgcli.errors import ExitCode, JlgError
from jlgcli.rebound.ledger import INDEX_FILE
from jlgcli.records import record

PREVIEW_CHARS = 300
PREVIEW_LINES = 12


@record
class LedgerSession:
    """One session as journaled: its index and its step records, in order."""

    directory: Path
    index: dict[str, Any]
    steps: list[dict[str, Any]]

    @property
    def session_id(self) -> str:
        return str(self.index.get("sessionId") or self.directory.name)

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` shape: the index and every step record."""
        return {"directory": str(self.directory), "index": self.index, "steps": self.steps}


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise JlgError(ExitCode.NO_INPUT, f"cannot read {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise JlgError(ExitCode.INVALID_JSON, f"{path} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise JlgError(ExitCode.INVALID_JSON, f"{path} does not hold a JSON object")
    return data


def list_sessions(ledger_root: Path) -> list[dict[str, Any]]:
    """Every session's index (oldest first); unreadable ones appear with an ``error``."""
    if not ledger_root.is_dir():
        return []
    found = []
    for directory in sorted(p for p in ledger_root.iterdir() if (p / INDEX_FILE).is_file()):
        try:
            index = _read_json(directory / INDEX_FILE)
        except JlgError as exc:
            index = {"sessionId": directory.name, "error": exc.message}
        index.setdefault("sessionId", directory.name)
        found.append(index)
    return found


def load_session(ledger_root: Path, ref: str) -> LedgerSession:
    """Load session ``ref``: an id, a unique prefix of one, or ``latest``."""
    directory = _find(ledger_root, ref)
    index = _read_json(directory / INDEX_FILE)
    steps = [_read_json(path) for path in sorted(directory.glob("step-*.json"))]
    steps.sort(key=lambda record: int(record.get("step") or 0))
    return LedgerSession(directory, index, steps)


def _find(ledger_root: Path, ref: str) -> Path:
    if not ledger_root.is_dir():
        hint = "run with --completion rebound first, or point --dir at the ledger"
        raise JlgError(ExitCode.NO_INPUT, f"no rebound ledger at {ledger_root}", hint)
    ids = [str(s["sessionId"]) for s in list_sessions(ledger_root)]
    if ref in ("latest", "last") and ids:
        return ledger_root / ids[-1]
    if ref in ids:
        return ledger_root / ref
    matches = [i for i in ids if i.startswith(ref)]
    if len(matches) == 1:
        return ledger_root / matches[0]
    if matches:
        raise JlgError(ExitCode.USAGE, f"session {ref!r} is ambiguous: {', '.join(matches)}")
    raise JlgError(ExitCode.NO_INPUT, f"no session {ref!r} in {ledger_root}",
                   hint="list them with: jlgcli ledger list")  # fmt: skip


def _preview(text: str | None, *, full: bool) -> str:
    if not text:
        return "(empty)"
    if full:
        return text
    kept: list[str] = []
    size = 0
    for line in text.splitlines():
        if len(kept) == PREVIEW_LINES or size + len(line) > PREVIEW_CHARS:
            if not kept:  # one huge line: show its beginning
                kept.append(line[:PREVIEW_CHARS])
            break
        kept.append(line)
        size += len(line) + 1
    cut = "\n".join(kept)
    if cut != text.rstrip("\r\n"):
        cut += f"\n[... {len(text):,} characters in all; --full shows everything]"
    return cut


def _indent(text: str, prefix: str = "    | ") -> str:
    return "\n".join(prefix + line for line in text.splitlines() or [""])


def render_session(session: LedgerSession, *, full: bool = False) -> str:
    """The chain instruction -> reply -> artifacts -> next_action -> output -> ... -> final."""
    index = session.index
    lines = [
        f"Session {session.session_id}: {index.get('status')} (exit {index.get('exitCode')})",
        f"project: {index.get('projectRoot')}",
        f"started: {index.get('startedAt')}   updated: {index.get('updatedAt')}",
        f"steps: {len(session.steps)}   stop cause: {index.get('stopCause') or '-'}",
    ]
    for step in session.steps:
        lines += ["", *_render_step(step, full=full)]
    final = index.get("final")
    if isinstance(final, dict):
        lines += ["", f"== Final (step {final.get('step')}): {final.get('status')} =="]
        body = final.get("finalText") or final.get("summary") or final.get("error") or "(no text)"
        lines.append(_indent(str(body), "  "))
    return "\n".join(lines) + "\n"


def _render_step(record: dict[str, Any], *, full: bool) -> list[str]:
    phase = record.get("phase")
    head = f"== Step {record.get('step')} == (prompt from {record.get('promptFrom')})"
    lines = [head + ("" if phase == "complete" else f"  [incomplete: stopped at {phase}]")]
    if str(record.get("promptFrom", "")).endswith(" continuation"):
        lines.append("prompt: the continuation prompt of the previous step")
    else:
        lines += ["prompt:", _indent(_preview(record.get("prompt"), full=full))]
    reply = record.get("reply") or {}
    if not reply.get("found"):
        lines.append(f"reply: no valid reply object ({reply.get('error')})")
        lines.append(_indent(_preview(reply.get("text"), full=full)))
    else:
        status = reply.get("status") or "-"
        lines.append(f"reply: status {status}; summary: {reply.get('summary') or '-'}")
        if reply.get("thoughtProcess"):
            lines += ["thought_process:", _indent(_preview(reply["thoughtProcess"], full=full))]
    for art in record.get("artifacts") or []:
        if art.get("status") == "written":
            lines.append(f"artifact + {art.get('relpath')} ({art.get('bytes')} bytes)")
        else:
            lines.append(f"artifact x {art.get('path')!r} {art.get('status')}: {art.get('reason')}")
    lines += _render_action(record, full=full)
    if record.get("continuationPrompt"):
        lines += [
            "continuation prompt:",
            _indent(_preview(record["continuationPrompt"], full=full)),
        ]
    outcome = record.get("outcome") or {}
    if outcome:
        lines.append(
            f"outcome: {outcome.get('status')} (refusals so far: {outcome.get('refusals')})"
        )
    return lines


def _render_action(record: dict[str, Any], *, full: bool) -> list[str]:
    lines = []
    action = record.get("nextAction")
    if action:
        lines.append(f"next_action: {action.get('type')} {action.get('targetScript')}")
    elif record.get("nextActionError"):
        lines.append(f"next_action: INVALID ({record['nextActionError']})")
    refusal = record.get("refusal")
    if refusal and refusal.get("kind") != "invalid-next-action":
        lines.append(f"not run ({refusal.get('kind')}): {refusal.get('reason')}")
    execution = record.get("execution")
    if execution:
        lines.append(
            f"execution: {execution.get('stopReason')}, return code {execution.get('returnCode')}, "
            f"{execution.get('durationSeconds')} s; argv {execution.get('argv')}"
        )
        for stream in ("stdout", "stderr"):
            size = execution.get(f"{stream}Bytes")
            cut = " truncated" if execution.get(f"{stream}Truncated") else ""
            lines.append(f"  {stream} ({size} bytes{cut}):")
            lines.append(_indent(_preview(execution.get(stream), full=full)))
    return lines


def render_list(sessions: list[dict[str, Any]]) -> list[list[str]]:
    """Rows for ``jlgcli ledger list``: id, status, steps, started, summary."""
    rows = []
    for index in sessions:
        final = index.get("final")
        final = final if isinstance(final, dict) else {}
        summary = str(final.get("summary") or final.get("error") or index.get("error") or "")
        rows.append([
            str(index.get("sessionId")),
            str(index.get("status", "?")),
            str(len(index.get("steps") or [])),
            str(index.get("startedAt", "")),
            summary.splitlines()[0][:60] if summary else "",
        ])  # fmt: skip
    return rows
