"""The ``command`` backend: any program declared in config under ``backends.<name>``.

Enough for aider, ``llm``, ``ollama run`` or a TTY-only CLI::

    "backends": {"ollama": {"argv": ["ollama", "run", "llama3"], "prompt": "stdin"},
                 "aider": {"argv": ["aider", "--yes", "--message-file", "{prompt_file}"],
                           "prompt": "file", "version_args": ["--version"]}}

The prompt goes on stdin (then closed), into a temporary file (``{prompt_file}``)
or into an argument (``{prompt}``; refused for a ``.cmd``/``.bat`` target on
Windows, where cmd.exe would re-parse it). The output is plain text: the final
message is all of stdout (a bounded tail), cleaned of terminal escapes under
the pty transport. ``interactive`` drives a program that only works in a
terminal (wait for a ready pattern, type the prompt, wait for a done pattern).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from jlgcli.ansi import clean_terminal_text
from jlgcli.backends.base import Availability, BackendRequest, BackendResult
from jlgcli.backends.common import LineSplitter, TailBuffer, parse_version
from jlgcli.backends.limits import classify_error_text
from jlgcli.backends.probing import run_quietly
from jlgcli.errors import ExitCode, JlgError
from jlgcli.process import resolve_executable
from jlgcli.process.model import InteractiveRecipe, Invocation, ProcessOutcome, StopReason
from jlgcli.process.windows import prompt_delivery
from jlgcli.records import record

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.backends.base import ErrorKind
    from jlgcli.process.model import StreamName

FINAL_TEXT_CHARS = 1_000_000  # the tail of stdout kept as the final message
PROMPT = "{prompt}"
PROMPT_FILE = "{prompt_file}"
_IS_WINDOWS = os.name == "nt"
# An interactive program is ended by jlgcli's kill ladder once its work is done.
_INTERACTIVE_OK_CODES = (0, None, 130, 143)


class InteractiveSettings(BaseModel):
    """``backends.<name>.interactive``: see ``InteractiveRecipe``."""

    model_config = ConfigDict(extra="forbid")

    ready_pattern: str | None = None
    submit_sequence: str = "\r"
    done_pattern: str | None = None
    idle_seconds: float | None = Field(default=None, gt=0)
    exit_sequence: str | None = None
    step_timeout: float = Field(default=60.0, gt=0)

    @field_validator("ready_pattern", "done_pattern")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a valid regular expression: {exc}") from None
        return value

    def recipe(self) -> InteractiveRecipe:
        """The process layer's recipe."""
        return InteractiveRecipe(**self.model_dump())


class CommandSettings(BaseModel):
    """``backends.<name>`` in a config file."""

    model_config = ConfigDict(extra="forbid")

    argv: list[str] = Field(min_length=1)
    prompt: Literal["stdin", "file", "argument"] = "stdin"
    transport: Literal["pipe", "pty"] = "pipe"
    interactive: InteractiveSettings | None = None
    env: dict[str, str] = Field(default_factory=dict)
    version_args: list[str] | None = None

    @field_validator("argv")
    @classmethod
    def _program(cls, value: list[str]) -> list[str]:
        if not value[0].strip():
            raise ValueError("the program (first element) is empty")
        return value

    @field_validator("env")
    @classmethod
    def _variables(cls, value: dict[str, str]) -> dict[str, str]:
        # The OS refuses these names (ValueError at spawn, a 70 before issue 31): 78 here.
        for name, text in value.items():
            if not name or "=" in name or "\0" in name or "\0" in text:
                raise ValueError(f"{name!r} is not a usable environment variable (no '=', no NUL)")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> CommandSettings:
        joined = "\0".join(self.argv)
        if self.prompt == "argument" and PROMPT not in joined:
            raise ValueError('prompt "argument" needs a {prompt} placeholder in argv')
        if self.prompt != "argument" and PROMPT in joined:
            raise ValueError('{prompt} in argv needs prompt: "argument"')
        if self.prompt == "file" and PROMPT_FILE not in joined:
            raise ValueError('prompt "file" needs a {prompt_file} placeholder in argv')
        if self.interactive is not None and self.transport != "pty":
            raise ValueError('interactive needs transport: "pty"')
        return self


def parse_settings(name: str, raw: Mapping[str, Any]) -> CommandSettings:
    """Validate ``backends.<name>``; JlgError(78) naming the first bad field."""
    try:
        return CommandSettings.model_validate(dict(raw))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in (f"backends.{name}", *first["loc"]))
        raise JlgError(
            ExitCode.CONFIG,
            f"invalid custom backend setting {where}: {first['msg']}",
            hint='example: "backends": {"ollama": {"argv": ["ollama", "run", "llama3"], '
            '"prompt": "stdin"}}',
        ) from None


