"""Writing config files: ``config set``/``unset``/``trust``/``untrust`` (F-001, issues 15 and 19).

Every write takes one lock (``config.lock`` in the user config folder, so no
lock file appears in a repository), reads the file again under it, changes
one key and replaces the file atomically: parallel ``config set`` calls of
different keys all land, and a reader never sees half a file.

``--project`` writes to the project file that reading finds (walking up from
the cwd); a new one is created only at the repository root (the folder with
``.git``), or wherever ``--file PATH`` says.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jlgcli.config.resolve import (
    PROJECT_FILE_NAME,
    custom_backends_of,
    find_project_config,
    read_config_file,
    repository_root,
    spec_or_usage_error,
    user_config_dir,
    user_config_file,
)
from jlgcli.config.spec import KeySpec, ValueProblemError
from jlgcli.config.trust import TRUST_KEY, file_digest, trust_key, trusted_map
from jlgcli.errors import ExitCode, JlgError

LOCK_FILE_NAME = "config.lock"
LOCK_TIMEOUT_S = 30.0


@contextmanager
def config_lock(env: Mapping[str, str] | None = None) -> Iterator[None]:
    """Hold the config write lock (a ``filelock`` lock file; Windows and POSIX alike)."""
    from filelock import FileLock, Timeout

    folder = user_config_dir(env)
    lock = FileLock(str(folder / LOCK_FILE_NAME), timeout=LOCK_TIMEOUT_S)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock.acquire()
    except Timeout:
        raise JlgError(
            ExitCode.TIMEOUT,
            f"another jlgcli has held the config lock {folder / LOCK_FILE_NAME} "
            f"for {LOCK_TIMEOUT_S:g}s",
            hint="wait for it to finish, then try again",
        ) from None
    except OSError as exc:
        raise _write_error(folder, exc) from None
    try:
        yield
    finally:
        lock.release()


def write_target(
    *, project: bool, file: Path | None, cwd: Path, env: Mapping[str, str]
) -> tuple[Path, str]:
    """The file a write goes to, and its scope (``user`` or ``project``)."""
    if file is not None:
        return (file if file.is_absolute() else cwd / file), "project"
    if not project:
        return user_config_file(env), "user"
    found = find_project_config(cwd)
    if found is not None:
        return found, "project"
    root = repository_root(cwd)
    if root is None:
        raise JlgError(
            ExitCode.USAGE,
            f"no {PROJECT_FILE_NAME} in {cwd} or above, and no repository (.git) to create one in",
            hint=f"run it inside the repository, or name the file: --file ./{PROJECT_FILE_NAME}",
        )
    return root / PROJECT_FILE_NAME, "project"


def _edit(
    path: Path, scope: str, env: Mapping[str, str], change: Callable[[dict[str, Any]], bool]
) -> None:
    """Under the lock: read ``path``, apply ``change``; write it back when it says so."""
    with config_lock(env):
        data = read_config_file(path, scope)
        if change(data):
            _write_config(path, data)


def set_value(
    key: str,
    raw: str,
    *,
    project: bool = False,
    file: Path | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[KeySpec, Any, Path]:
    """Validate and persist ``key = raw`` (locked, atomic); returns the key, value and file."""
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else cwd
    spec = spec_or_usage_error(key)
    path, scope = write_target(project=project, file=file, cwd=cwd, env=env)
    parsed: list[Any] = []

    def change(data: dict[str, Any]) -> bool:
        custom = tuple(custom_backends_of(path, scope, data))
        if scope == "user" and (project_path := find_project_config(cwd)):
            project_raw = read_config_file(project_path, "project")
            custom += tuple(custom_backends_of(project_path, "project", project_raw))
        try:
            value = spec.parse(raw, custom_backends=custom)
        except ValueProblemError as exc:
            raise JlgError(
                ExitCode.USAGE,
                f"invalid value for {spec.name}: {exc}",
                hint=f"example: jlgcli config set {spec.name} {spec.example}",
            ) from None
        data[spec.name] = value
        parsed.append(value)
        return True

    _edit(path, scope, env, change)
    return spec, parsed[0], path


def unset_value(
    key: str,
    *,
    project: bool = False,
    file: Path | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[KeySpec, Path, bool]:
    """Remove ``key`` from the user (or project) file; returns whether it was there."""
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else cwd
    spec = spec_or_usage_error(key)
    if file is None and project and find_project_config(cwd) is None:
        return spec, cwd / PROJECT_FILE_NAME, False  # nothing to remove: create nothing
    path, scope = write_target(project=project, file=file, cwd=cwd, env=env)
    removed: list[bool] = []

    def change(data: dict[str, Any]) -> bool:
        removed.append(spec.name in data)
        data.pop(spec.name, None)
        return removed[0]

    if path.exists():
        _edit(path, scope, env, change)
    return spec, path, bool(removed and removed[0])


def trust_files(paths: list[Path], env: Mapping[str, str] | None = None) -> dict[str, str]:
    """Record each file's path and SHA-256 in the user config; returns what was recorded."""
    env = os.environ if env is None else env
    recorded = {trust_key(p): file_digest(p) for p in paths}

    def change(data: dict[str, Any]) -> bool:
        data[TRUST_KEY] = trusted_map(data) | recorded
        return True

    _edit(user_config_file(env), "user", env, change)
    return recorded


def untrust_files(paths: list[Path], env: Mapping[str, str] | None = None) -> list[str]:
    """Forget these files' trust; returns the entries that were removed."""
    env = os.environ if env is None else env
    keys = [trust_key(p) for p in paths]
    removed: list[str] = []

    def change(data: dict[str, Any]) -> bool:
        entries = trusted_map(data)
        removed.extend(k for k in keys if entries.pop(k, None) is not None)
        if entries:
            data[TRUST_KEY] = entries
        else:
            data.pop(TRUST_KEY, None)
        return bool(removed)

    _edit(user_config_file(env), "user", env, change)
    return removed


def _write_config(path: Path, data: dict[str, Any]) -> None:
    from jlgcli.artifacts.atomic import atomic_write_text

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise _write_error(path, exc) from None


def _write_error(path: Path, exc: OSError) -> JlgError:
    return JlgError(
        ExitCode.CANT_CREATE,
        f"cannot write config file {path}: {exc.strerror or exc}",
        hint="check the permissions of that directory, or set JLGCLI_CONFIG_DIR",
    )
