"""Shared engine of the scripted fake agent CLIs (contract: /work/notes/fake_script.md).

Each fake (``claude.py``, ``codex.py``, ``copilot.py``, ``gemini.py``) parses
its real CLI's flags, reads the prompt the way the real CLI does, then asks
``next_turn`` what to answer and renders it in the real output format.

- ``JLGCLI_FAKE_SCRIPT=<script.json>``: ``{"turns": [...], "repeat_last": true}``;
  the turn index is the number of earlier calls with this script (counter in
  ``<script>.state``), every prompt goes to ``<script>.prompts/NNN.txt`` and
  the argv to ``NNN.argv.json``. Without a script every call answers
  ``fake reply\\nDONE``.
- ``JLGCLI_FAKE_LOGGED_OUT=1``: auth probes say logged out, runs fail the real way.
- ``JLGCLI_FAKE_VERSION=<v>``: what ``--version`` reports.
- ``JLGCLI_FAKE_PROBE_HANG=1``: ``--version`` and auth-status probes never answer.
- A hang lasts at most ``JLGCLI_FAKE_HANG_MAX`` seconds (default 300), then exit 124.

A turn's ``error`` picks a failure, in each CLI's own wording and format
(backends.md §8, issue 16): ``auth``, ``rate-limit`` (reset in
``reset_in_seconds``), ``backend``, ``truncated``, and ``quota`` (credit or
quota gone, no reset), ``far-limit`` (a limit with a far stated reset: claude
weekly, gemini capacity), ``auth-invalid`` (a bad key/token rather than no
login), claude ``legacy-limit`` (2.0.x text, no structured events), codex
``context`` (context window full), gemini ``error-event`` (reason only in an
``error`` event), gemini ``no-capacity`` (MODEL_CAPACITY_EXHAUSTED as TerminalQuotaError),
claude ``credit-low`` (2.0.x: text alone; 2.1.x: with billing_error), ``account-on-hold``
and ``overloaded`` (assistant.error values, backends.md §10). A turn's ``signal`` adds a
non-fatal event to an answer: claude ``overage`` (limit rejected, billed as extra usage),
codex ``hiccup`` (``Reconnecting... 1/5``), copilot ``chunks`` (final message in chunks). A turn's
``structured`` is the object claude (``--json-schema``: ``structured_output``) and
codex (``--output-schema``: the final message) return when given a schema. A turn's
``cost_usd`` is what it cost: claude 2.1.277+ reports the session's running total (a
resumed session continues from the total its transcript saved), older ones the call's own.
A turn's ``ask`` (``{"question": …, "options": [...]}``) is a question asked through the
CLI's own tool before the final message: claude's ``AskUserQuestion`` tool_use, copilot's
``ask_user`` tool (issue 51).
The fake claude refuses to run when ``CLAUDECODE`` is set, like the real one.

Standard library only, and as little of it as will do: a fake must start fast
(the suite starts over a thousand; its launcher runs it with ``python -S``).
``typing``, ``dataclasses`` (which imports ``inspect``) and ``uuid`` cost more
than half of a start (issue 18), so they are not imported.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~3 ms)
if TYPE_CHECKING:
    from typing import Any, NoReturn

DEFAULT_TEXT = "fake reply\nDONE"
_LOCK_WAIT = 10.0


class Turn:
    """One scripted answer (see the module docstring for the fields)."""

    text: str = DEFAULT_TEXT
    files: dict[str, str]
    delete: list[str]
    stdout_noise: str = ""
    stderr: str = ""
    exit_code: int | None = None  # None: the real CLI's code for this outcome
    error: str | None = None  # see the module docstring
    signal: str | None = None  # see the module docstring
    reset_in_seconds: float = 3600.0
    delay_seconds: float = 0.0
    hang: bool = False
    session_id: str | None = None
    structured: dict[str, Any] | None = None  # the final message a JSON Schema flag yields
    cost_usd: float | None = None  # what this turn cost (claude reports it; default $0.0123)
    ask: dict[str, Any] | None = None  # the question the agent asks through its CLI's own tool

    def __init__(self, **values: Any) -> None:
        self.files = {}
        self.delete = []
        for name, value in values.items():
            setattr(self, name, value)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Turn:
        known = {k: v for k, v in data.items() if k in cls.__annotations__ and v is not None}
        return cls(**known)

    def code(self, default: int) -> int:
        """The process exit code: the script's, else the real CLI's ``default``."""
        return default if self.exit_code is None else int(self.exit_code)


# -- modes --------------------------------------------------------------------------------
def flag(name: str) -> bool:
    """Whether env ``name`` is set to a true-ish value."""
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def logged_out() -> bool:
    """``JLGCLI_FAKE_LOGGED_OUT=1``."""
    return flag("JLGCLI_FAKE_LOGGED_OUT")


def version(default: str) -> str:
    """``JLGCLI_FAKE_VERSION`` or the version observed in backends.md."""
    return os.environ.get("JLGCLI_FAKE_VERSION") or default


def probe(answer: str, *, code: int = 0, stream: str = "stdout") -> NoReturn:
    """Answer a ``--version``/auth probe (or hang in ``JLGCLI_FAKE_PROBE_HANG`` mode)."""
    if flag("JLGCLI_FAKE_PROBE_HANG"):
        hang_forever()
    (out if stream == "stdout" else err)(answer if answer.endswith("\n") else answer + "\n")
    sys.exit(code)


def note_login_check(name: str) -> None:
    """Count a login-status probe in ``<script>.login-checks`` (issue 34: runs skip it)."""
    script = os.environ.get("JLGCLI_FAKE_SCRIPT")
    if script:
        with open(f"{script}.login-checks", "a", encoding="utf-8") as checks:
            checks.write(name + "\n")


def hang_forever() -> NoReturn:
    """Never answer, never exit until killed — but give up after ``JLGCLI_FAKE_HANG_MAX``
    seconds (default 300), so a fake orphaned by a hard-killed test does not live forever."""
    limit = float(os.environ.get("JLGCLI_FAKE_HANG_MAX") or 300)
    deadline = time.monotonic() + limit
    while (left := deadline - time.monotonic()) > 0:
        time.sleep(min(left, 5.0))
    fail(f"fake: hung for {limit:g} s, giving up", 124)


# -- output -------------------------------------------------------------------------------
def out(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def err(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()


def emit(event: dict[str, Any]) -> None:
    """One NDJSON line on stdout."""
    out(json.dumps(event, ensure_ascii=False) + "\n")


def fail(message: str, code: int) -> NoReturn:
    """``message`` on stderr, exit ``code``."""
    err(message if message.endswith("\n") else message + "\n")
    sys.exit(code)


def new_id() -> str:
    import uuid

    return str(uuid.uuid4())


# -- input --------------------------------------------------------------------------------
def read_stdin(*, give_up_after: float | None = None, warning: str = "") -> str:
    """All of stdin (UTF-8), "" for a terminal; optionally stop waiting after some seconds."""
    stream = sys.stdin
    if stream is None or stream.isatty():
        return ""
    if give_up_after is None:
        return stream.buffer.read().decode("utf-8", errors="replace")
    box: list[bytes] = []
    reader = threading.Thread(target=lambda: box.append(stream.buffer.read()), daemon=True)
    reader.start()
    reader.join(give_up_after)
    if not box:
        err(warning)
        return ""
    return box[0].decode("utf-8", errors="replace")


def table(spec: str) -> dict[str, str]:
    """``"model: -m --model | json: --json"`` → ``{"-m": "model", "--model": "model", ...}``."""
    spellings = {}
    for entry in spec.split("|"):
        name, _, flags = entry.partition(":")
        for spelling in flags.split():
            spellings[spelling] = name.strip()
    return spellings


def parse_args(
    argv: list[str], *, values: dict[str, str], switches: dict[str, str], on_unknown: Any
) -> tuple[dict[str, Any], list[str]]:
    """A tiny option parser: ``values``/``switches`` map every spelling to a canonical name.

    ``--opt=value`` and ``--opt value`` both work (the last one wins; see
    ``all_values`` for repeatable ones); ``on_unknown(flag)`` must not return.
    """
    options: dict[str, Any] = {}
    positionals: list[str] = []
    index = 0
    while index < len(argv):
        arg = argv[index]
        index += 1
        if arg == "--":
            positionals.extend(argv[index:])
            break
        if not arg.startswith("-") or arg == "-":
            positionals.append(arg)
            continue
        name, eq, inline = arg.partition("=")
        if name in switches and not eq:
            options[switches[name]] = True
        elif name in values:
            if eq:
                value = inline
            elif index < len(argv):
                value = argv[index]
                index += 1
            else:
                on_unknown(arg)
            options[values[name]] = value
        else:
            on_unknown(arg)
    return options, positionals


def all_values(argv: list[str], spellings: tuple[str, ...]) -> list[str]:
    """Every value given to a repeatable option."""
    found = []
    for index, arg in enumerate(argv):
        name, eq, inline = arg.partition("=")
        if name in spellings:
            found.append(inline if eq else (argv[index + 1] if index + 1 < len(argv) else ""))
    return found


# -- the script ---------------------------------------------------------------------------
def next_turn(prompt: str, argv: list[str], *, session: str = "") -> Turn:
    """The turn for this call; records the prompt and argv; exits 1 when the script is exhausted.

    ``session``: what the resumed session was told before (a continued session's prompt
    need not restate the task, so its ``fake-script:`` is looked up there too).
    """
    script = os.environ.get("JLGCLI_FAKE_SCRIPT")
    if not script:
        return Turn()
    path = Path(script)
    if path.is_dir():
        named = prompt if "fake-script:" in prompt else session
        path = path / (_script_name(named) + ".json")
    data = json.loads(path.read_text(encoding="utf-8"))
    index = _take_index(path)
    record = Path(f"{path}.prompts")
    record.mkdir(parents=True, exist_ok=True)
    (record / f"{index:03d}.txt").write_text(prompt, encoding="utf-8")
    (record / f"{index:03d}.argv.json").write_text(json.dumps(argv), encoding="utf-8")
    turns = data.get("turns") or []
    if index < len(turns):
        return Turn.from_json(turns[index])
    if turns and data.get("repeat_last", True):
        return Turn.from_json(turns[-1])
    fail("script exhausted", 1)


def _script_name(prompt: str) -> str:
    """The word after ``fake-script:`` in the prompt (a task names its own script)."""
    _, found, rest = prompt.partition("fake-script:")
    words = rest.split()
    if not found or not words:
        fail("the prompt names no fake-script", 1)
    return words[0]


def _take_index(path: Path) -> int:
    """Read-and-increment ``<script>.state`` under a lock file (parallel calls stay ordered)."""
    state, lock = Path(f"{path}.state"), Path(f"{path}.lock")
    deadline = time.monotonic() + _LOCK_WAIT
    while True:
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            break
        except FileExistsError:
            if time.monotonic() > deadline:  # a fake killed while holding it
                lock.unlink(missing_ok=True)
            time.sleep(0.01)
    try:
        try:
            index = int(state.read_text(encoding="utf-8").strip() or 0)
        except (OSError, ValueError):
            index = 0
        temp = Path(f"{state}.{os.getpid()}.tmp")
        temp.write_text(str(index + 1), encoding="utf-8")
        os.replace(temp, state)
        return index
    finally:
        os.close(fd)
        lock.unlink(missing_ok=True)


def apply(turn: Turn, cwd: str, *, write_files: bool = True) -> None:
    """Before answering: wait, write/delete files, print the noise and the stderr text."""
    if turn.delay_seconds:
        time.sleep(turn.delay_seconds)
    root = Path(cwd)
    if write_files:
        for name, content in turn.files.items():
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        for name in turn.delete:
            target = root / name
            if target.is_dir():
                for child in sorted(target.rglob("*"), reverse=True):
                    child.rmdir() if child.is_dir() else child.unlink()
                target.rmdir()
            else:
                target.unlink(missing_ok=True)
    if turn.stdout_noise:
        out(turn.stdout_noise if turn.stdout_noise.endswith("\n") else turn.stdout_noise + "\n")
    if turn.stderr:
        err(turn.stderr if turn.stderr.endswith("\n") else turn.stderr + "\n")


def reset_at(turn: Turn) -> float:
    """Epoch seconds of the rate-limit reset this turn announces."""
    return time.time() + float(turn.reset_in_seconds)


def clock_text(stamp: float) -> str:
    """``3:05pm``-style UTC clock time (claude's wording)."""
    moment = time.gmtime(stamp)
    hour = moment.tm_hour % 12 or 12
    return f"{hour}:{moment.tm_min:02d}{'am' if moment.tm_hour < 12 else 'pm'}"


def duration_text(seconds: float) -> str:
    """``5 days 22 hours 11 minutes``; plain seconds under a minute (codex's wording)."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} seconds"
    parts = []
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        amount, seconds = divmod(seconds, size)
        if amount:
            parts.append(f"{amount} {unit}{'s' if amount != 1 else ''}")
    return " ".join(parts)


def in_git_repo(cwd: str) -> bool:
    """Whether ``cwd`` or a parent holds ``.git`` (codex's trusted-directory check)."""
    start = Path(cwd).resolve()
    return any((folder / ".git").exists() for folder in (start, *start.parents))


def home() -> Path:
    return Path(os.environ.get("HOME") or os.environ.get("USERPROFILE") or Path.home())
