"""Configuration files, precedence and sources (seed 000 F-001, RG-001..RG-003; seed 001 §13).

Precedence (highest first): flags > ``JLGCLI_*`` env > project ``.jlgcli.json``
(found by walking up from the cwd) > user ``config.json`` > defaults. The user
file lives in platformdirs' roaming user config dir (``%APPDATA%\\jlgcli`` on
Windows) unless ``JLGCLI_CONFIG_DIR`` says otherwise. Every resolved value
remembers where it came from, for ``config show`` and ``doctor``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path

from jlgcli.config.keys import KEYS, lookup_key, unknown_key_message
from jlgcli.config.paths import PROJECT_FILE_NAME as PROJECT_FILE_NAME
from jlgcli.config.paths import USER_FILE_NAME as USER_FILE_NAME
from jlgcli.config.paths import default_user_config_dir as default_user_config_dir
from jlgcli.config.paths import find_project_config as find_project_config
from jlgcli.config.paths import repository_root as repository_root
from jlgcli.config.paths import user_config_dir as user_config_dir
from jlgcli.config.paths import user_config_file as user_config_file
from jlgcli.config.spec import KeySpec, ValueProblemError
from jlgcli.config.trust import (
    RELATIVE,
    TRUST_KEY,
    TRUSTED,
    check_trusted_map,
    mark_untrusted,
    relative_program_backends,
    trust_state,
    untrusted_error,
    untrusted_file_of,
    untrusted_state_of,
)
from jlgcli.errors import ExitCode, JlgError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CUSTOM_BACKENDS_KEY = "backends"
# Deeper than any config needs, far below Python's recursion limit.
MAX_NESTING = 32


class ConfigFileStatus:
    """One config file as ``doctor`` and ``config path`` report it.

    ``trust`` is set for an existing project file: ``trusted``, ``not trusted``
    or ``changed since trusted`` (plain classes here: ``dataclasses`` imports
    ``inspect``, which ``config get`` cannot afford).
    """

    __slots__ = ("error", "exists", "path", "scope", "trust")

    def __init__(
        self,
        scope: str,
        path: Path,
        exists: bool,
        error: str | None = None,
        trust: str | None = None,
    ) -> None:
        self.scope = scope  # "user" | "project"
        self.path = path
        self.exists = exists
        self.error = error
        self.trust = trust


class ResolvedSettings:
    """Effective values with their sources (``flag``/``env``/``project``/``user``/``default``).

    ``custom_backends`` holds every custom command backend; those declared by a
    project file that is not trusted carry ``jlgcli.config.trust.UNTRUSTED_MARK`` and
    are listed in ``untrusted_backends`` (name → file): ``get_backend`` refuses
    to build them and ``require_trusted`` raises exit 78 for them.
    """

    __slots__ = ("custom_backends", "origins", "project_file", "project_trust", "sources", "values")

    def __init__(
        self,
        values: dict[str, Any],
        sources: dict[str, str],
        origins: dict[str, str],  # the file path or variable name a value came from
        custom_backends: dict[str, dict[str, Any]] | None = None,
        project_file: Path | None = None,
        project_trust: str | None = None,
    ) -> None:
        self.project_trust = project_trust  # of the bytes parsed; None: not needed (no commands)
        self.values = values
        self.sources = sources
        self.origins = origins
        self.custom_backends = custom_backends if custom_backends is not None else {}
        self.project_file = project_file

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    @property
    def untrusted_backends(self) -> dict[str, str]:
        """Custom backends that must not run yet, with the project file each comes from."""
        found = {n: untrusted_file_of(s) for n, s in self.custom_backends.items()}
        return {name: path for name, path in found.items() if path is not None}


def require_trusted(settings: ResolvedSettings, backend_id: str) -> None:
    """Exit 78 (with the ``jlgcli config trust`` hint) when ``backend_id`` is an untrusted one.

    The run core calls this once the backend is chosen; ``get_backend`` makes
    the same check, so a caller that forgets still cannot run the command.
    """
    path = settings.untrusted_backends.get(backend_id)
    if path is not None:
        state = untrusted_state_of(settings.custom_backends[backend_id])
        raise untrusted_error(f"backend {backend_id!r}", path, state)


# What a rebound script may reach (issue 46): a repository may not loosen it, nor set it untrusted.
_SANDBOX_KEYS = ("reboundIsolation", "reboundNetwork")


def require_trusted_gates(settings: ResolvedSettings, *, gates: bool = True) -> None:
    """Exit 78 when what the project file makes jlgcli run needs trust it does not have.

    The ``gates`` (a loop's done checks) and ``completionMode: rebound`` (jlgcli
    then runs scripts the model writes, issue 33). The trust state is the one of
    the bytes ``resolve_settings`` parsed, never of a second read of the file.
    ``gates=False``: a command that runs no gates (``run``, issue 31) ignores them.
    """
    path = settings.project_file
    if path is None:
        return
    needs = []
    if gates and settings.sources.get("gates") == "project" and settings["gates"]:
        needs.append("the gates (a loop's done checks)")
    if settings.sources.get("completionMode") == "project" and settings["completionMode"] == (
        "rebound"
    ):
        needs.append("completionMode rebound (running the scripts a model writes)")
    needs += [f"{key} (how rebound scripts are isolated)" for key in _SANDBOX_KEYS
              if settings.sources.get(key) == "project"]  # fmt: skip
    state = settings.project_trust
    if needs and state != TRUSTED:
        raise untrusted_error(" and ".join(needs), path, state or "not trusted")


def read_config_file(path: Path, scope: str) -> dict[str, Any]:
    """The JSON object in ``path``; ``{}`` when it does not exist; JlgError 78 otherwise.

    Not UTF-8, ``NaN``/``Infinity``, nesting deeper than ``MAX_NESTING``, an
    empty file: each is a config error naming the file, never a crash.
    """
    raw = read_config_bytes(path, scope)
    return parse_config_bytes(path, scope, raw) if raw is not None else {}


def read_config_bytes(path: Path, scope: str) -> bytes | None:
    """The bytes of a config file, read once; None when it does not exist; JlgError 78."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _config_error(path, scope, f"cannot be read: {exc.strerror or exc}") from None


