"""``jlgcli doctor``: what jlgcli runs on and what would stop a run (seed 001 §12.5).

Every check is a small function returning ``Check`` objects: how jlgcli runs
(package or frozen executable), Python, OS, the config files, every backend's
probe, PATH problems (npm ``.cmd`` shims on Windows, one CLI found twice),
whether ``.jlgcli/runs`` can be written under the cwd, and the terminal. A
``fail`` sets the exit code: 78 broken config, 2 no backend available, 73 run
directory not writable (the codes ``run`` would exit with).
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PureWindowsPath
from typing import Any, Literal, TextIO

from jlgcli._version import __version__
from jlgcli.backends.base import Availability
from jlgcli.errors import ExitCode, JlgError
from jlgcli.records import asdict, record

Status = Literal["ok", "warn", "fail"]
Which = Callable[[str, str], "str | None"]


@record
class Check:
    """One finding."""

    area: str  # jlgcli | python | os | redaction | config | backend | path | runs | terminal
    name: str
    status: Status
    summary: str
    hint: str | None = None
    code: int | None = None  # exit code a "fail" stands for

    @property
    def label(self) -> str:
        """How the check is named on screen (``backend claude``, ``user config``, ``python``)."""
        return self.name if self.area in self.name else f"{self.area} {self.name}"

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "code"}


def runtime_checks(*, frozen: bool | None = None) -> list[Check]:
    """jlgcli's version and how it runs, Python, OS."""
    frozen = bool(getattr(sys, "frozen", False)) if frozen is None else frozen
    how = (
        f"standalone executable {sys.executable}"
        if frozen
        else (f"Python package in {Path(__file__).resolve().parent}")
    )
    python = f"{platform.python_version()} ({platform.python_implementation()}) {sys.executable}"
    return [
        Check("jlgcli", "jlgcli", "ok", f"{__version__}, {how}"),
        Check("python", "python", "ok", python),
        Check("os", "os", "ok", f"{platform.platform()} ({platform.machine() or 'unknown'})"),
    ]


def redaction_check(loads: bool | None = None) -> Check:
    """Whether the fast secret finder (Hyperscan) loads here: without it, redaction still
    works but reads everything with the exact rules, several times slower (issue 18)."""
    if loads is None:
        from jlgcli.artifacts.candidates import compile_candidates

        loads = compile_candidates(()) is not None
    if loads:
        return Check("redaction", "redaction", "ok", "secrets are found with Hyperscan (fast)")
    return Check(
        "redaction",
        "redaction",
        "warn",
        "Hyperscan does not load here: secrets are found by the exact rules alone (same "
        "result, several times slower on long output)",
        "install it where it has wheels: pip install 'jlgcli[hyperscan]' (a dependency on "
        "x86-64 Linux and Windows and on macOS; Hyperscan needs an x86-64 CPU with SSSE3 or an "
        "ARM64 one)",
    )


def config_checks(cwd: Path, env: Mapping[str, str]) -> tuple[list[Check], dict[str, Any]]:
    """Each config file (absent is fine) and the custom backends they declare."""
    from jlgcli.config.resolve import describe_config_files, resolve_settings

    checks = []
    for status in describe_config_files(cwd, env):
        name = f"{status.scope} config"
        if status.error:
            checks.append(
                Check(
                    "config",
                    name,
                    "fail",
                    f"{status.path}: {status.error}",
                    hint=f"fix or remove {status.path}",
                    code=ExitCode.CONFIG,
                )
            )
        elif status.exists:
            checks.append(Check("config", name, "ok", f"{status.path} (valid)"))
        else:
            checks.append(Check("config", name, "ok", f"{status.path} (absent: defaults apply)"))
    try:
        custom = dict(resolve_settings(cwd, env=env).custom_backends)
        checks += _trust_checks(describe_config_files(cwd, env)[1], custom)
    except JlgError as exc:
        custom = {}
        if not any(c.status == "fail" for c in checks):
            checks.append(
                Check("config", "settings", "fail", exc.message, exc.hint, ExitCode.CONFIG)
            )
    return checks, custom


