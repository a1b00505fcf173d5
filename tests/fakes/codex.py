"""Fake ``codex`` (codex-cli 0.169.0 as observed in research/backends.md §2, §3, §5.2).

``codex exec [--json] [PROMPT|-]``, ``codex exec resume <id> [PROMPT|-]``,
``codex login status``, ``codex --version``. Like the real one, ``exec``
blocks until stdin reaches EOF when stdin is not a terminal, needs
``--skip-git-repo-check`` outside a git repo, and rejects unknown flags with
clap's error and exit code 2.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _fake_engine as fe

VERSION = "0.169.0"
SANDBOXES = ("read-only", "workspace-write", "danger-full-access")
VALUES = fe.table(
    "model: -m --model | sandbox: -s --sandbox | cd: -C --cd | color: --color | "
    "last_message: -o --output-last-message | schema: --output-schema | "
    "config: -c --config | profile: -p --profile | add_dir: --add-dir | image: -i --image"
)
SWITCHES = fe.table(
    "json: --json | skip_git: --skip-git-repo-check | ephemeral: --ephemeral | "
    "bypass: --dangerously-bypass-approvals-and-sandbox | oss: --oss | last: --last | "
    "all: --all"
)
LIMIT = (
    "You’ve hit your usage limit. Upgrade to Plus to continue using Codex "
    "(https://chatgpt.com/explore/plus), or try again in {when}."
)


# codex-rs/protocol/src/error.rs wordings (backends.md §8)
OUT_OF_CREDITS = "Your workspace is out of credits. Add credits to continue."
CONTEXT_FULL = (
    "Codex ran out of room in the model's context window. Start a new thread or clear "
    "earlier history before retrying."
)
UNAUTHORIZED = (
    "unexpected status 401 Unauthorized: Missing bearer or basic authentication in header"
)
# a retry codex makes by itself: non-fatal (exec_events.rs)
HICCUP = (
    "Reconnecting... 1/5 (stream disconnected before completion: Rate limit reached for "
    "gpt-6.1-sol. Please try again in 1.2s.)"
)


def unknown(flag: str) -> None:
    name = flag.split("=")[0]
    fe.fail(
        f"error: unexpected argument '{name}' found\n\n  tip: to pass '{name}' as a value, "
        f"use '-- {name}'\n\nUsage: codex exec [OPTIONS] [PROMPT] [COMMAND]\n\n"
        "For more information, try '--help'.",
        2,
    )


def codex_home() -> Path:
    return Path(os.environ["CODEX_HOME"]) if os.environ.get("CODEX_HOME") else fe.home() / ".codex"


def main(argv: list[str]) -> None:
    if argv[:1] in (["--version"], ["-V"]):
        fe.probe(f"codex-cli {fe.version(VERSION)}")
    if argv[:2] == ["login", "status"]:
        # codex-rs/cli/src/login.rs run_login_status: the stored auth (auth.json or the
        # keyring) decides; it answers on stderr in ~0.15 s (backends.md §10)
        fe.note_login_check("codex login status")
        if fe.flag("JLGCLI_FAKE_LOGIN_HANG"):  # a status check that never answers
            fe.hang_forever()
        if fe.logged_out():
            fe.probe("Not logged in", code=1, stream="stderr")
        fe.probe("Logged in using ChatGPT")
    if argv[:1] not in (["exec"], ["e"]):
        fe.fail("fake codex: only `exec`, `login status` and `--version` are implemented", 1)
    opts, positionals = fe.parse_args(
        argv[1:], values=VALUES, switches=SWITCHES, on_unknown=unknown
    )
    sandbox = opts.get("sandbox", "read-only")
    if sandbox not in SANDBOXES:
        fe.fail(
            f"error: invalid value '{sandbox}' for '--sandbox <SANDBOX_MODE>'\n"
            f"  [possible values: {', '.join(SANDBOXES)}]",
            2,
        )
    resume = None
    if positionals[:1] == ["resume"]:
        positionals = positionals[1:]
        if not opts.get("last"):
            if not positionals:
                fe.fail(
                    "error: the following required arguments were not provided:\n  <SESSION_ID>", 2
                )
            resume = positionals.pop(0)
    cwd = opts.get("cd") or os.getcwd()
    if not opts.get("skip_git") and not fe.in_git_repo(cwd):
        fe.fail("Not inside a trusted directory and --skip-git-repo-check was not specified.", 1)
    prompt = read_prompt(positionals[0] if positionals else None)
    if resume and not (codex_home() / "sessions" / resume).exists():
        fe.fail(
            f"Error: thread/resume: thread/resume failed: no rollout found for thread id "
            f"{resume} (code -32600)",
            1,
        )
    Exec(opts, cwd, prompt, argv, resume).go()


def read_prompt(positional: str | None) -> str:
    if positional is None or positional == "-":
        fe.err("Reading prompt from stdin...\n")
        prompt = fe.read_stdin()  # blocks until EOF, like the real one (openai/codex#20919)
        if not prompt.strip():
            fe.fail("No prompt provided via stdin.", 1)
        return prompt
    if sys.stdin is not None and not sys.stdin.isatty():
        fe.err("Reading additional input from stdin...\n")
        extra = fe.read_stdin()
        if extra.strip():
            return f"{positional}\n\n<stdin>\n{extra}\n</stdin>"
    return positional


class Exec:
    """One ``codex exec`` call, human (stderr header + stdout answer) or ``--json``."""

    def __init__(
        self, opts: dict[str, str], cwd: str, prompt: str, argv: list[str], resume: str | None
    ) -> None:
        self.opts, self.cwd, self.prompt, self.argv, self.resume = opts, cwd, prompt, argv, resume
        self.json = bool(opts.get("json"))
        self.items = 0

    def go(self) -> None:
        if fe.logged_out():
            # a logged-out codex never fails fast: 0.171.0 keeps "Reconnecting... waiting for
            # network" until it is stopped (backends.md §10; issue 48: runs reached --timeout)
            self.sid = self.resume or fe.new_id()
            self.start()
            self.error("Reconnecting... waiting for network")
            fe.hang_forever()
        turn = fe.next_turn(self.prompt, self.argv)
        self.sid = turn.session_id or self.resume or fe.new_id()
        if not self.opts.get("ephemeral"):
            session = codex_home() / "sessions" / self.sid
            session.mkdir(parents=True, exist_ok=True)
        # exec's default sandbox is read-only (backends.md §2): no -s, no writes (issue 34)
        writable = self.opts.get("sandbox", "read-only") != "read-only" or self.opts.get("bypass")
        self.writable = bool(writable)
        fe.apply(turn, self.cwd, write_files=self.writable)
        self.start()
        if turn.signal == "hiccup":
            self.error(HICCUP)
        if turn.error == "auth":
            self.turn_failed("exceeded retry limit, last status: 401 Unauthorized", turn.code(1))
        if turn.error == "auth-invalid":
            self.turn_failed(UNAUTHORIZED, turn.code(1))
        if turn.error == "quota":
            self.turn_failed(OUT_OF_CREDITS, turn.code(1))
        if turn.error == "context":
            self.turn_failed(CONTEXT_FULL, turn.code(1))
        if turn.error in ("rate-limit", "far-limit"):
            message = LIMIT.format(when=fe.duration_text(turn.reset_in_seconds))
            self.error(message)
            self.turn_failed(message, turn.code(1))
        if turn.error == "backend":
            message = "stream error: unexpected status 500 Internal Server Error"
            self.error(message)
            self.turn_failed(message, turn.code(1))
        if turn.error == "truncated":
            fe.out('{"type":"item.completed","item":{"id":"item_0","type":"agent_mess')
            sys.exit(turn.code(1))
        if turn.hang:
            self.error("Reconnecting... 1/5 (stream disconnected before completion)")
            fe.hang_forever()
        for name in turn.files:
            self.item(
                {
                    "type": "file_change",
                    "changes": [{"path": name, "kind": "add"}],
                    # exec_events.rs PatchApplyStatus: a patch the read-only sandbox refused
                    "status": "completed" if self.writable else "failed",
                }
            )
        text = turn.text
        schema = self.opts.get("schema")
        if schema is not None:  # exec --output-schema FILE: the final message conforms to it
            json.loads(Path(schema).read_text(encoding="utf-8"))
            if turn.structured is not None:
                text = json.dumps(turn.structured)
        self.item({"type": "agent_message", "text": text})
        if self.json:
            # the usage is the thread's running total (backends.md §8): 1200 in / 34 out per turn
            turns = self.count_turn()
            fe.emit(
                {
                    "type": "turn.completed",
                    "usage": {
                        "input_tokens": 1200 * turns,
                        "cached_input_tokens": 200 * turns,
                        "output_tokens": 34 * turns,
                        "reasoning_output_tokens": 0,
                    },
                }
            )
        else:
            fe.out(turn.text + "\n")
            fe.err("tokens used\n1234\n")
        sys.exit(turn.code(0))

    def count_turn(self) -> int:
        """Turns of this thread so far, this one included (kept in its session folder)."""
        counter = codex_home() / "sessions" / self.sid / "turns"
        if self.opts.get("ephemeral"):
            return 1
        try:
            turns = int(counter.read_text(encoding="utf-8")) + 1
        except (OSError, ValueError):
            turns = 1
        counter.parent.mkdir(parents=True, exist_ok=True)
        counter.write_text(str(turns), encoding="utf-8")
        return turns

    def start(self) -> None:
        if self.json:
            fe.emit({"type": "thread.started", "thread_id": self.sid})
            fe.emit({"type": "turn.started"})
            return
        fe.err(
            f"OpenAI Codex v{fe.version(VERSION)} (research preview)\n--------\n"
            f"workdir: {self.cwd}\nmodel: {self.opts.get('model', 'gpt-6.1-sol')}\n"
            f"provider: openai\napproval: never\n"
            f"sandbox: {self.opts.get('sandbox', 'read-only')}\n"
            f"session id: {self.sid}\n--------\nuser\n{self.prompt}\n"
        )

    def item(self, item: dict[str, object]) -> None:
        if self.json:
            fe.emit({"type": "item.completed", "item": {"id": f"item_{self.items}", **item}})
        self.items += 1

    def error(self, message: str) -> None:
        if self.json:
            fe.emit({"type": "error", "message": message})
        else:
            fe.err(f"ERROR: {message}\n")

    def turn_failed(self, message: str, code: int) -> None:
        if self.json:
            fe.emit({"type": "turn.failed", "error": {"message": message}})
        else:
            fe.err(f"ERROR: {message}\n")
        sys.exit(code)


if __name__ == "__main__":
    main(sys.argv[1:])
