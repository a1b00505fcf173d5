"""OpenAI Codex (``codex``): ``exec --json --skip-git-repo-check -``, prompt on stdin.

Facts from backends.md §2, §3, §5.2, §7: ``exec`` hangs forever on an open
stdin pipe (the prompt goes on stdin, which is then closed); it does not fail
fast without a login (``codex login status`` is checked first, in the probe);
JSONL events end with ``turn.completed`` or ``turn.failed``; the final answer
is the last ``agent_message`` item; logs and warnings go to stderr even on
success, so stderr alone never means failure.

Limits (backends.md §8, issue 16): ``{"type":"error","message":"Reconnecting...
1/5 …"}`` is a retry codex makes by itself, not a failure; only
``turn.failed`` (or an exit without ``turn.completed``) ends the turn, and the
failure is classified from ``turn.failed.error.message`` alone.
"""

from __future__ import annotations

import os

from jlgcli.backends.base import Availability, BackendRequest, BackendResult
from jlgcli.backends.cli_facts import CODEX
from jlgcli.backends.limits import find_auth_error
from jlgcli.backends.probing import (
    AuthCheck,
    AuthVerdict,
    ProbeContext,
    broken_verdict,
    first_set,
    home_dir,
    login_left_to_the_call,
    probe_cli,
)
from jlgcli.backends.stream import JsonStreamParser, short
from jlgcli.process.model import Invocation, ProcessOutcome

TYPE_CHECKING = False

if TYPE_CHECKING:
    import tempfile
    from typing import Any

INFO = CODEX
SANDBOXES = {"read-only": "read-only", "edit": "workspace-write", "full": "danger-full-access"}
# What a command prints when the sandbox (Landlock/seccomp, Seatbelt) refused it.
_SANDBOX_WORDS = ("Read-only file system", "Operation not permitted", "Permission denied")


def check_login(ctx: ProbeContext) -> AuthVerdict:
    """``CODEX_API_KEY`` (read by ``exec``) or ``codex login status`` (stored credentials)."""
    if first_set(ctx.env, ("CODEX_API_KEY",)):
        return AuthVerdict("ok", "CODEX_API_KEY is set")
    answer = ctx.run("login", "status")
    if answer is None or answer.timed_out:
        return AuthVerdict("unknown", "`codex login status` did not answer in time")
    broken = broken_verdict(INFO.executable, answer)
    if broken is not None:
        return broken
    said = " ".join((answer.stdout + " " + answer.stderr).split())
    if answer.exit_code == 0:
        return AuthVerdict("ok", short(said, 120) or "logged in")
    if find_auth_error(said):
        return AuthVerdict("missing", "not logged in (`codex login status`)")
    return AuthVerdict(
        "unknown", f"`codex login status` failed (exit {answer.exit_code}): {short(said, 200)}"
    )


class CodexBackend:
    """The ``codex`` backend."""

    id = "codex"

    def __init__(self) -> None:
        # thread id → (input, output) token totals last reported: a resumed thread's
        # turn.completed.usage is the thread's total, not this call's (backends.md §8).
        self._thread_totals: dict[str, tuple[int, int]] = {}
        self._schema_dir: tempfile.TemporaryDirectory[str] | None = None
        self._login_seen = False  # a login check beside a call said "logged in"

    def probe(self, timeout: float = 2.0) -> Availability:
        """Installed, version ≥ 0.50.0, logged in (``codex login status`` or ``CODEX_API_KEY``)."""
        from jlgcli.backends.node_engine import with_node_check

        return with_node_check(INFO, probe_cli(INFO, check_login, timeout=timeout))

    def probe_installed(self, timeout: float = 2.0) -> Availability:
        """``probe`` without the login check, for ``run``/``loop`` (issue 34): the first
        call starts sooner and an auth failure is read from the call itself (exit 6)."""
        return probe_cli(INFO, login_left_to_the_call, timeout=timeout)

    def login_check(self) -> AuthCheck | None:
        """The login check to run beside a call (issue 48: a logged-out ``exec`` hangs), or
        None when none is needed: ``CODEX_API_KEY`` is set, the credentials file ``codex
        login status`` reads first is there (codex-rs/cli/src/login.rs: the stored auth,
        ``$CODEX_HOME/auth.json`` unless kept in the keyring), or a check said "logged in"."""
        if self._login_seen or first_set(os.environ, ("CODEX_API_KEY",)):
            return None
        from pathlib import Path

        configured = os.environ.get("CODEX_HOME")
        codex_home = Path(configured) if configured else home_dir(os.environ) / ".codex"
        if (codex_home / "auth.json").is_file():
            return None

        def check(ctx: ProbeContext) -> AuthVerdict:
            verdict = check_login(ctx)
            self._login_seen = verdict.state == "ok"
            return verdict

        return check

    def invocation(self, request: BackendRequest) -> Invocation:
        """``codex exec --json --skip-git-repo-check [...] [resume <id>] -``, prompt on stdin.

        ``extra_args`` go before ``-``/``resume`` so clap reads them as ``exec`` options.
        """
        argv = ["codex", "exec", "--json", "--skip-git-repo-check"]
        if request.model:
            argv += ["-m", request.model]
        if request.permissions:
            argv += ["-s", SANDBOXES[request.permissions]]
        if request.output_schema is not None:  # the final message is a status object
            argv += ["--output-schema", self._schema_file(request.output_schema)]
        argv += request.extra_args
        if request.resume_session:
            argv += ["resume", request.resume_session]
        argv.append("-")
        return Invocation(argv=tuple(argv), cwd=request.cwd, stdin=request.prompt)

    def _schema_file(self, schema: str) -> str:
        """``exec --output-schema`` takes a file: one per backend, removed with it."""
        import tempfile
        from pathlib import Path

        if self._schema_dir is None:
            self._schema_dir = tempfile.TemporaryDirectory(prefix="jlgcli-schema-")
        path = Path(self._schema_dir.name) / "status.schema.json"
        if not path.is_file() or path.read_text(encoding="utf-8") != schema:
            path.write_text(schema, encoding="utf-8")
        return str(path)

    def parser(self) -> CodexParser:
        """A fresh ``exec --json`` parser (sharing this backend's per-thread token totals)."""
        return CodexParser(thread_totals=self._thread_totals)