def parse_config_bytes(path: Path, scope: str, raw: bytes) -> dict[str, Any]:
    """The JSON object in ``raw`` (the bytes of ``path``); JlgError 78 naming the file."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _config_error(
            path, scope, f"is not UTF-8 text (byte {exc.start}: {raw[exc.start]:#04x})"
        ) from None
    if not text.strip():
        raise _config_error(path, scope, "is empty; write {} in it, or delete it")
    import json  # here: a run without config files never needs it (issue 18, start-up)

    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise _config_error(
            path, scope, f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except ValueError as exc:  # NaN / Infinity
        raise _config_error(path, scope, f"is not valid JSON ({exc})") from None
    except RecursionError:
        raise _config_error(path, scope, "is nested too deeply to be a config") from None
    if not isinstance(data, dict):
        raise _config_error(path, scope, "must contain a JSON object ({...})")
    if _depth(data) > MAX_NESTING:
        raise _config_error(path, scope, "is nested too deeply to be a config")
    return data


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _depth(value: Any) -> int:
    """Nesting depth, iteratively (a deep document must not exhaust the stack here either)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(item, dict):
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, level + 1) for v in item)
    return deepest


def _config_error(path: Path, scope: str, what: str) -> JlgError:
    flag = " --project" if scope == "project" else ""
    return JlgError(
        ExitCode.CONFIG,
        f"{scope} config file {path} {what}",
        hint=f"fix the file, or reset it: delete {path} (or 'jlgcli config unset{flag} <key>')",
    )


def _validate_file(
    path: Path, scope: str, data: dict[str, Any], known: tuple[str, ...] = ()
) -> dict[str, Any]:
    """Typed values of a config file's keys; JlgError 78 naming the field otherwise.

    ``known``: custom backends declared elsewhere (the user file may choose a
    backend the project file declares, as ``config set`` allows).
    """
    custom = (*custom_backends_of(path, scope, data), *known)
    values: dict[str, Any] = {}
    for name, raw in data.items():
        if name == CUSTOM_BACKENDS_KEY:
            continue
        if name == TRUST_KEY and scope == "user":  # only the user's own file can trust
            if problem := check_trusted_map(raw):
                raise _config_error(path, scope, problem)
            continue
        spec = lookup_key(name)
        if spec is None or spec.name != name:
            raise _config_error(path, scope, f"has an {unknown_key_message(name)}")
        try:
            values[name] = spec.parse(raw, custom_backends=custom)
        except ValueProblemError as exc:
            raise _config_error(path, scope, f"has an invalid value for '{name}': {exc}") from None
    return values