def _trust_checks(project: Any, custom: Mapping[str, Any]) -> list[Check]:
    """Whether the project file is trusted, and which of its commands are held back."""
    from jlgcli.config.trust import TRUSTED, untrusted_file_of

    if project.trust is None:
        return []
    held = sorted(name for name, s in custom.items() if untrusted_file_of(s) is not None)
    if project.trust == TRUSTED or not held:
        state = project.trust if project.trust == TRUSTED else f"{project.trust} (no command)"
        return [Check("config", "project trust", "ok", f"{project.path}: {state}")]
    return [
        Check(
            "config",
            "project trust",
            "warn",
            f"{project.path}: {project.trust}; its backends {', '.join(held)} do not run",
            f"read it, then run: jlgcli config trust {project.path}",
        )
    ]


def configured_backend_check(
    configured: str | None, availabilities: Sequence[Availability]
) -> Check | None:
    """A fail when the configured backend (not ``auto``) cannot run; run would stop the same way."""
    found = next((a for a in availabilities if a.id == configured), None)
    if found is None:
        return None  # auto (the "any" check covers it) or a backend doctor does not probe
    if found.status == "available":
        return Check("backend", "configured", "ok", f"{configured} is available")
    code = ExitCode.BACKEND_UNAVAILABLE
    if found.detail.startswith("not trusted"):
        code = ExitCode.CONFIG
    elif found.status == "unauthenticated":
        code = ExitCode.UNAUTHENTICATED
    return Check(
        "backend",
        "configured",
        "fail",
        f"the configured backend {configured} cannot run: {found.status} - {found.detail}",
        f"{found.hint or 'see the line above'}; or choose another: jlgcli config set backend NAME",
        code,
    )


def backend_checks(
    custom: Mapping[str, Any], *, probe: Callable[[list[Any]], list[Availability]] | None = None
) -> tuple[list[Check], list[Availability]]:
    """Every backend's probe with its hint; a fail when none is available."""
    from jlgcli.backends.registry import BUILTINS, listed_backend, probe_all

    backends, checks = [], []
    for name in (*BUILTINS, *sorted(custom)):
        try:  # one at a time, so one broken custom backend does not hide the others
            backends.append(listed_backend(name, custom))
        except JlgError as exc:
            checks.append(Check("backend", name, "fail", exc.message, exc.hint, ExitCode.CONFIG))
    availabilities = (probe or probe_all)(backends)
    for a in availabilities:
        words = " ".join(part for part in (a.status, a.version or "", "-", a.detail) if part)
        # an available backend with a hint still has something to fix (an old Node)
        status: Status = "ok" if a.status == "available" and not a.hint else "warn"
        checks.append(Check("backend", a.id, status, words, a.hint))
    if not any(a.status == "available" for a in availabilities):
        checks.append(
            Check(
                "backend",
                "any",
                "fail",
                "no backend available",
                "install and log in to one (see the hints above)",
                ExitCode.BACKEND_UNAVAILABLE,
            )
        )
    return checks, availabilities


def path_checks(
    names: Sequence[str], path_value: str, *, is_windows: bool, which: Which | None = None
) -> list[Check]:
    """The same CLI found more than once on PATH, npm ``.cmd`` shims, an empty PATH."""
    from jlgcli.process.spawn import resolve_executable  # never the current folder (issue 47)

    lookup: Which = which or (
        lambda name, folder: resolve_executable(name, path=folder, is_windows=is_windows)
    )
    separator = ";" if is_windows else ":"
    folders = [f for f in path_value.split(separator) if f.strip()]
    if not folders:
        return [
            Check(
                "path",
                "PATH",
                "warn",
                "PATH is empty: no agent CLI can be found",
                "set PATH to include where npm installs global packages",
            )
        ]
    checks = []
    for name in dict.fromkeys(names):  # each program once, however many backends use it
        found: list[str] = []
        seen: set[str] = set()
        for folder in folders:
            hit = lookup(name, folder)
            # /bin/python3 and /usr/bin/python3 through a symlinked /bin are one file
            if hit and (real := os.path.normcase(os.path.realpath(hit))) not in seen:
                seen.add(real)
                found.append(hit)
        if len(found) > 1:
            checks.append(
                Check(
                    "path",
                    name,
                    "warn",
                    f"{name} is on PATH {len(found)} times: "
                    f"{found[0]} (used), " + ", ".join(found[1:]),
                    "remove the copies you do not use, or reorder PATH",
                )
            )
        if found and is_windows and PureWindowsPath(found[0]).suffix.lower() in (".cmd", ".bat"):
            checks.append(
                Check(
                    "path",
                    name,
                    "ok",
                    f"{found[0]} is an npm .cmd shim: jlgcli "
                    "sends prompts on stdin, never on its command line",
                )
            )
    return checks


