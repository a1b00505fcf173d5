"""Configuration files, precedence and sources (seed 000 F-001, RG-001..RG-003; seed 001 §13).

Precedence (highest first): flags > ``JLGCLI_*`` env > project ``.jlgcli.json``
(found by walking up from the cwd) > user ``config.json`` > defaults. The user
file lives in platformdirs' roaming user config dir (``%APPDATA%\\jlgcli`` on
Windows) unless ``JLGCLI_CONFIG_DIR`` says otherwise. Every resolved value
remembers where it came from, for ``config show`` and ``doctor``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jlgcli.config_keys import KEYS, KeySpec, ValueProblemError, lookup_key, unknown_key_message
from jlgcli.errors import ExitCode, JlgError

PROJECT_FILE_NAME = ".jlgcli.json"
USER_FILE_NAME = "config.json"
CUSTOM_BACKENDS_KEY = "backends"


@dataclass(frozen=True)
class ConfigFileStatus:
    """One config file as ``doctor`` and ``config path`` report it."""

    scope: str  # "user" | "project"
    path: Path
    exists: bool
    error: str | None = None


@dataclass
class ResolvedSettings:
    """Effective values with their sources (``flag``/``env``/``project``/``user``/``default``)."""

    values: dict[str, Any]
    sources: dict[str, str]
    origins: dict[str, str]  # the file path or variable name a value came from
    custom_backends: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.values[key]


def user_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """``JLGCLI_CONFIG_DIR`` or platformdirs' roaming user config dir for ``jlgcli``."""
    env = os.environ if env is None else env
    override = env.get("JLGCLI_CONFIG_DIR")
    if override:
        return Path(override)
    import platformdirs  # imported here: not every command needs it

    return Path(platformdirs.user_config_dir("jlgcli", appauthor=False, roaming=True))


def user_config_file(env: Mapping[str, str] | None = None) -> Path:
    """The user config file path (it may not exist)."""
    return user_config_dir(env) / USER_FILE_NAME


def find_project_config(start: Path) -> Path | None:
    """The nearest ``.jlgcli.json`` in ``start`` or one of its parents."""
    current = start.resolve()
    for directory in (current, *current.parents):
        candidate = directory / PROJECT_FILE_NAME
        if candidate.is_file():
            return candidate
    return None


def read_config_file(path: Path, scope: str) -> dict[str, Any]:
    """The JSON object in ``path``; ``{}`` when it does not exist; JlgError 78 when unreadable."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (FileNotFoundError, NotADirectoryError):
        return {}
    except OSError as exc:
        raise _config_error(path, scope, f"cannot be read: {exc.strerror or exc}") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _config_error(
            path, scope, f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    if not isinstance(data, dict):
        raise _config_error(path, scope, "must contain a JSON object ({...})")
    return data


def _config_error(path: Path, scope: str, what: str) -> JlgError:
    flag = " --project" if scope == "project" else ""
    return JlgError(
        ExitCode.CONFIG,
        f"{scope} config file {path} {what}",
        hint=f"fix the file, or reset it: delete {path} (or 'jlgcli config unset{flag} <key>')",
    )


def _validate_file(path: Path, scope: str, data: dict[str, Any]) -> dict[str, Any]:
    """Typed values of a config file's keys; JlgError 78 naming the field otherwise."""
    custom = tuple(_custom_backends_of(path, scope, data))
    values: dict[str, Any] = {}
    for name, raw in data.items():
        if name == CUSTOM_BACKENDS_KEY:
            continue
        spec = lookup_key(name)
        if spec is None or spec.name != name:
            raise _config_error(path, scope, f"has an {unknown_key_message(name)}")
        try:
            values[name] = spec.parse(raw, custom_backends=custom)
        except ValueProblemError as exc:
            raise _config_error(path, scope, f"has an invalid value for '{name}': {exc}") from None
    return values


