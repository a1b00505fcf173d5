"""The probe every built-in backend runs: found? which version? supported? logged in?

RG-004: a probe is quick and sends no prompt. Each step gets what is left of
the probe's own time budget; a step that does not answer in time makes the
status ``unknown`` (with a hint), never a hang. The version of an npm-installed
CLI is read from its ``package.json`` when it can be found next to the
executable, which spares a slow start (gemini's ``--version`` takes 2.5 s), or
from the file name of a native install (``…/versions/2.1.197``).
A login check that is safe on any version runs beside ``--version``, so the
probe waits for the slower of the two, not their sum.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from jlgcli.backends.base import Availability
from jlgcli.backends.cli_facts import CliInfo, not_on_path
from jlgcli.backends.common import format_version, parse_version, version_at_least
from jlgcli.backends.startup import interpreter_hint, missing_interpreter, start_failure
from jlgcli.process import ExecutableNotFound, capture, resolve_executable
from jlgcli.process.model import ProcessOutcome
from jlgcli.records import record

TYPE_CHECKING = False

if TYPE_CHECKING:
    from jlgcli.backends.base import AvailabilityStatus

# {path: "X.Y.Z"}: what a batch's probe found, handed to its task in its options (issue 44)
_KNOWN: dict[str, str] = {}

# broken: the login check could not even start the CLI (see startup.py)
if TYPE_CHECKING:  # types only: a run imports no typing (issue 49)
    from typing import Literal

    AuthState = Literal["ok", "missing", "unknown", "broken"]


@record
class AuthVerdict:
    """Outcome of a cheap login check."""

    state: AuthState
    detail: str


@record
class ProbeContext:
    """Where the login check runs: the executable found, the deadline, and a way to stop it."""

    executable: str
    deadline: float
    env: Mapping[str, str]
    cancel: threading.Event | None = None

    def run(self, *args: str) -> ProcessOutcome | None:
        """``executable *args`` with the time left (see ``run_quietly``); stopped by ``cancel``."""
        return run_quietly([self.executable, *args], deadline=self.deadline, cancel=self.cancel)


AuthCheck = Callable[[ProbeContext], AuthVerdict]


def probe_cli(
    info: CliInfo, auth: AuthCheck, *, timeout: float, env: Mapping[str, str] | None = None
) -> Availability:
    """The F-002 status of one CLI: missing, unknown, unsupported, unauthenticated or available."""
    environ = os.environ if env is None else env
    deadline = time.monotonic() + timeout
    path = resolve_executable(info.executable, path=environ.get("PATH"))
    if path is None:
        return not_on_path(info)
    missing = missing_interpreter(path, path=environ.get("PATH"))
    if missing is not None:
        return Availability(
            info.id,
            "unknown",
            path=path,
            detail=f"`{info.executable}` cannot start: it needs `{missing}`, which is not found",
            hint=interpreter_hint(missing, info.install_hint),
        )
    version = npm_package_version(path, info.npm_package) if info.npm_package else None
    version = version or versions_dir_version(path) or shared_version(path)
    ctx = ProbeContext(path, deadline, environ, threading.Event())
    beside = None
    # a run's probe leaves the login to its call: no thread to start for that (issue 49)
    if version is None and info.login_check_since is None and auth is not login_left_to_the_call:
        beside = _LoginCheck(auth, ctx)
    try:
        found = _checked_version(info, path, version, timeout, deadline)
        if isinstance(found, Availability):
            return found
        verdict = beside.verdict() if beside is not None else _login(info, auth, ctx, found)
    finally:
        if beside is not None:
            beside.stop()
    return _availability(info, path, found, verdict)


def _checked_version(
    info: CliInfo, path: str, version: tuple[int, int, int] | None, timeout: float, deadline: float
) -> tuple[int, int, int] | Availability | None:
    """The CLI's version (None: not recognised), or the status that ends the probe."""
    if version is None:
        answer = run_quietly([path, "--version"], deadline=deadline)
        if answer is None or answer.timed_out:
            return Availability(
                info.id,
                "unknown",
                path=path,
                detail=f"`{info.executable} --version` did not answer within {timeout:g}s",
                hint=f"run `{info.executable} --version` by hand to see what it waits for",
            )
        version = parse_version(answer.stdout + "\n" + answer.stderr)
        not_started = start_failure(answer)
        if not_started is not None:
            return Availability(
                info.id,
                "unknown",
                path=path,
                detail=f"`{info.executable}` cannot start ({not_started})",
                hint=_cannot_start_hint(info),
            )
        if version is None and answer.exit_code != 0:
            said = " / ".join((answer.stderr or answer.stdout).strip().splitlines()[-2:])
            return Availability(
                info.id,
                "unknown",
                path=path,
                detail=f"`{info.executable} --version` failed "
                f"(exit {answer.exit_code}): {said[:300]}",
                hint=f"run `{info.executable} --version` by hand; reinstall: {info.install_hint}",
            )
    if version is not None and not version_at_least(version, info.minimum):
        shown = format_version(version)
        return Availability(
            info.id,
            "unsupported",
            version=shown,
            path=path,
            detail=f"{info.executable} {shown} is older than the oldest supported "
            f"{format_version(info.minimum)}",
            hint=f"update it: {info.update_hint or info.install_hint}",
        )
    return version


