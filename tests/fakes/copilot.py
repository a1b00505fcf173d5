"""Fake ``copilot`` (GitHub Copilot CLI 1.0.102 as observed in research/backends.md §2, §3, §5.4).

The prompt comes from ``-p`` or, without it, from stdin. The auth check runs
before stdin is read and fails in plain text on stderr (no JSON). Without
``--allow-all-tools``/``--allow-all`` a tool call is denied (``-p`` never asks).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _fake_engine as fe

VERSION = "1.0.102"
AUTH_ERROR = """Error: No authentication information found.
Copilot can be authenticated with GitHub using an OAuth Token or a Fine-Grained Personal \
Access Token.
To authenticate, you can use any of the following methods:
  • Start 'copilot' and run the '/login' command
  • Set the COPILOT_GITHUB_TOKEN, GH_TOKEN, or GITHUB_TOKEN environment variable
  • Run 'gh auth login' to authenticate with the GitHub CLI"""
# cli-main.js (backends.md §8): a token that exists but is refused; same instructions follow
INVALID_TOKEN = AUTH_ERROR.replace(
    "Error: No authentication information found.",
    "Error: Authentication token found but could not be validated.",
)
OUT_OF_CREDITS = "You've run out of your included AI credits for the month."
VALUES = fe.table(
    "prompt: -p --prompt | format: --output-format | model: --model | "
    "allow_tool: --allow-tool | deny_tool: --deny-tool | available: --available-tools | "
    "excluded: --excluded-tools | add_dir: --add-dir | cd: -C | log: --log-level | "
    "stream: --stream | session_id: --session-id | effort: --reasoning-effort | "
    "continues: --max-autopilot-continues | credits: --max-ai-credits | "
    "disable_mcp: --disable-mcp-server"
)
SWITCHES = fe.table(
    "allow_all_tools: --allow-all-tools | allow_all: --allow-all --yolo | "
    "paths: --allow-all-paths | urls: --allow-all-urls | no_color: --no-color | "
    "silent: -s --silent | continue: --continue | nau: --no-auto-update | "
    "no_ask: --no-ask-user | nci: --no-custom-instructions | trust: --trust-folder | "
    "no_builtin_mcps: --disable-builtin-mcps"
)


def unknown(_flag: str) -> None:
    fe.fail(
        "error: Invalid command format.\nIt looks like your prompt was not quoted, so the "
        "extra words were treated as separate arguments.",
        1,
    )


def main(argv: list[str]) -> None:
    if argv[:1] in (["--version"], ["-v"]):
        fe.probe(
            f"GitHub Copilot CLI {fe.version(VERSION)}.\nRun 'copilot update' to check for updates."
        )
    if argv[:1] in (["-h"], ["--help"]):
        fe.out("Usage: copilot [options] [command]\n")
        sys.exit(0)
    resume = next((a.partition("=")[2] for a in argv if a.startswith("--resume=")), None)
    rest = [a for a in argv if not a.startswith("--resume")]
    if "--resume" in argv:
        fe.fail("fake copilot: the interactive session picker is not implemented", 1)
    opts, positionals = fe.parse_args(rest, values=VALUES, switches=SWITCHES, on_unknown=unknown)
    if positionals:
        unknown(positionals[0])
    fmt = opts.get("format", "text")
    if fmt not in ("text", "json"):
        fe.fail(
            f"error: option '--output-format <format>' argument '{fmt}' is invalid. "
            "Allowed choices are text, json.",
            1,
        )
    if fe.logged_out():
        time.sleep(0.05)
        fe.fail(AUTH_ERROR, 1)
    prompt = opts.get("prompt") or fe.read_stdin()
    if not prompt.strip():
        fe.fail(
            "No prompt provided. Run in an interactive terminal or provide a prompt with -p "
            "or via standard in.",
            1,
        )
    state = fe.home() / ".copilot" / "session-state"
    if os.environ.get("COPILOT_HOME"):
        state = Path(os.environ["COPILOT_HOME"]) / "session-state"
    if resume and not (state / resume).exists():
        fe.fail(f"Error: No session found matching '{resume}'.", 1)
    turn = fe.next_turn(prompt, argv)
    if turn.error in ("auth", "auth-invalid"):  # checked before any JSON (backends.md §3)
        fe.fail(AUTH_ERROR if turn.error == "auth" else INVALID_TOKEN, turn.code(1))
    sid = turn.session_id or resume or opts.get("session_id") or fe.new_id()
    (state / sid).mkdir(parents=True, exist_ok=True)
    may_write = bool(opts.get("allow_all_tools") or opts.get("allow_all"))
    denied = "write" in fe.all_values(argv, ("--deny-tool",))
    fe.apply(turn, os.getcwd(), write_files=may_write and not denied)
    Session(sid, fmt, bool(opts.get("silent")), may_write and not denied).answer(turn)


class Session:
    """Renders session events (json) or plain text."""

    def __init__(self, sid: str, fmt: str, silent: bool, may_write: bool) -> None:
        self.sid, self.json, self.silent, self.may_write = sid, fmt == "json", silent, may_write
        self.count = 0

    def event(self, kind: str, data: dict[str, object], **extra: object) -> None:
        self.count += 1
        if self.json:
            fe.emit(
                {
                    "type": kind,
                    "data": data,
                    "id": f"evt-{self.count}",
                    "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    **extra,
                }
            )

    def result(self, code: int, outcome: str | None = None) -> None:
        event: dict[str, object] = {
            "type": "result",
            "timestamp": int(time.time() * 1000),
            "sessionId": self.sid,
            "exitCode": code,
            "usage": {"premiumRequests": 1, "totalApiDurationMs": 900, "sessionDurationMs": 1200},
        }
        if outcome:
            event.update(outcome=outcome, blocker="session limit")
        if self.json:
            fe.emit(event)
        elif not self.silent:
            fe.err("Total usage est:        1 Premium request\n")

    def answer(self, turn: fe.Turn) -> None:
        self.event("session.start", {"sessionId": self.sid, "version": 1})
        self.event("assistant.turn_start", {"turnId": "0"})
        if turn.error in ("rate-limit", "far-limit", "backend", "quota"):
            wait = fe.duration_text(turn.reset_in_seconds)
            kind, message = {
                "quota": ("quota", OUT_OF_CREDITS),
                "backend": ("model_call", "Execution failed: Error: 500 Internal Server Error"),
            }.get(
                turn.error,
                (
                    "rate_limit",
                    "Sorry, you've hit a rate limit that restricts the number of Copilot model "
                    f"requests you can make. Please try again in {wait}.",
                ),
            )
            self.event("session.error", {"errorType": kind, "message": message})
            if not self.json:
                fe.err(f"Error: {message}\n")
            self.result(1)
            sys.exit(turn.code(1))
        if turn.error == "truncated":
            fe.out('{"type":"assistant.message","data":{"messageId":"m1","content":"' + "x" * 20)
            sys.exit(turn.code(1))
        if turn.hang:
            fe.hang_forever()
        for index, name in enumerate(turn.files):
            call = f"call_{index}"
            self.event(
                "assistant.message",
                {
                    "messageId": f"t{index}",
                    "content": "",
                    "toolRequests": [{"toolCallId": call, "name": "create"}],
                },
            )
            self.event(
                "tool.execution_start",
                {"toolCallId": call, "toolName": "create", "arguments": {"path": name}},
            )
            self.event("tool.execution_complete", {"toolCallId": call, "success": self.may_write})
            if not self.may_write:
                self.event(
                    "session.warning",
                    {"message": "Permission denied and could not request permission from user"},
                )
        if turn.ask is not None:  # ask_user: {question, choices?} (copilot SDK UserInputRequest;
            # github/copilot-cli#2929: -p never shows it), then the turn goes on
            arguments = {"question": turn.ask.get("question", ""),
                         "choices": turn.ask.get("options") or []}  # fmt: skip
            self.event(
                "tool.execution_start",
                {"toolCallId": "ask", "toolName": "ask_user", "arguments": arguments},
            )
            self.event("tool.execution_complete", {"toolCallId": "ask", "success": False})
        half = len(turn.text) // 2
        pieces = (turn.text[:half], turn.text[half:])
        if turn.signal == "chunks":  # a long answer arrives as chunks of one message
            for index, piece in enumerate(pieces):
                self.event(
                    "assistant.message",
                    {
                        "messageId": "final",
                        "content": piece,
                        "toolRequests": [],
                        "chunkIndex": index,
                        "chunkCount": len(pieces),
                    },
                )
        else:
            for piece in pieces:
                self.event(
                    "assistant.message_delta",
                    {"messageId": "final", "deltaContent": piece},
                    ephemeral=True,
                )
            self.event(
                "assistant.message",
                {"messageId": "final", "content": turn.text, "toolRequests": []},
            )
        self.event("assistant.turn_end", {"turnId": "0"})
        if not self.json:
            fe.out(turn.text + "\n")
        self.result(0)
        sys.exit(turn.code(0))


if __name__ == "__main__":
    main(sys.argv[1:])