def _custom_backends_of(path: Path, scope: str, data: dict[str, Any]) -> dict[str, dict[str, Any]]:
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
    """Merge defaults < user < project < env < flags (RG-001, RG-002); validate (RG-003)."""
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else cwd
    user_path = user_config_file(env)
    project_path = find_project_config(cwd)
    user_raw = read_config_file(user_path, "user")
    project_raw = read_config_file(project_path, "project") if project_path else {}

    custom: dict[str, dict[str, Any]] = {}
    custom.update(_custom_backends_of(user_path, "user", user_raw))
    if project_path:
        custom.update(_custom_backends_of(project_path, "project", project_raw))

    values = {spec.name: spec.default for spec in KEYS}
    sources = dict.fromkeys(values, "default")
    origins = dict.fromkeys(values, "")
    layers: list[tuple[str, Path | None, dict[str, Any]]] = [("user", user_path, user_raw)]
    if project_path:
        layers.append(("project", project_path, project_raw))
    for scope, path, raw in layers:
        assert path is not None
        for name, value in _validate_file(path, scope, raw).items():
            values[name], sources[name], origins[name] = value, scope, str(path)
    for name, (value, var) in _env_values(env, tuple(custom)).items():
        values[name], sources[name], origins[name] = value, "env", var
    for name, value in (flags or {}).items():
        if value is not None:
            values[name], sources[name], origins[name] = value, "flag", f"--{name}"
    return ResolvedSettings(values, sources, origins, custom)


def parse_flag_value(key: str, raw: Any, custom: tuple[str, ...] = ()) -> Any:
    """Parse a command-line value for ``key``; JlgError 64 (usage) when it does not fit."""
    spec = _spec_or_usage_error(key)
    try:
        return spec.parse(raw, custom_backends=custom)
    except ValueProblemError as exc:
        raise JlgError(
            ExitCode.USAGE, f"invalid value for {key}: {exc}", hint=f"example: {spec.example}"
        ) from None


def _spec_or_usage_error(key: str) -> KeySpec:
    spec = lookup_key(key)
    if spec is None:
        raise JlgError(
            ExitCode.USAGE, unknown_key_message(key), hint="list them with: jlgcli config show"
        )
    return spec


def _target_file(project: bool, cwd: Path, env: Mapping[str, str]) -> tuple[Path, str]:
    if project:
        return cwd / PROJECT_FILE_NAME, "project"
    return user_config_file(env), "user"


def set_value(
    key: str,
    raw: str,
    *,
    project: bool = False,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[KeySpec, Any, Path]:
    """Validate and persist ``key = raw`` (atomically); returns the key, value and file."""
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else cwd
    spec = _spec_or_usage_error(key)
    path, scope = _target_file(project, cwd, env)
    data = read_config_file(path, scope)
    custom = tuple(_custom_backends_of(path, scope, data))
    if project is False and (project_path := find_project_config(cwd)):
        custom += tuple(
            _custom_backends_of(project_path, "project", read_config_file(project_path, "project"))
        )
    try:
        value = spec.parse(raw, custom_backends=custom)
    except ValueProblemError as exc:
        raise JlgError(
            ExitCode.USAGE,
            f"invalid value for {spec.name}: {exc}",
            hint=f"example: jlgcli config set {spec.name} {spec.example}",
        ) from None
    data[spec.name] = value
    _write_config(path, data)
    return spec, value, path


def unset_value(
    key: str,
    *,
    project: bool = False,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[KeySpec, Path, bool]:
    """Remove ``key`` from the user (or project) file; returns whether it was there."""
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else cwd
    spec = _spec_or_usage_error(key)
    path, scope = _target_file(project, cwd, env)
    data = read_config_file(path, scope)
    if spec.name not in data:
        return spec, path, False
    del data[spec.name]
    _write_config(path, data)
    return spec, path, True


def _write_config(path: Path, data: dict[str, Any]) -> None:
    from jlgcli.artifacts.atomic import atomic_write_text

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise JlgError(
            ExitCode.CANT_CREATE,
            f"cannot write config file {path}: {exc.strerror or exc}",
            hint="check the permissions of that directory, or set JLGCLI_CONFIG_DIR",
        ) from None


def describe_config_files(
    cwd: Path, env: Mapping[str, str] | None = None
) -> list[ConfigFileStatus]:
    """The user and project config files, whether they exist, and what is wrong with them."""
    env = os.environ if env is None else env
    found = find_project_config(cwd)
    candidates = [("user", user_config_file(env)), ("project", found or cwd / PROJECT_FILE_NAME)]
    statuses = []
    for scope, path in candidates:
        error = None
        if path.is_file():
            try:
                _validate_file(path, scope, read_config_file(path, scope))
            except JlgError as exc:
                error = exc.message
        statuses.append(ConfigFileStatus(scope, path, path.is_file(), error))
    return statuses