def custom_backends_of(path: Path, scope: str, data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    backends = data.get(CUSTOM_BACKENDS_KEY, {})
    if not isinstance(backends, dict) or not all(isinstance(v, dict) for v in backends.values()):
        raise _config_error(
            path, scope, f"has an invalid '{CUSTOM_BACKENDS_KEY}': expected {{name: {{...}}}}"
        )
    return backends


def _env_values(env: Mapping[str, str], custom: tuple[str, ...]) -> dict[str, tuple[Any, str]]:
    values: dict[str, tuple[Any, str]] = {}
    for spec in KEYS:
        raw = env.get(spec.env_var)
        if raw is None or raw == "":
            continue
        try:
            values[spec.name] = (spec.parse(raw, custom_backends=custom), spec.env_var)
        except ValueProblemError as exc:
            raise JlgError(
                ExitCode.CONFIG,
                f"environment variable {spec.env_var}={raw!r} is invalid: {exc}",
                hint=f"fix or unset {spec.env_var} (example: {spec.env_var}={spec.example})",
            ) from None
    return values


def resolve_settings(
    cwd: Path | None = None,
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> ResolvedSettings:
    """Merge defaults < user < project < env < flags (RG-001, RG-002); validate (RG-003).

    Custom backends of a project file that is not trusted are kept but marked
    (see ``ResolvedSettings``); its other keys apply as usual.
    """
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else cwd
    user_path = user_config_file(env)
    project_path = find_project_config(cwd)
    user_raw = read_config_file(user_path, "user")
    # Read once: the bytes parsed are the bytes whose trust is checked (issue 33).
    project_bytes = read_config_bytes(project_path, "project") if project_path else None
    project_raw = (
        parse_config_bytes(project_path, "project", project_bytes)
        if project_path and project_bytes is not None
        else {}
    )

    custom: dict[str, dict[str, Any]] = {}
    custom.update(custom_backends_of(user_path, "user", user_raw))
    project_trust = None
    if project_path and project_bytes is not None and _may_run_commands(project_raw):
        project_trust = trust_state(project_path, user_raw, raw=project_bytes)
        declared = custom_backends_of(project_path, "project", project_raw)
        if project_trust != TRUSTED:
            declared = mark_untrusted(declared, project_path, project_trust)
        else:  # trusted, but ./agent.sh would run a script the hash does not cover
            relative = {n: declared[n] for n in relative_program_backends(declared)}
            declared |= mark_untrusted(relative, project_path, RELATIVE)
        custom.update(declared)

    values = {spec.name: spec.default for spec in KEYS}
    sources = dict.fromkeys(values, "default")
    origins = dict.fromkeys(values, "")
    layers: list[tuple[str, Path | None, dict[str, Any]]] = [("user", user_path, user_raw)]
    if project_path:
        layers.append(("project", project_path, project_raw))
    for scope, path, raw in layers:
        assert path is not None
        for name, value in _validate_file(path, scope, raw, tuple(custom)).items():
            values[name], sources[name], origins[name] = value, scope, str(path)
    for name, (value, var) in _env_values(env, tuple(custom)).items():
        values[name], sources[name], origins[name] = value, "env", var
    for name, value in (flags or {}).items():
        if value is not None:
            values[name], sources[name], origins[name] = value, "flag", f"--{name}"
    return ResolvedSettings(values, sources, origins, custom, project_path, project_trust)


def _may_run_commands(project_raw: Mapping[str, Any]) -> bool:
    """Whether a project file holds keys that make jlgcli run something (trust then matters)."""
    keys = (CUSTOM_BACKENDS_KEY, "gates", "completionMode", "notify", *_SANDBOX_KEYS)
    return any(key in project_raw for key in keys)


def parse_flag_value(key: str, raw: Any, custom: tuple[str, ...] = ()) -> Any:
    """Parse a command-line value for ``key``; JlgError 64 naming the flag when it does not fit."""
    spec = spec_or_usage_error(key)
    try:
        return spec.parse(raw, custom_backends=custom)
    except ValueProblemError as exc:
        raise JlgError(
            ExitCode.USAGE,
            f"invalid value for {spec.flag}: {exc}",
            hint=f"example: {spec.flag} {spec.example}",
        ) from None


def spec_or_usage_error(key: str) -> KeySpec:
    spec = lookup_key(key)
    if spec is None:
        raise JlgError(
            ExitCode.USAGE, unknown_key_message(key), hint="list them with: jlgcli config show"
        )
    return spec


def describe_config_files(
    cwd: Path, env: Mapping[str, str] | None = None
) -> list[ConfigFileStatus]:
    """The user and project config files, whether they exist, what is wrong, and trust."""
    env = os.environ if env is None else env
    found = find_project_config(cwd)
    user_path = user_config_file(env)
    candidates = [("user", user_path), ("project", found or cwd / PROJECT_FILE_NAME)]
    statuses = []
    known: list[str] = []  # custom backends either file declares (either may choose them)
    for scope, path in candidates:
        with contextlib.suppress(JlgError):  # reported below
            known += custom_backends_of(path, scope, read_config_file(path, scope))
    for scope, path in candidates:
        error = None
        if path.is_file():
            try:
                _validate_file(path, scope, read_config_file(path, scope), tuple(known))
            except JlgError as exc:
                error = exc.message
        statuses.append(ConfigFileStatus(scope, path, path.is_file(), error))
    if found is not None:
        try:
            user_raw = read_config_file(user_path, "user")
        except JlgError:
            user_raw = {}
        statuses[1].trust = trust_state(found, user_raw)
    return statuses
