"""Where configuration lives: the user folder and file, the project file (seed 000 RG-001).

The user file lives in platformdirs' roaming user config dir (``%APPDATA%\\jlgcli``
on Windows) unless ``JLGCLI_CONFIG_DIR`` says otherwise; the project file is the
nearest ``.jlgcli.json`` walking up from the cwd. ``jlgcli.config.resolve`` re-exports
these names: most callers import them from there.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path, PurePath

from jlgcli.errors import ExitCode, JlgError

PROJECT_FILE_NAME = ".jlgcli.json"
USER_FILE_NAME = "config.json"


def user_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """``JLGCLI_CONFIG_DIR`` or the roaming user config dir for ``jlgcli`` (as platformdirs')."""
    env = os.environ if env is None else env
    override = env.get("JLGCLI_CONFIG_DIR")
    if override:
        folder = Path(override)
        if folder.exists() and not folder.is_dir():
            raise JlgError(
                ExitCode.CONFIG,
                f"JLGCLI_CONFIG_DIR={override} is a file, not a folder",
                hint="point JLGCLI_CONFIG_DIR at a folder (jlgcli keeps config.json there), "
                "or unset it",
            )
        return folder
    return Path(default_user_config_dir(env))


def default_user_config_dir(
    env: Mapping[str, str],
    *,
    platform: str = sys.platform,
    home: str | None = None,
    path_type: type[PurePath] = Path,
) -> PurePath:
    """platformdirs' roaming ``user_config_dir("jlgcli")``, without importing it (~5 ms).

    Windows ``%APPDATA%\\jlgcli``; macOS ``$XDG_CONFIG_HOME/jlgcli`` when set
    (as platformdirs 4.14 does), else ``~/Library/Application Support/jlgcli``;
    elsewhere ``$XDG_CONFIG_HOME/jlgcli`` or ``~/.config/jlgcli``. A test checks
    that it agrees with platformdirs on the machine running the tests.
    """
    base = path_type(home) if home is not None else Path.home()
    xdg = env.get("XDG_CONFIG_HOME", "").strip()
    if platform == "win32":
        appdata = env.get("APPDATA", "").strip()
        return (path_type(appdata) if appdata else base / "AppData" / "Roaming") / "jlgcli"
    if xdg:
        return path_type(xdg) / "jlgcli"
    if platform == "darwin":
        return base / "Library" / "Application Support" / "jlgcli"
    return base / ".config" / "jlgcli"


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


def repository_root(start: Path) -> Path | None:
    """The nearest folder holding ``.git`` (a folder, or a file in a worktree), or ``None``."""
    current = start.resolve()
    return next((d for d in (current, *current.parents) if (d / ".git").exists()), None)


def configured_runs_root(cwd: Path, flag: str | None = None) -> Path:
    """``flag`` (``--dir``, relative to ``cwd``), else the ``artifactsDir`` setting relative
    to the project root: where a run writes from any sub-directory, so where readers look."""
    from jlgcli.artifacts.layout import DEFAULT_ROOT
    from jlgcli.artifacts.project import under_project

    if flag:
        return cwd / Path(flag)
    try:
        from jlgcli.config.resolve import resolve_settings

        configured = resolve_settings(cwd).values.get("artifactsDir")
    except JlgError:
        configured = None  # a broken config must not hide the runs already recorded
    return under_project(Path(configured) if configured else DEFAULT_ROOT, cwd)