class CommandBackend:
    """A custom backend running ``settings.argv``."""

    def __init__(
        self, name: str, settings: CommandSettings, *, is_windows: bool = _IS_WINDOWS
    ) -> None:
        self.id = name
        self.settings = settings
        self._is_windows = is_windows
        self._temp_files: list[Path] = []

    def probe(self, timeout: float = 2.0) -> Availability:
        """On PATH? (and its version when ``version_args`` is set); no login check."""
        program = self.settings.argv[0]
        path = resolve_executable(program)
        if path is None:
            return Availability(
                self.id,
                "missing",
                detail=f"`{program}` (backends.{self.id}.argv[0]) is not on PATH",
                hint=f"install {program}, or fix backends.{self.id}.argv in your config",
            )
        if self.settings.prompt == "argument" and self._argument_refused(path):
            return Availability(
                self.id,
                "unsupported",
                path=path,
                detail=f"{Path(path).name} is a .cmd/.bat script: cmd.exe would re-parse "
                "a prompt passed as an argument",
                hint=f'set backends.{self.id}.prompt to "stdin" or "file"',
            )
        version = None
        if self.settings.version_args is not None:
            deadline = time.monotonic() + timeout
            answer = run_quietly([path, *self.settings.version_args], deadline=deadline)
            if answer is None or answer.timed_out:
                return Availability(
                    self.id,
                    "unknown",
                    path=path,
                    detail=f"`{program} {' '.join(self.settings.version_args)}` did not answer "
                    f"within {timeout:g}s",
                    hint=f"check backends.{self.id}.version_args",
                )
            version = _version_text(answer.stdout or answer.stderr)
        return Availability(self.id, "available", version=version, path=path, detail="command")

    def invocation(self, request: BackendRequest) -> Invocation:
        """``argv`` with its placeholders filled; the prompt on stdin, in a file or an argument."""
        settings = self.settings
        self._cleanup()
        prompt_file = request.prompt_file
        if settings.prompt == "file" and prompt_file is None:
            prompt_file = self._write_prompt(request.prompt)
        if settings.prompt == "argument":
            path = resolve_executable(settings.argv[0]) or settings.argv[0]
            if self._argument_refused(path):
                raise JlgError(
                    ExitCode.USAGE,
                    f"backend {self.id}: {Path(path).name} is a .cmd/.bat script; the prompt "
                    "cannot be passed as an argument",
                    hint=f'set backends.{self.id}.prompt to "stdin" or "file"',
                )
        argv = [
            _fill(arg, request.prompt if settings.prompt == "argument" else None, prompt_file)
            for arg in settings.argv
        ]
        argv += request.extra_args
        if settings.prompt == "argument":
            self._check_argument_size(argv)
        typed = settings.prompt == "stdin" or settings.interactive is not None
        return Invocation(
            argv=tuple(argv),
            cwd=request.cwd,
            env=dict(settings.env),
            stdin=request.prompt if typed else None,
            transport=settings.transport,
            interactive=settings.interactive.recipe() if settings.interactive else None,
        )

    def parser(self) -> CommandParser:
        """A plain-text parser (escapes cleaned under the pty transport)."""
        return CommandParser(
            self.id,
            clean=self.settings.transport == "pty",
            interactive=self.settings.interactive is not None,
        )

    def _check_argument_size(self, argv: list[str]) -> None:
        """A prompt too long for a command line is exit 66 with a hint, not a crash (E2BIG)."""
        limit = argument_limit(is_windows=self._is_windows)
        size = max(len(arg.encode("utf-8")) for arg in argv)
        total = sum(len(arg.encode("utf-8")) + 1 for arg in argv)
        if size > limit.per_argument or total > limit.total:
            raise JlgError(
                ExitCode.NO_INPUT,
                f"backend {self.id}: the prompt ({total} bytes on the command line) is too long "
                f"to pass as an argument here (at most {limit.per_argument} bytes)",
                hint=f'set backends.{self.id}.prompt to "stdin" or "file"',
            )

    def _argument_refused(self, path: str) -> bool:
        return prompt_delivery(path, is_windows=self._is_windows) != "argv"

    def _write_prompt(self, prompt: str) -> str:
        # The runner gives no prompt file: write one, removed by the next call or at exit.
        handle, name = tempfile.mkstemp(prefix="jlgcli-prompt-", suffix=".md")
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(prompt)
        path = Path(name)
        self._temp_files.append(path)
        atexit.register(_remove, path)
        return name

    def _cleanup(self) -> None:
        while self._temp_files:
            _remove(self._temp_files.pop())


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def _fill(arg: str, prompt: str | None, prompt_file: str | None) -> str:
    if prompt_file is not None:
        arg = arg.replace(PROMPT_FILE, prompt_file)
    if prompt is not None:
        arg = arg.replace(PROMPT, prompt)
    return arg


