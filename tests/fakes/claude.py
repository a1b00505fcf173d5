"""Fake ``claude`` (Claude Code 2.1.197 as observed in research/backends.md §2, §3, §5.1).

Flags, refusals and output formats (text, json, stream-json) of the real CLI;
turns come from the scripted engine (``_fake_engine.py``).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _fake_engine as fe

VERSION = "2.1.197"
NOT_LOGGED_IN = "Not logged in · Please run /login"
# total_cost_usd is the session's running total from 2.1.277 on: a process started with
# --resume restores the total the session saved (the 2.1.332 result schema: "read the latest
# result rather than summing"; measured on 2.1.278 in Enderfga/claw-orchestrator#112; 2.1.221
# restarted at the process's own spend, iOfficeAI/AionCore#767).
CUMULATIVE_COST_SINCE = (2, 1, 277)
TURN_COST = 0.0123
# claude 2.1.39+ refuses to start inside another Claude Code session (anthropics/claude-code#25434)
NESTED = (
    "Error: Claude Code cannot be launched inside another Claude Code session.\n"
    "Nested sessions share runtime resources and will crash all active sessions.\n"
    "To bypass this check, unset the CLAUDECODE environment variable."
)
FORMATS = ("text", "json", "stream-json")
MODES = ("acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "plan")
VALUES = fe.table(
    "format: --output-format | model: --model | mode: --permission-mode | "
    "resume: -r --resume | session_id: --session-id | "
    "allowed: --allowedTools --allowed-tools | "
    "denied: --disallowedTools --disallowed-tools | max_turns: --max-turns | "
    "asp: --append-system-prompt | sp: --system-prompt | add_dir: --add-dir | "
    "fallback: --fallback-model | input_format: --input-format | settings: --settings | "
    "mcp: --mcp-config | budget: --max-budget-usd | effort: --effort | tools: --tools | "
    "schema: --json-schema | prompts: --permission-prompts"
)
# --permission-prompts host|none is in 2.1.332's --help, not in 2.1.197's (backends.md §10)
PERMISSION_PROMPTS_SINCE = (2, 1, 332)
SWITCHES = fe.table(
    "print: -p --print | verbose: --verbose | continue: -c --continue | "
    "skip_permissions: --dangerously-skip-permissions | "
    "partial: --include-partial-messages | no_persist: --no-session-persistence | "
    "fork: --fork-session | bare: --bare | replay: --replay-user-messages"
)


def unknown(flag: str) -> None:
    fe.fail(f"error: unknown option '{flag.split('=')[0]}'", 1)


def session_file(session_id: str, cwd: str) -> Path:
    # ~/.claude/projects/<cwd with every non-alphanumeric char → "-">/<id>.jsonl (backends.md §6)
    encoded = re.sub(r"[^A-Za-z0-9]", "-", str(Path(cwd).resolve()))
    return fe.home() / ".claude" / "projects" / encoded / f"{session_id}.jsonl"


def main(argv: list[str]) -> None:
    if argv[:1] in (["--version"], ["-v"]):
        fe.probe(f"{fe.version(VERSION)} (Claude Code)")
    if argv[:2] == ["auth", "status"]:
        auth_status("--text" in argv)
    if argv[:1] in (["-h"], ["--help"]):
        fe.out("Usage: claude [options] [command] [prompt]\n")
        sys.exit(0)
    if os.environ.get("CLAUDECODE"):
        fe.fail(NESTED, 1)
    opts, positionals = fe.parse_args(argv, values=VALUES, switches=SWITCHES, on_unknown=unknown)
    version = tuple(int(p) for p in fe.version(VERSION).split(".")[:3] if p.isdigit())
    if "prompts" in opts and version < PERMISSION_PROMPTS_SINCE:
        unknown("--permission-prompts")
    if opts.get("prompts", "none") not in ("host", "none"):
        fe.fail(f"error: option '--permission-prompts' argument '{opts['prompts']}' is invalid.", 1)
    fmt = opts.get("format", "text")
    if fmt not in FORMATS:
        fe.fail(
            f"error: option '--output-format <format>' argument '{fmt}' is invalid. "
            f"Allowed choices are {', '.join(FORMATS)}.",
            1,
        )
    mode = opts.get("mode", "default")
    if mode not in MODES:
        fe.fail(
            f"error: option '--permission-mode <mode>' argument '{mode}' is invalid. "
            f"Allowed choices are {', '.join(MODES)}.",
            1,
        )
    if not opts.get("print"):
        fe.fail("fake claude: the interactive TUI is not implemented; use -p", 1)
    if fmt == "stream-json" and not opts.get("verbose"):
        fe.fail("Error: When using --print, --output-format=stream-json requires --verbose", 1)
    bypass = mode == "bypassPermissions" or opts.get("skip_permissions")
    is_root = getattr(os, "geteuid", lambda: 1)() == 0
    if bypass and is_root and os.environ.get("IS_SANDBOX") != "1":
        fe.fail(
            "--dangerously-skip-permissions cannot be used with root/sudo privileges for "
            "security reasons",
            1,
        )
    stdin = fe.read_stdin(
        give_up_after=3.0,
        warning=(
            "Warning: no stdin data received in 3s, proceeding without it. If piping from a slow "
            "command, redirect stdin explicitly: < /dev/null to skip, or wait longer.\n"
        ),
    )
    prompt = "\n\n".join(part for part in (stdin.strip("\n"), " ".join(positionals)) if part)
    if not prompt.strip():
        fe.fail(
            "Error: Input must be provided either through stdin or as a prompt argument "
            "when using --print",
            1,
        )
    Run(opts, fmt, prompt, argv).go()


def auth_status(text: bool) -> None:
    fe.note_login_check("claude auth status")
    if fe.logged_out():
        if text:
            fe.probe("Not logged in. Run claude auth login to authenticate.", code=1)
        fe.probe(
            json.dumps(
                {"loggedIn": False, "authMethod": "none", "apiProvider": "firstParty"}, indent=2
            ),
            code=1,
        )
    if text:
        fe.probe("Logged in with a Claude account.")
    fe.probe(
        json.dumps(
            {
                "loggedIn": True,
                "authMethod": "claude.ai",
                "apiProvider": "firstParty",
                "email": "fake@example.com",
            },
            indent=2,
        )
    )


class Run:
    """One ``claude -p`` call rendered in the requested output format."""

    def __init__(self, opts: dict[str, str], fmt: str, prompt: str, argv: list[str]) -> None:
        self.opts, self.fmt, self.prompt, self.argv = opts, fmt, prompt, argv
        self.cwd = os.getcwd()
        self.model = opts.get("model", "claude-sonnet-4-5")
        self.started = time.time()

    def go(self) -> None:
        resume = self.opts.get("resume")
        if resume and not session_file(resume, self.cwd).exists():
            self.no_conversation(resume)
        if fe.logged_out():
            self.sid = resume or fe.new_id()
            self.failure(NOT_LOGGED_IN, "authentication_failed", 1, api_key_source="none")
        earlier = ""
        if resume:  # what the session was told before: its logged prompts
            lines = session_file(resume, self.cwd).read_text("utf-8").splitlines()
            earlier = "\n".join(str(json.loads(line).get("content", "")) for line in lines)
        turn = fe.next_turn(self.prompt, self.argv, session=earlier)
        self.sid = turn.session_id or resume or self.opts.get("session_id") or fe.new_id()
        path = session_file(self.sid, self.cwd)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as log:
            log.write(json.dumps({"type": "user", "content": self.prompt}) + "\n")
        fe.apply(turn, self.cwd, write_files=self.may_write())
        self.answer(turn)

    def session_total(self, own: float) -> float:
        """``total_cost_usd`` of this call: its own cost, plus what the session saved before
        when this version restores it; the session log keeps the new total."""
        path = session_file(self.sid, self.cwd)
        saved = 0.0
        version = tuple(int(p) for p in fe.version(VERSION).split(".")[:3] if p.isdigit())
        if version >= CUMULATIVE_COST_SINCE:
            for line in path.read_text(encoding="utf-8").splitlines():
                entry = json.loads(line)
                if entry.get("type") == "cost":
                    saved = float(entry["total"])
        total = round(saved + own, 6)
        with path.open("a", encoding="utf-8") as log:
            log.write(json.dumps({"type": "cost", "total": total}) + "\n")
        return total

    def structured(self, turn: fe.Turn) -> dict[str, object]:
        """With ``--json-schema`` the result carries ``structured_output`` (backends.md §9)."""
        schema = self.opts.get("schema")
        if schema is None:
            return {}
        json.loads(schema)  # a schema that is not JSON is a crash of the fake: the test sees it
        return {"structured_output": turn.structured} if turn.structured is not None else {}

    def may_write(self) -> bool:
        """Headless ``-p`` refuses tools that need approval: edits only with acceptEdits or
        bypassPermissions (backends.md §9; claude-agent-sdk-python ``types.py``
        ``PermissionMode``)."""
        mode = self.opts.get("mode", "default")
        return mode in ("acceptEdits", "bypassPermissions") or bool(
            self.opts.get("skip_permissions")
        )

    def no_conversation(self, session_id: str) -> None:
        message = f"No conversation found with session ID: {session_id}"
        if self.fmt == "text":
            fe.fail(message, 1)
        self.sid = session_id
        self.stream_init()
        self.emit_final(
            {
                "type": "result",
                "subtype": "error_during_execution",
                "is_error": True,
                "num_turns": 0,
                "errors": [message],
            }
        )
        sys.exit(1)

    def answer(self, turn: fe.Turn) -> None:
        if turn.error == "auth":
            self.failure(NOT_LOGGED_IN, "authentication_failed", turn.code(1), "none")
        if turn.error in ("rate-limit", "far-limit"):
            reset = fe.reset_at(turn)
            weekly = turn.error == "far-limit"
            self.stream_init()
            self.limit_event(reset, "seven_day" if weekly else "five_hour")
            when = f"in {fe.duration_text(turn.reset_in_seconds)}" if weekly else None
            text = (
                f"You’ve hit your weekly limit · resets {when}"
                if weekly
                else f"You've hit your limit · resets {fe.clock_text(reset)} (UTC)"
            )
            self.failure(text, "rate_limit", turn.code(1), init=False)
        if turn.error == "legacy-limit":  # claude 2.0.x: no rate_limit_event, no assistant.error
            text = f"5-hour limit reached ∙ resets {fe.clock_text(fe.reset_at(turn))}"
            self.failure(text, None, turn.code(1))
        if turn.error == "quota":
            self.failure("You're out of usage credits", "billing_error", turn.code(1))
        if turn.error == "credit-low":  # both binaries; 2.1.x adds error "billing_error" (§10)
            legacy = fe.version(VERSION).startswith("2.0.")
            self.failure("Credit balance is too low", None if legacy else "billing_error", 1)
        if turn.error == "account-on-hold":  # 2.1.332's assistant.error (backends.md §10)
            text = "Your account is on hold. View details or appeal: https://claude.ai/restricted"
            self.failure(text, "account_on_hold", turn.code(1), reason="api_error")
        if turn.error == "overloaded":  # in the assistant.error enum of both versions, no 529
            self.failure("API Error: Overloaded", "overloaded", turn.code(1), reason="api_error")
        if turn.error == "auth-invalid":
            self.failure("Invalid API key · Fix external API key", "authentication_failed", 1)
        if turn.error == "backend":
            self.failure(
                'API Error: 500 {"type":"error","error":{"type":"api_error",'
                '"message":"Internal server error"}}',
                "server_error",
                turn.code(1),
            )
        if turn.error == "truncated":
            if self.fmt == "text":
                fe.out(turn.text[: max(1, len(turn.text) // 2)])
            else:
                self.stream_init()
                fe.out(
                    '{"type":"assistant","message":{"content":[{"type":"text","text":"'
                    + turn.text[: len(turn.text) // 2].replace('"', "")
                )
            sys.exit(turn.code(1))
        if turn.hang:
            if self.fmt == "stream-json":
                self.stream_init()
                for attempt in (1, 2):
                    fe.emit(
                        {
                            "type": "system",
                            "subtype": "api_retry",
                            "attempt": attempt,
                            "max_retries": 10,
                            "retry_delay_ms": 524.4 * attempt,
                            "error_status": None,
                            "error": "unknown",
                            "session_id": self.sid,
                            "uuid": fe.new_id(),
                        }
                    )
            fe.hang_forever()
        self.success(turn)

    def limit_event(self, reset: float, kind: str, **extra: object) -> None:
        if self.fmt != "stream-json":
            return
        fe.emit(
            {
                "type": "rate_limit_event",
                "rate_limit_info": {
                    "status": "rejected",
                    "resetsAt": int(reset),
                    "rateLimitType": kind,
                    **extra,
                },
                "session_id": self.sid,
                "uuid": fe.new_id(),
            }
        )

    def stream_init(self, api_key_source: str = "ANTHROPIC_API_KEY") -> None:
        if self.fmt != "stream-json":
            return
        fe.emit(
            {
                "type": "system",
                "subtype": "init",
                "cwd": self.cwd,
                "session_id": self.sid,
                "tools": ["Task", "Bash", "Edit", "Read", "Write"],
                "mcp_servers": [],
                "model": self.model,
                "permissionMode": self.opts.get("mode", "default"),
                "apiKeySource": api_key_source,
                "claude_code_version": fe.version(VERSION),
                "output_style": "default",
                "uuid": fe.new_id(),
            }
        )

    def assistant(self, content: list[dict[str, object]], error: str | None = None) -> None:
        event: dict[str, object] = {
            "type": "assistant",
            "parent_tool_use_id": None,
            "session_id": self.sid,
            "uuid": fe.new_id(),
            "message": {
                "id": fe.new_id(),
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": content,
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 12, "output_tokens": 7},
            },
        }
        if error:
            event["error"] = error
        fe.emit(event)

    def emit_final(self, fields: dict[str, object]) -> None:
        event = {
            "duration_ms": int((time.time() - self.started) * 1000),
            "duration_api_ms": 0,
            "stop_reason": None,
            "session_id": self.sid,
            "modelUsage": {},
            "permission_denials": [],
            "uuid": fe.new_id(),
            **fields,
        }
        if self.fmt != "text":
            fe.out(json.dumps(event, ensure_ascii=False) + "\n")

    def failure(
        self,
        text: str,
        error: str | None,
        code: int,
        api_key_source: str = "ANTHROPIC_API_KEY",
        init: bool = True,
        reason: str = "completed",
    ) -> None:
        if self.fmt == "text":
            fe.out(text + "\n")
            sys.exit(code)
        if init:
            self.stream_init(api_key_source)
        if self.fmt == "stream-json":
            self.assistant([{"type": "text", "text": text}], error=error)
        self.emit_final(
            {
                "type": "result",
                "subtype": "success",
                "is_error": True,
                "api_error_status": None,
                "num_turns": 1,
                "result": text,
                "total_cost_usd": 0,
                "usage": {"input_tokens": 0, "output_tokens": 0},
                "terminal_reason": reason,
            }
        )
        sys.exit(code)

    def ask_user(self, ask: dict[str, object]) -> int:
        """The AskUserQuestion tool_use: ``{"questions": [{"question", "header", "options":
        [{"label", "description"}], "multiSelect"}]}`` (Claude Agent SDK, "Handle approvals
        and user input", code.claude.com/docs/en/agent-sdk/user-input). Headless, nobody
        answers: the tool_result this fake gives is an error (its wording is the fake's own)."""
        labels = ask.get("options") if isinstance(ask.get("options"), list) else []
        question = {
            "question": ask.get("question", ""),
            "header": "Question",
            "options": [{"label": str(label), "description": ""} for label in labels or []],
            "multiSelect": False,
        }
        tool_id = "toolu_ask"
        self.assistant([{"type": "tool_use", "id": tool_id, "name": "AskUserQuestion",
                         "input": {"questions": [question]}}])  # fmt: skip
        result = {"type": "tool_result", "tool_use_id": tool_id, "is_error": True,
                  "content": "fake claude: no user to answer in -p mode"}  # fmt: skip
        fe.emit({"type": "user", "session_id": self.sid,
                 "message": {"role": "user", "content": [result]}})  # fmt: skip
        return 1

    def success(self, turn: fe.Turn) -> None:
        if self.fmt == "text":
            fe.out(turn.text + "\n")
            sys.exit(turn.code(0))
        self.stream_init()
        if turn.signal == "overage":  # the limit is hit, the turn goes on billed as extra usage
            self.limit_event(fe.reset_at(turn), "five_hour", isUsingOverage=True)
        turns = 1
        allowed = self.may_write()
        denials: list[dict[str, object]] = []
        if self.fmt == "stream-json":
            for index, name in enumerate(turn.files):
                tool_id = f"toolu_{index:02d}"
                self.assistant(
                    [
                        {
                            "type": "tool_use",
                            "id": tool_id,
                            "name": "Write",
                            "input": {"file_path": name, "content": "…"},
                        }
                    ]
                )
                path = str(Path(self.cwd) / name)
                result: dict[str, object] = {"type": "tool_result", "tool_use_id": tool_id}
                if allowed:
                    result["content"] = "File written"
                else:  # the wording claude gives a denied tool use in -p mode
                    result["content"] = (
                        f"Claude requested permissions to write to {path}, "
                        "but you haven't granted it yet."
                    )
                    result["is_error"] = True
                    denials.append(
                        {
                            "tool_name": "Write",
                            "tool_use_id": tool_id,
                            "tool_input": {"file_path": path, "content": "…"},
                        }
                    )
                fe.emit(
                    {
                        "type": "user",
                        "session_id": self.sid,
                        "message": {"role": "user", "content": [result]},
                    }
                )
                turns += 1
            if turn.ask is not None:
                turns += self.ask_user(turn.ask)
            self.assistant([{"type": "text", "text": turn.text}])
        budget = self.opts.get("budget")
        own = TURN_COST if turn.cost_usd is None else float(turn.cost_usd)
        total = self.session_total(own)
        if budget is not None and float(budget) < total:  # the session's cost passed the cap
            # --max-budget-usd ends the turn with subtype error_max_budget_usd (backends.md §9)
            self.emit_final(
                {
                    "type": "result",
                    "subtype": "error_max_budget_usd",
                    "is_error": True,
                    "num_turns": turns,
                    "total_cost_usd": total,
                    "usage": {"input_tokens": 12, "output_tokens": 7},
                    "errors": [f"Reached maximum budget (${float(budget):g})"],
                }
            )
            sys.exit(1)
        self.emit_final(
            {
                "type": "result",
                "subtype": "success",
                "is_error": False,
                "num_turns": turns,
                "result": turn.text,
                **self.structured(turn),
                "permission_denials": denials,
                "total_cost_usd": total,
                "usage": {
                    "input_tokens": 12,
                    "cache_creation_input_tokens": 100,
                    "cache_read_input_tokens": 300,
                    "output_tokens": 7,
                },
                "terminal_reason": "completed",
            }
        )
        sys.exit(turn.code(0))


if __name__ == "__main__":
    main(sys.argv[1:])