def runs_dir_check(cwd: Path) -> Check:
    """Whether ``.jlgcli/runs`` can be created and written under ``cwd`` (creates nothing)."""
    target = cwd / ".jlgcli" / "runs"
    existing = next((p for p in (target, target.parent, cwd) if p.exists()), None)
    if existing is None or not existing.is_dir():
        return Check(
            "runs",
            "runs",
            "fail",
            f"{cwd} does not exist or is not a folder",
            code=ExitCode.CANT_CREATE,
        )
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        return Check(
            "runs",
            "runs",
            "fail",
            f"{target} is not writable ({exc.strerror or exc})",
            "run from a folder you can write to, or fix its permissions",
            ExitCode.CANT_CREATE,
        )
    return Check("runs", "runs", "ok", f"{target} is writable")


def terminal_check(
    streams: Sequence[TextIO | None] | None = None, env: Mapping[str, str] | None = None
) -> Check:
    """isatty of stdin/stdout/stderr, TERM, the output encoding."""
    env = os.environ if env is None else env
    stdin, stdout, stderr = streams or (sys.stdin, sys.stdout, sys.stderr)
    ttys = "/".join("tty" if _isatty(s) else "pipe" for s in (stdin, stdout, stderr))
    encoding = str(getattr(stdout, "encoding", None) or "unknown")
    summary = (
        f"stdin/stdout/stderr: {ttys}; TERM={env.get('TERM', '(unset)')}; "
        f"encoding {encoding}" + ("; NO_COLOR set" if env.get("NO_COLOR") else "")
    )
    if "utf" not in encoding.lower().replace("-", ""):
        return Check(
            "terminal",
            "terminal",
            "warn",
            summary,
            "characters the console cannot show are replaced; set PYTHONIOENCODING=utf-8 "
            "or use a UTF-8 terminal",
        )
    return Check("terminal", "terminal", "ok", summary)


def _isatty(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (ValueError, OSError):
        return False


def run_checks(
    cwd: Path, env: Mapping[str, str] | None = None
) -> tuple[list[Check], list[Availability]]:
    """All checks, in display order, and the backends' probes."""
    env = os.environ if env is None else env
    checks = [*runtime_checks(), redaction_check()]
    found, custom = config_checks(cwd, env)
    checks += found
    found, availabilities = backend_checks(custom)
    checks += found
    configured = _configured_backend(cwd, env)
    if (check := configured_backend_check(configured, availabilities)) is not None:
        checks.append(check)
    names = [*(a.id for a in availabilities if a.id not in custom), *_programs(custom)]
    checks += path_checks(names, env.get("PATH", ""), is_windows=os.name == "nt")
    checks += [runs_dir_check(cwd), terminal_check(env=env)]
    return checks, availabilities


def _configured_backend(cwd: Path, env: Mapping[str, str]) -> str | None:
    from jlgcli.config.resolve import resolve_settings

    try:
        value = resolve_settings(cwd, env=env).values.get("backend")
    except JlgError:
        return None  # the config checks already report it
    return value if isinstance(value, str) else None


def _programs(custom: Mapping[str, Any]) -> list[str]:
    programs = []
    for settings in custom.values():
        argv = settings.get("argv") if isinstance(settings, Mapping) else None
        if isinstance(argv, list) and argv and isinstance(argv[0], str):
            programs.append(argv[0])
    return programs


def exit_code(checks: Sequence[Check]) -> int:
    """0, or the code of the most fundamental failure (config > backends > run directory)."""
    codes = {c.code for c in checks if c.status == "fail" and c.code is not None}
    order = (
        ExitCode.CONFIG,
        ExitCode.BACKEND_UNAVAILABLE,
        ExitCode.UNAUTHENTICATED,
        ExitCode.CANT_CREATE,
    )
    for code in order:
        if code in codes:
            return int(code)
    return int(ExitCode.RUN_ERROR) if any(c.status == "fail" for c in checks) else 0
