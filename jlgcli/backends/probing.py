"""The probe every built-in backend runs: found? which version? supported? logged in?

RG-004: a probe is quick and sends no prompt. Each step gets what is left of
the probe's own time budget; a step that does not answer in time makes the
status ``unknown`` (with a hint), never a hang. The version of an npm-installed
CLI is read from its ``package.json`` when it can be found next to the
executable, which spares a slow start (gemini's ``--version`` takes 2.5 s).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from jlgcli.backends.base import Availability, AvailabilityStatus
from jlgcli.backends.common import format_version, parse_version, version_at_least
from jlgcli.backends.startup import interpreter_hint, missing_interpreter, start_failure
from jlgcli.process import ExecutableNotFound, capture, resolve_executable
from jlgcli.process.model import ProcessOutcome

# broken: the login check could not even start the CLI (see startup.py)
AuthState = Literal["ok", "missing", "unknown", "broken"]


@dataclass(frozen=True)
class CliInfo:
    """What the probe needs to know about one agent CLI."""

    id: str
    executable: str
    install_hint: str
    login_hint: str
    minimum: tuple[int, int, int]
    npm_package: str | None = None
    update_hint: str | None = None


@dataclass(frozen=True)
class AuthVerdict:
    """Outcome of a cheap login check."""

    state: AuthState
    detail: str


@dataclass(frozen=True)
class ProbeContext:
    """Where the probe runs: the executable found and the time left."""

    executable: str
    version: tuple[int, int, int] | None
    deadline: float
    env: Mapping[str, str]

    def remaining(self) -> float:
        """Seconds left in the probe's budget (at least a sliver, so a call can still fail fast)."""
        return max(0.05, self.deadline - time.monotonic())


AuthCheck = Callable[[ProbeContext], AuthVerdict]


def probe_cli(
    info: CliInfo, auth: AuthCheck, *, timeout: float, env: Mapping[str, str] | None = None
) -> Availability:
    """The F-002 status of one CLI: missing, unknown, unsupported, unauthenticated or available."""
    environ = os.environ if env is None else env
    deadline = time.monotonic() + timeout
    path = resolve_executable(info.executable, path=environ.get("PATH"))
    if path is None:
        return Availability(
            info.id,
            "missing",
            detail=f"`{info.executable}` is not on PATH",
            hint=f"install it: {info.install_hint}",
        )
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
    shown = format_version(version) if version else None
    if version is not None and not version_at_least(version, info.minimum):
        return Availability(
            info.id,
            "unsupported",
            version=shown,
            path=path,
            detail=f"{info.executable} {shown} is older than the oldest supported "
            f"{format_version(info.minimum)}",
            hint=f"update it: {info.update_hint or info.install_hint}",
        )
    verdict = auth(ProbeContext(path, version, deadline, environ))
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
    argv: list[str], *, deadline: float, env: Mapping[str, str] | None = None
) -> ProcessOutcome | None:
    """Run a probe command with the time left; None when it cannot be started."""
    overrides = {"NO_COLOR": "1", **(env or {})}
    try:
        return capture(argv, timeout=max(0.05, deadline - time.monotonic()), env=overrides)
    except (ExecutableNotFound, OSError):
        return None


def npm_package_version(executable: str, package: str | None) -> tuple[int, int, int] | None:
    """The version in the ``package.json`` of ``package`` installed behind ``executable``.

    Covers ``node_modules/.bin/<cli>`` symlinks (resolved), a global prefix
    (``bin/<cli>`` → ``lib/node_modules/<pkg>``) and npm's Windows shims
    (``<prefix>\\<cli>.cmd`` next to ``<prefix>\\node_modules\\<pkg>``).
    """
    if not package:
        return None
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
        version = _package_json_version(folder / "package.json", package)
        if version is not None:
            return version
    return None


def _package_json_version(path: Path, package: str) -> tuple[int, int, int] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("name") != package:
        return None
    version = data.get("version")
    return parse_version(version) if isinstance(version, str) else None


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