def _login(
    info: CliInfo, auth: AuthCheck, ctx: ProbeContext, version: tuple[int, int, int] | None
) -> AuthVerdict:
    since = info.login_check_since
    if since is not None and version is not None and not version_at_least(version, since):
        return AuthVerdict(
            "ok", f"login not checked (the check needs {info.executable} {format_version(since)}+)"
        )
    return auth(ctx)


def _availability(
    info: CliInfo, path: str, version: tuple[int, int, int] | None, verdict: AuthVerdict
) -> Availability:
    """The status a login verdict gives a supported CLI."""
    shown = format_version(version) if version else None
    detail = verdict.detail if version else f"{verdict.detail}; version not recognised"
    if verdict.state == "ok":
        return Availability(info.id, "available", version=shown, path=path, detail=detail)
    outcomes: dict[str, tuple[AvailabilityStatus, str]] = {
        "missing": ("unauthenticated", f"log in: {info.login_hint}"),
        "broken": ("unknown", _cannot_start_hint(info)),
        "unknown": ("unknown", f"check the login by hand; to log in: {info.login_hint}"),
    }
    status, hint = outcomes[verdict.state]
    return Availability(info.id, status, version=shown, path=path, detail=detail, hint=hint)


def _cannot_start_hint(info: CliInfo) -> str:
    return (
        f"check what `{info.executable}` needs to run (its interpreter, e.g. node); "
        f"reinstall: {info.install_hint}"
    )


def broken_verdict(executable: str, answer: ProcessOutcome) -> AuthVerdict | None:
    """``broken`` when a login-check command could not start the CLI at all, else None."""
    not_started = start_failure(answer)
    if not_started is None:
        return None
    return AuthVerdict("broken", f"`{executable}` cannot start ({not_started})")


def run_quietly(
    argv: list[str],
    *,
    deadline: float,
    env: Mapping[str, str] | None = None,
    cancel: threading.Event | None = None,
) -> ProcessOutcome | None:
    """Run a probe command with the time left; None when it cannot be started."""
    overrides = {"NO_COLOR": "1", **(env or {})}
    timeout = max(0.05, deadline - time.monotonic())
    try:
        return capture(argv, timeout=timeout, env=overrides, cancel=cancel)
    except (ExecutableNotFound, OSError):
        return None


