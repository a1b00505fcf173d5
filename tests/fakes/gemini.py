"""Fake ``gemini`` (Gemini CLI 0.61.0 as observed in research/backends.md §2, §3, §5.3).

stdin (not a terminal) is the prompt, ``-p`` is appended to it. Fatal errors
use the real exit codes (41 auth, 42 input, 55 untrusted folder) and print
plain text on stderr, no JSON; the untrusted-folder error is red even on a
pipe. The workspace is trusted with ``--skip-trust`` or
``GEMINI_CLI_TRUST_WORKSPACE=true``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _fake_engine as fe

VERSION = "0.61.0"
MODES = ("default", "auto_edit", "yolo", "plan")
VALUES = fe.table(
    "prompt: -p --prompt | format: -o --output-format | model: -m --model | "
    "mode: --approval-mode | resume: -r --resume | session_id: --session-id | "
    "dirs: --include-directories | allowed: --allowed-tools | policy: --policy | "
    "extensions: -e --extensions"
)
SWITCHES = fe.table(
    "yolo: -y --yolo | skip_trust: --skip-trust | raw: --raw-output | debug: -d --debug | "
    "list: --list-sessions | sr: --screen-reader | sandbox: -s --sandbox"
)


def auth_message() -> str:
    return (
        f"Please set an Auth method in your {fe.home()}/.gemini/settings.json or specify one "
        "of the following environment variables before running: GEMINI_API_KEY, "
        "GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA"
    )


def unknown(flag: str) -> None:
    fe.fail(f"Usage: gemini [options] [command]\n\nUnknown argument: {flag.lstrip('-')}", 1)


def main(argv: list[str]) -> None:
    if argv[:1] in (["--version"], ["-v"]):
        fe.probe(fe.version(VERSION))
    opts, positionals = fe.parse_args(argv, values=VALUES, switches=SWITCHES, on_unknown=unknown)
    mode = opts.get("mode", "default")
    if mode not in MODES:
        fe.fail(
            f'Invalid values:\n  Argument: approval-mode, Given: "{mode}", Choices: '
            + ", ".join(f'"{m}"' for m in MODES),
            1,
        )
    fmt = opts.get("format", "text")
    if fe.logged_out():
        fatal(auth_message(), 41, fmt)
    trusted = opts.get("skip_trust") or os.environ.get("GEMINI_CLI_TRUST_WORKSPACE") == "true"
    if not trusted:
        fe.fail(
            "\x1b[31mGemini CLI is not running in a trusted directory. To proceed, either use "
            "`--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, "
            "or trust this directory in interactive mode.\x1b[0m",
            55,
        )
    resume = opts.get("resume")
    # 0.61 resumes by session uuid (sessionUtils.ts); an unknown one exits 42 (backends.md §9)
    if resume is not None and not session_file(resume).exists():
        fe.fail(f'Error resuming session: Invalid session identifier "{resume}".', 42)
    stdin = fe.read_stdin()
    prompt = "\n".join(p for p in (stdin.strip("\n"), opts.get("prompt", ""), *positionals) if p)
    if not prompt.strip():
        fe.fail(
            "No input provided via stdin. Input can be provided by piping data into gemini "
            "or using the --prompt option.",
            42,
        )
    turn = fe.next_turn(prompt, argv)
    sid = turn.session_id or resume or opts.get("session_id") or fe.new_id()
    session_file(sid).parent.mkdir(parents=True, exist_ok=True)
    with session_file(sid).open("a", encoding="utf-8") as log:
        log.write(json.dumps({"type": "user", "content": prompt}) + "\n")
    # headless, an edit needs approval nobody can give unless auto_edit or yolo (backends.md §9)
    may_write = mode in ("auto_edit", "yolo") or bool(opts.get("yolo"))
    fe.apply(turn, os.getcwd(), write_files=may_write)
    Stream(sid, fmt, opts.get("model", "auto"), prompt).answer(turn, may_write)


def session_file(session_id: str) -> Path:
    """~/.gemini/tmp/<project>/chats/session-<id>.jsonl (backends.md §6), one project here."""
    return fe.home() / ".gemini" / "tmp" / "project" / "chats" / f"session-{session_id}.jsonl"


def fatal(message: str, code: int, fmt: str) -> None:
    if fmt == "json":
        payload = {
            "session_id": fe.new_id(),
            "error": {"type": "Error", "message": message, "code": code},
        }
        fe.fail(json.dumps(payload, indent=2), code)
    fe.fail(message, code)


def api_error(turn: fe.Turn) -> str:
    """gemini's wording of an API failure (googleQuotaErrors.ts, errorParsing.ts; §8)."""
    if turn.error == "rate-limit":
        return (
            '[API Error: got status: 429 Too Many Requests. {"error":{"code":429,'
            '"message":"You exceeded your current quota. Please retry in '
            f'{turn.reset_in_seconds:g}s.","status":"RESOURCE_EXHAUSTED"}}}}]'
        )
    if turn.error == "far-limit":
        left = max(0, round(turn.reset_in_seconds))
        hours, rest = divmod(left, 3600)
        return (
            "[API Error: You have exhausted your capacity on this model. Your quota will reset "
            f"after {hours}h{rest // 60}m{rest % 60}s.]"
        )
    if turn.error == "quota":
        return "[API Error: You have exhausted your daily quota on this model.]"
    if turn.error == "resource-exhausted":  # Google's own 429 wording (backends.md §9)
        return (
            "[API Error: Resource has been exhausted (e.g. check quota).\n"
            f"Suggested retry after {turn.reset_in_seconds:g}s.]"
        )
    if turn.error == "overloaded":  # a 503 after gemini's own retries
        return "[API Error: The model is overloaded. Please try again later.]"
    if turn.error == "auth-invalid":
        return (
            "[API Error: API key not valid. Please pass a valid API key. "
            "(Status: INVALID_ARGUMENT)]"
        )
    return "[API Error: exception TypeError: fetch failed sending request]"