class CodexParser(JsonStreamParser):
    """``thread.started`` → ``turn.started`` → ``item.*``/``error`` → ``turn.completed|failed``."""

    cli = "codex"
    output_format = "`exec --json` events"

    def __init__(self, *, thread_totals: dict[str, tuple[int, int]] | None = None) -> None:
        super().__init__()
        self.thread_totals = {} if thread_totals is None else thread_totals
        self._baseline: tuple[int, int] | None = None  # the thread's totals before this call
        self.last_message = ""
        self.terminal: str | None = None  # "completed" | "failed"
        self.failure_message = ""

    def on_event(self, event: dict[str, Any]) -> str:
        kind = event.get("type")
        if kind == "thread.started" and isinstance(event.get("thread_id"), str):
            self.session_id = event["thread_id"]
        elif kind in ("item.started", "item.completed"):
            item = event.get("item")
            return self._item(item, kind == "item.completed") if isinstance(item, dict) else ""
        elif kind == "turn.completed":
            self.terminal = "completed"
            self._usage(event.get("usage"))
        elif kind == "turn.failed":
            self.terminal = "failed"
            error = event.get("error")
            message = error.get("message") if isinstance(error, dict) else None
            self.failure_message = str(message or "codex reported turn.failed")
        elif kind == "request_user_input":  # the agent asks the user (issue 51)
            self.tool_called(kind, {"questions": event.get("questions")})
        elif kind == "error":
            message = str(event.get("message", ""))
            if not _is_retry_notice(message):
                self.note_error(message)
            return f"[codex] {short(message)}\n"
        return ""

    def _item(self, item: dict[str, Any], completed: bool) -> str:
        kind = item.get("type")
        if completed:
            self._denial(item)
        if kind == "agent_message" and completed:
            text = str(item.get("text", ""))
            if text.strip():
                self.last_message = text
                return text.rstrip("\n") + "\n"
        elif kind == "command_execution" and not completed:
            return f"[run] {short(str(item.get('command', '')), 120)}\n"
        elif kind == "file_change" and completed:
            changes = item.get("changes")
            paths = (
                [str(c.get("path")) for c in changes if isinstance(c, dict)]
                if isinstance(changes, list)
                else []
            )
            return f"[edit] {short(', '.join(paths), 120)}\n" if paths else ""
        elif kind == "mcp_tool_call" and not completed:
            return f"[tool] {item.get('server', '?')}.{item.get('tool', '?')}\n"
        elif kind == "web_search" and not completed:
            return f"[search] {short(str(item.get('query', '')), 120)}\n"
        elif kind == "error" and completed:  # non-fatal (exec_events.rs): shown, not the cause
            return f"[codex] {short(str(item.get('message', '')))}\n"
        return ""

    def _denial(self, item: dict[str, Any]) -> None:
        """A sandbox denial (exec_events.rs): a command ``declined``, or one that failed on
        the sandbox's read-only file system; a patch (``file_change``) that ``failed``."""
        kind, status = item.get("type"), item.get("status")
        if kind == "command_execution":
            output = str(item.get("aggregated_output") or "")
            refused = status == "declined" or (
                status == "failed" and any(s in output for s in _SANDBOX_WORDS)
            )
            if refused:
                self.denied("shell", str(item.get("command") or ""))
        elif kind == "file_change" and status == "failed":
            changes = item.get("changes")
            paths = (
                [str(c.get("path")) for c in changes if isinstance(c, dict)]
                if isinstance(changes, list)
                else []
            )
            self.denied("edit", ", ".join(paths))

    def _usage(self, usage: object) -> None:
        """This call's tokens: the thread total minus what earlier calls on it reported."""
        if not isinstance(usage, dict):
            return
        values = [usage.get(key) for key in ("input_tokens", "output_tokens")]
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return
        total = (int(values[0] or 0), int(values[1] or 0))
        thread = self.session_id or ""
        if self._baseline is None:
            self._baseline = self.thread_totals.get(thread, (0, 0))
        grew = all(now >= then for now, then in zip(total, self._baseline, strict=True))
        before = self._baseline if grew else (0, 0)  # a new thread under a reused id
        self.input_tokens, self.output_tokens = total[0] - before[0], total[1] - before[1]
        if thread:
            self.thread_totals[thread] = total

    def classify(self, outcome: ProcessOutcome) -> BackendResult:
        if self.terminal == "completed" and outcome.exit_code == 0:
            return self.result(outcome, ok=True, text=self.last_message)
        if self.terminal == "failed":
            return self.failure_from(outcome, self.failure_message)
        if self.terminal == "completed":
            from jlgcli.backends.common import how_it_ended

            ended = how_it_ended("codex", outcome.exit_code, outcome.signal)
            message = f"{ended} after its turn completed"
            return self.failure(outcome, message, "backend")
        return self.unfinished(outcome)


def _is_retry_notice(message: str) -> bool:
    """codex retrying by itself ("Reconnecting... 1/5 (…)"): progress, not the turn's failure."""
    return message.lstrip().lower().startswith("reconnecting")