class _LoginCheck:
    """The login check on a thread of its own, started before the version is known.

    ``stop`` cancels it (the kill ladder ends its process tree) and waits for
    the thread, so a probe that ends early or is interrupted leaves nothing behind.
    """

    def __init__(self, auth: AuthCheck, ctx: ProbeContext) -> None:
        self._ctx = ctx
        self._outcome: AuthVerdict | BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(auth,), name="login-check")
        self._thread.start()

    def _run(self, auth: AuthCheck) -> None:
        try:
            self._outcome = auth(self._ctx)
        except BaseException as exc:  # handed to the probing thread by verdict()
            self._outcome = exc

    def verdict(self) -> AuthVerdict:
        self._thread.join()
        outcome = self._outcome
        if isinstance(outcome, BaseException):
            raise outcome
        assert outcome is not None
        return outcome

    def stop(self) -> None:
        if self._thread.is_alive():
            assert self._ctx.cancel is not None
            self._ctx.cancel.set()
            self._thread.join()


def share_versions(found: tuple[tuple[str, str], ...]) -> None:
    """The versions a batch found, ``(executable, "X.Y.Z")``, for this task's probes: N tasks
    do not each run ``--version`` (issues 37, 44: from the task's options, not its
    environment, which its agent inherits)."""
    _KNOWN.update(found)


def shared_version(executable: str) -> tuple[int, int, int] | None:
    """The version a batch found for ``executable`` (``share_versions``); only the same
    resolved path counts."""
    found = _KNOWN.get(executable)
    return parse_version(found) if found else None


def versions_dir_version(executable: str) -> tuple[int, int, int] | None:
    """The version a native install names its binary after, e.g. ``…/versions/2.1.197``.

    claude's native installer links ``~/.local/bin/claude`` to
    ``~/.local/share/claude/versions/<version>`` (anthropics/claude-code#25165):
    the file that runs is named after its version, so no ``--version`` start is needed.
    """
    try:
        real = Path(executable).resolve()
    except OSError:
        return None
    parts = real.name.split(".")
    if real.parent.name != "versions" or len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    return int(parts[0]), int(parts[1]), int(parts[2])


def npm_package_version(executable: str, package: str | None) -> tuple[int, int, int] | None:
    """The version in the ``package.json`` of ``package`` installed behind ``executable``.

    Covers ``node_modules/.bin/<cli>`` symlinks (resolved), a global prefix
    (``bin/<cli>`` → ``lib/node_modules/<pkg>``) and npm's Windows shims
    (``<prefix>\\<cli>.cmd`` next to ``<prefix>\\node_modules\\<pkg>``).
    """
    data = npm_package_json(executable, package) if package else None
    version = data.get("version") if data is not None else None
    return parse_version(version) if isinstance(version, str) else None


def npm_package_json(executable: str, package: str) -> dict[str, object] | None:
    """The ``package.json`` of ``package`` installed behind ``executable`` (the places
    ``npm_package_version`` names), or None."""
    exe = Path(executable)
    candidates = [
        exe.parent / "node_modules" / package,
        exe.parent.parent / "lib" / "node_modules" / package,
    ]
    try:
        real = exe.resolve()
    except OSError:
        real = exe
    candidates.extend(list(real.parents)[:5])
    for folder in candidates:
        try:
            data = json.loads((folder / "package.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("name") == package:
            return data
    return None


def env_flag(env: Mapping[str, str], name: str) -> bool:
    """Whether ``name`` is set to a true-ish value (``1``/``true``/``yes``)."""
    return env.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def first_set(env: Mapping[str, str], names: tuple[str, ...]) -> str | None:
    """The first of ``names`` set to a non-empty value in ``env``."""
    return next((name for name in names if env.get(name, "").strip()), None)


def home_dir(env: Mapping[str, str]) -> Path:
    """The user's home as the CLIs see it (HOME, then USERPROFILE on Windows)."""
    home = env.get("HOME") or env.get("USERPROFILE")
    return Path(home) if home else Path.home()


def read_json_file(path: Path) -> object:
    """A JSON file's content, tolerating full-line ``//`` comments; None when unreadable."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("//")]
    try:
        return json.loads("\n".join(lines))
    except ValueError:
        return None


def login_left_to_the_call(ctx: ProbeContext) -> AuthVerdict:
    """No login check before a run (issue 34): the call itself says "not logged in" (exit 6)."""
    return AuthVerdict("ok", "login not checked before the run: the first call says")
