"""Google Gemini CLI (``gemini``): ``-o stream-json``, prompt on stdin, workspace trusted by env.

Facts from backends.md §2, §3, §5.3: a non-TTY stdin makes the run headless
and is read as the prompt; in an untrusted folder it exits 55 unless
``GEMINI_CLI_TRUST_WORKSPACE=true`` (the env form also works on versions
without ``--skip-trust``); fatal errors have their own exit codes (41 auth,
42 input, 53 turn limit, 55 untrusted) and print plain text on stderr, no
JSON; assistant text arrives as ``message`` deltas; ``result.status`` says
how it ended. ``--resume <session uuid>`` continues that session (0.61+,
``sessionUtils.ts``; the ``init`` event repeats the ``session_id``); older
versions take only an index or ``latest``, so the run core restates the task
instead (``resume_since``).

Limits (backends.md §8, issue 16): an error ends as ``result`` with
``error:{type,message}``; the type names gemini's error class
(``TerminalQuotaError``: a daily quota, ``RetryableQuotaError``: retry later,
authentication errors) and decides the kind, the message only sharpens it
("Your quota will reset after 19h14m47s" is a wait, not a dead end). When
``result.error`` is absent, the last ``error`` event gives the reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jlgcli.backends.base import Availability, BackendRequest, BackendResult
from jlgcli.backends.cli_facts import GEMINI
from jlgcli.backends.limits import classify_error_text, structured_verdict
from jlgcli.backends.probing import (
    AuthVerdict,
    ProbeContext,
    env_flag,
    first_set,
    home_dir,
    probe_cli,
    read_json_file,
)
from jlgcli.backends.stream import JsonStreamParser, short
from jlgcli.process.model import Invocation, ProcessOutcome

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.backends.base import ErrorKind
    from jlgcli.backends.limits import LimitKind

INFO = GEMINI
APPROVAL_MODES = {"read-only": "plan", "edit": "auto_edit", "full": "yolo"}
# Fatal exit codes (FatalError subclasses in the bundle, backends.md §3).
EXIT_CODES: dict[int, tuple[ErrorKind, str]] = {
    41: ("auth", "gemini has no usable authentication"),
    42: ("input", "gemini rejected its input"),
    44: ("backend", "gemini's sandbox failed"),
    52: ("backend", "gemini's configuration is invalid"),
    53: ("backend", "gemini reached its max session turns (model.maxSessionTurns)"),
    54: ("backend", "a gemini tool failed"),
    55: ("backend", "gemini does not trust this folder"),
}
# On an API error gemini exits with the HTTP status & 255 (backends.md §9;
# packages/cli/src/utils/errors.ts): the status says what the text may not.
HTTP_EXITS: dict[int, tuple[LimitKind, str]] = {
    429 & 255: ("rate-limit", "HTTP 429: rate-limited"),
    401 & 255: ("auth", "HTTP 401: not authenticated"),
    403 & 255: ("auth", "HTTP 403: permission denied by the API"),
    503 & 255: ("overloaded", "HTTP 503: the model is overloaded"),
}
_KEY_NAMES = ("GEMINI_API_KEY",)


def error_type_kind(error_type: str) -> LimitKind | None:
    """The kind gemini's ``error.type`` (its error class name) decides, if any.

    Classes from google-gemini/gemini-cli ``packages/core/src/utils/googleQuotaErrors.ts``
    (``TerminalQuotaError``, ``RetryableQuotaError``, ``ValidationRequiredError``) and
    ``FatalAuthenticationError``.
    """
    name = error_type.lower()
    if "validationrequired" in name:  # a 403 VALIDATION_REQUIRED: the account must be verified
        return "account"
    if "terminalquota" in name:  # a capacity shortage too: structured_verdict reads the text
        return "quota"
    if "retryablequota" in name or "ratelimit" in name.replace("_", ""):
        return "rate-limit"
    # core/turn.ts: a 401 becomes UnauthorizedError (backends.md §9)
    if "authentication" in name or "unauthorized" in name or name in ("auth", "unauthenticated"):
        return "auth"
    return None


def check_login(ctx: ProbeContext) -> AuthVerdict:
    """API key / Vertex / Code Assist variables, settings.json auth type, OAuth files, .env."""
    env = ctx.env
    if first_set(env, _KEY_NAMES):
        return AuthVerdict("ok", "GEMINI_API_KEY is set")
    if env_flag(env, "GOOGLE_GENAI_USE_VERTEXAI") and first_set(
        env, ("GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_APPLICATION_CREDENTIALS")
    ):
        return AuthVerdict("ok", "Vertex AI is configured")
    gemini_dir = (
        Path(env["GEMINI_CLI_HOME"]) if env.get("GEMINI_CLI_HOME") else home_dir(env)
    ) / ".gemini"
    oauth = any(
        (gemini_dir / name).is_file() for name in ("oauth_creds.json", "gemini-credentials.json")
    )
    key_in_dotenv = _dotenv_has_key(gemini_dir.parent)
    selected = _selected_auth_type(read_json_file(gemini_dir / "settings.json"))
    if selected == "gemini-api-key":
        if key_in_dotenv:
            return AuthVerdict("ok", "API key found in a .env file")
        return AuthVerdict(
            "missing", "settings.json selects an API key but GEMINI_API_KEY is not set"
        )
    if selected in ("oauth-personal", "login-with-google") and not oauth:
        return AuthVerdict(
            "missing", "settings.json selects Google login but no OAuth credentials exist"
        )
    if selected is not None:
        return AuthVerdict("ok", f"auth type {selected} (settings.json)")
    if oauth:
        return AuthVerdict("ok", "Google login credentials found")
    if key_in_dotenv:
        return AuthVerdict("ok", "API key found in a .env file")
    if env_flag(env, "GOOGLE_GENAI_USE_GCA"):
        return AuthVerdict("ok", "Code Assist login selected (GOOGLE_GENAI_USE_GCA)")
    return AuthVerdict(
        "missing", "no GEMINI_API_KEY, Vertex settings, auth type or Google login found"
    )


def _selected_auth_type(settings: object) -> str | None:
    if not isinstance(settings, dict):
        return None
    security = settings.get("security")
    auth = security.get("auth") if isinstance(security, dict) else None
    selected = auth.get("selectedType") if isinstance(auth, dict) else None
    selected = selected or settings.get("selectedAuthType")  # settings before v0.3
    return selected if isinstance(selected, str) and selected else None


def _dotenv_has_key(home: Path, cwd: Path | None = None) -> bool:
    """gemini loads the first ``.gemini/.env`` or ``.env`` from the cwd up, else the home one."""
    start = (cwd or Path.cwd()).resolve()
    for folder in [start, *start.parents, home]:
        for candidate in (folder / ".gemini" / ".env", folder / ".env"):
            try:
                text = candidate.read_text(encoding="utf-8")
            except OSError:
                continue
            names = (*_KEY_NAMES, "GOOGLE_API_KEY")
            return any(
                line.strip().removeprefix("export ").startswith(f"{name}=")
                for line in text.splitlines()
                for name in names
            )
    return False


class GeminiBackend:
    """The ``gemini`` backend."""

    id = "gemini"
    resume_since = (0, 61, 0)  # --resume <uuid> (backends.md §9)

    def probe(self, timeout: float = 2.0) -> Availability:
        """Installed, version ≥ 0.20.0, some authentication configured (no process run for it)."""
        from jlgcli.backends.node_engine import with_node_check

        return with_node_check(INFO, probe_cli(INFO, check_login, timeout=timeout))

    def invocation(self, request: BackendRequest) -> Invocation:
        """``gemini -o stream-json [...]`` with the prompt on stdin and the workspace trusted."""
        argv = ["gemini", "-o", "stream-json"]
        if request.model:
            argv += ["-m", request.model]
        if request.permissions:
            argv += ["--approval-mode", APPROVAL_MODES[request.permissions]]
        if request.resume_session:
            argv += ["--resume", request.resume_session]
        argv += request.extra_args
        env = {"GEMINI_CLI_TRUST_WORKSPACE": "true"}
        return Invocation(argv=tuple(argv), cwd=request.cwd, env=env, stdin=request.prompt)

    def parser(self) -> GeminiParser:
        """A fresh stream-json parser."""
        return GeminiParser()


class GeminiParser(JsonStreamParser):
    """``init`` → ``message``/``tool_use``/``tool_result``/``error`` → ``result``."""

    cli = "gemini"
    output_format = "stream-json events"

    def __init__(self) -> None:
        super().__init__()
        self.turn: list[str] = []  # assistant deltas since the last tool call
        self.previous_turn = ""
        self.final: dict[str, Any] | None = None
        self.tools: dict[str, tuple[str, str]] = {}  # tool_id → (name, target)

    def on_event(self, event: dict[str, Any]) -> str:
        kind = event.get("type")
        if kind == "init":
            if isinstance(event.get("session_id"), str):
                self.session_id = event["session_id"]
            if isinstance(event.get("model"), str):
                self.extra["model"] = event["model"]
        elif kind == "message" and event.get("role") == "assistant":
            content = str(event.get("content", ""))
            self.turn.append(content)
            return content
        elif kind == "tool_use":
            name, target = str(event.get("tool_name") or "tool"), _target(event.get("parameters"))
            self.tools[str(event.get("tool_id"))] = (name, target)
            shown = f"[tool] {name} {short(target, 120)}".rstrip()  # as claude's and copilot's
            return self._close_turn() + shown + "\n"
        elif kind == "tool_result" and event.get("status") == "error":
            error = event.get("error")
            message = error.get("message") if isinstance(error, dict) else ""
            error_type = str(error.get("type") or "") if isinstance(error, dict) else ""
            if _is_denial(error_type, str(message or "")):  # output/types.ts ToolResultEvent
                self.denied(*self.tools.get(str(event.get("tool_id")), ("tool", "")))
            return f"[tool] failed: {short(str(message or ''))}\n"
        elif kind == "error":
            nested = event.get("error")
            message = str(
                event.get("message")
                or (nested.get("message") if isinstance(nested, dict) else nested)
                or ""
            )
            self.note_error(message)
            return f"[gemini] {short(message)}\n"
        elif kind == "result":
            self.final = event
            self._stats(event.get("stats"))
            return self._close_turn()
        return ""

    def on_stderr_line(self, line: str) -> str:
        if line.startswith("Attempt ") and "Retrying" in line:
            return f"[gemini] {short(line)}\n"
        return ""

    def _close_turn(self) -> str:
        text = "".join(self.turn)
        self.turn = []
        if text.strip():
            self.previous_turn = text
        return "\n" if text and not text.endswith("\n") else ""

    def _stats(self, stats: object) -> None:
        if not isinstance(stats, dict):
            return
        for key in ("input_tokens", "output_tokens"):
            value = stats.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                setattr(self, key, value)

    def classify(self, outcome: ProcessOutcome) -> BackendResult:
        self._close_turn()
        final, code = self.final, outcome.exit_code
        if final is not None and final.get("status") == "success" and code == 0:
            if not self.previous_turn.strip():  # client.ts: a context overflow ends like this
                message = (
                    "gemini ended with an empty answer (status success, no text): its context "
                    "window is likely full; shorten the task or start a fresh session"
                )
                return self.failure(outcome, message, "backend")
            return self.result(outcome, ok=True, text=self.previous_turn)
        if final is not None and final.get("status") == "error":
            return self._error_result(outcome, final.get("error"))
        if final is not None:
            from jlgcli.backends.common import how_it_ended

            ended = how_it_ended("gemini", code, outcome.signal)
            message = f"{ended} after reporting {final.get('status')}"
            if self.last_error:
                return self.failure_from(outcome, f"{self.last_error} ({message})")
            return self.failure(outcome, message, "backend")
        if code in HTTP_EXITS:
            return self._http_failure(outcome, self.last_error or self._last_words())
        if code is not None and code in EXIT_CODES:
            kind, what = EXIT_CODES[code]
            verdict = classify_error_text(self._plain_text())
            if kind == "backend" and verdict is not None:
                return self.verdict_failure(outcome, verdict)
            return self.failure(outcome, f"{what} (exit code {code}): {self._last_words()}", kind)
        return self.unfinished(outcome)

    def _error_result(self, outcome: ProcessOutcome, error: object) -> BackendResult:
        """``result.status == "error"``: its ``error``, else the last ``error`` event."""
        message = str(error.get("message") or "") if isinstance(error, dict) else ""
        error_type = str(error.get("type") or "") if isinstance(error, dict) else ""
        message = message or self.last_error or "gemini failed without saying why"
        kind = error_type_kind(error_type)
        if kind is not None:
            verdict = structured_verdict(kind, message)
            return self.verdict_failure(outcome, verdict, short(message, 500))
        if classify_error_text(message) is None and outcome.exit_code in HTTP_EXITS:
            return self._http_failure(outcome, message)  # error.type "unknown": the exit says
        return self.failure_from(outcome, message)

    def _http_failure(self, outcome: ProcessOutcome, message: str) -> BackendResult:
        """An API error told by gemini's exit status (HTTP status & 255)."""
        kind, what = HTTP_EXITS[outcome.exit_code or 0]
        verdict = structured_verdict(kind, message)
        return self.verdict_failure(outcome, verdict, f"{what}: {short(message, 400)}")


def _target(parameters: object) -> str:
    if not isinstance(parameters, dict):
        return ""
    for key in ("file_path", "absolute_path", "path", "command", "url", "dir_path"):
        if isinstance(parameters.get(key), str):
            return str(parameters[key])
    return ""


def _is_denial(error_type: str, message: str) -> bool:
    """A tool result refused by gemini's approval mode or policy, not a tool that failed."""
    said = f"{error_type} {message}".lower()
    return any(word in said for word in ("permission", "denied", "policy", "not allowed"))