def _version_text(text: str) -> str | None:
    version = parse_version(text)
    if version is not None:
        return ".".join(map(str, version))
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return first[:60] or None


class CommandParser:
    """Plain text: shown live, the final message is the stdout tail."""

    def __init__(self, name: str, *, clean: bool, interactive: bool = False) -> None:
        self.name = name
        self.clean = clean
        self.interactive = interactive
        self.stdout = TailBuffer(FINAL_TEXT_CHARS)
        self.stderr = TailBuffer(16 * 1024)
        self._lines = LineSplitter()

    def feed(self, stream: StreamName, text: str) -> str:
        """Keep the text; show stdout live (whole cleaned lines under the pty transport)."""
        if stream == "stderr":
            self.stderr.append(text)
            return ""
        self.stdout.append(text)
        if not self.clean:
            return text
        return "".join(clean_terminal_text(line) + "\n" for line in self._lines.feed(text))

    def finish(self, outcome: ProcessOutcome) -> BackendResult:
        """ok when the program exited by itself with code 0 (or was ended after its work)."""
        raw = self.stdout.text()
        text = clean_terminal_text(raw) if self.clean else raw
        if self.interactive and outcome.reply is not None:
            text = outcome.reply  # between the prompt's echo and the done match (issue 34)
        tail = (raw[-8000:] + self.stderr.text()[-8000:])[-16000:]
        codes = _INTERACTIVE_OK_CODES if self.interactive else (0,)
        if outcome.stop_reason is StopReason.EXITED and outcome.exit_code in codes:
            return BackendResult(text=text, ok=True, exit_code=outcome.exit_code, output_tail=tail)
        if outcome.stop_reason is StopReason.EXITED:
            said = (self.stderr.text() or text).strip().splitlines()
            from jlgcli.backends.common import how_it_ended

            error = how_it_ended(self.name, outcome.exit_code, outcome.signal) + (
                f": {said[-1][:300]}" if said else ""
            )
            verdict = classify_error_text(self.stderr.text() + "\n" + text[-4000:])
            if verdict is not None:
                return BackendResult(
                    text=text,
                    ok=False,
                    exit_code=outcome.exit_code,
                    error=verdict.line,
                    error_kind=verdict.kind,
                    rate_limited=verdict.kind == "rate-limit",
                    rate_limit_reset=verdict.reset,
                    output_tail=tail,
                )
            return BackendResult(
                text=text,
                ok=False,
                exit_code=outcome.exit_code,
                error=error,
                error_kind="backend",
                output_tail=tail,
            )
        if outcome.stop_reason is StopReason.FAILED_TO_START:
            return BackendResult(
                text="", ok=False, exit_code=None, error=outcome.error, error_kind="backend"
            )
        reason = outcome.stop_reason.value
        kind: ErrorKind | None = None if outcome.stop_reason is StopReason.CANCELLED else "timeout"
        return BackendResult(
            text=text,
            ok=False,
            exit_code=outcome.exit_code,
            error=f"{self.name} was stopped ({reason})",
            error_kind=kind,
            output_tail=tail,
        )


@record
class ArgumentLimit:
    """How much a command line may hold on this OS (bytes), for one argument and in all."""

    per_argument: int
    total: int


def argument_limit(*, is_windows: bool, platform: str | None = None) -> ArgumentLimit:
    """The command-line limits: Windows 32,767 UTF-16 units in all (kept well under, for the
    quoting); Linux 128 KiB per argument (MAX_ARG_STRLEN) and ARG_MAX in all; macOS ARG_MAX."""
    import sys

    if is_windows:
        return ArgumentLimit(30_000, 30_000)
    total = _half_arg_max()
    linux = (platform or sys.platform).startswith("linux")
    return ArgumentLimit(min(131_072, total) if linux else total, total)


def _half_arg_max() -> int:
    """Half the system's ARG_MAX (the environment shares it); 128 KiB where there is none
    (Windows, where tests ask for the POSIX limits with ``is_windows=False``)."""
    import sys

    if sys.platform != "win32":  # a check mypy understands: os.sysconf is POSIX only (issue 35)
        with contextlib.suppress(ValueError, OSError):
            return int(os.sysconf("SC_ARG_MAX")) // 2
    return 131_072  # pragma: no cover - Windows, or a POSIX without SC_ARG_MAX