class Stream:
    """stream-json events, one pretty JSON object (json) or plain text."""

    def __init__(self, sid: str, fmt: str, model: str, prompt: str) -> None:
        self.sid, self.fmt, self.model, self.prompt = sid, fmt, model, prompt

    def event(self, kind: str, **fields: object) -> None:
        if self.fmt == "stream-json":
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
            fe.emit({"type": kind, "timestamp": stamp, **fields})

    def stats(self) -> dict[str, object]:
        return {
            "total_tokens": 150,
            "input_tokens": 120,
            "output_tokens": 30,
            "cached": 0,
            "input": 120,
            "duration_ms": 900,
            "tool_calls": 0,
            "models": {},
        }

    def answer(self, turn: fe.Turn, may_write: bool) -> None:
        self.event("init", session_id=self.sid, model=self.model)
        self.event("message", role="user", content=self.prompt)
        if turn.error == "auth":
            fatal(auth_message(), turn.code(41), self.fmt)
        if turn.error == "error-event":  # the reason only in an error event (nonInteractiveCli.ts)
            self.event("error", severity="error", message="Model stream ended unexpectedly")
            self.event("result", status="error", stats=self.stats())
            sys.exit(turn.code(1))
        if turn.error == "unauthorized":  # core/turn.ts: a 401 is an UnauthorizedError
            message = (
                "[API Error: Request had invalid authentication credentials. Expected OAuth 2 "
                "access token, login cookie or other valid authentication credential.]"
            )
            self.event(
                "result",
                status="error",
                error={"type": "UnauthorizedError", "message": message},
                stats=self.stats(),
            )
            sys.exit(turn.code(401 & 255))
        if turn.error == "no-capacity":  # MODEL_CAPACITY_EXHAUSTED raised as TerminalQuotaError
            # (googleQuotaErrors.ts in 0.61.0, backends.md §10), a 429: exit 429 & 255
            message = f"[API Error: No capacity available for model {self.model} on the server]"
            self.event("result", status="error", stats=self.stats(),
                       error={"type": "TerminalQuotaError", "message": message})  # fmt: skip
            sys.exit(turn.code(429 & 255))
        # API errors are plain objects by then: error.type "unknown" (core/utils/errors.ts), and
        # the exit status is the HTTP status & 255 (cli/utils/errors.ts; backends.md §9)
        http = {"resource-exhausted": 429, "overloaded": 503}
        if turn.error in ("rate-limit", "far-limit", "backend", "quota", "auth-invalid", *http):
            message = api_error(turn)
            self.event(
                "result",
                status="error",
                error={"type": "unknown", "message": message},
                stats=self.stats(),
            )
            code = turn.code(http[turn.error] & 255 if turn.error in http else 1)
            if self.fmt != "stream-json":
                fatal(message, code, self.fmt)
            sys.exit(code)
        if turn.error == "context-overflow":  # client.ts: success with no text at all
            self.event("result", status="success", stats=self.stats())
            sys.exit(turn.code(0))
        if turn.error == "truncated":
            fe.out('{"type":"message","timestamp":"2026-01-01T00:00:00.000Z","role":"assist')
            sys.exit(turn.code(1))
        if turn.hang:
            fe.err(
                "Attempt 1 failed. Retrying with backoff... Error: exception TypeError: "
                "fetch failed sending request\n"
            )
            fe.hang_forever()
        for index, name in enumerate(turn.files):
            tool_id = f"write_file-{index}"
            self.event(
                "tool_use", tool_name="write_file", tool_id=tool_id, parameters={"file_path": name}
            )
            if may_write:
                self.event("tool_result", tool_id=tool_id, status="success", output="ok")
            else:
                self.event(
                    "tool_result",
                    tool_id=tool_id,
                    status="error",
                    output="",
                    error={"type": "permission", "message": "Tool execution denied"},
                )
        half = len(turn.text) // 2
        for piece in (turn.text[:half], turn.text[half:]):
            self.event("message", role="assistant", content=piece, delta=True)
        self.event("result", status="success", stats=self.stats())
        if self.fmt == "json":
            fe.out(
                json.dumps(
                    {"session_id": self.sid, "response": turn.text, "stats": self.stats()}, indent=2
                )
                + "\n"
            )
        elif self.fmt == "text":
            fe.out(turn.text + "\n")
        sys.exit(turn.code(0))


if __name__ == "__main__":
    main(sys.argv[1:])
