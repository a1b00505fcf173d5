"""Where a project's runs live: its root, found by walking up like the config is (issue 19 item 9).

The root is the directory of the nearest project file ``.jlgcli.json``, else
the root of the git work tree, else the working directory itself. Runs
(``.jlgcli/runs``) and the rebound ledger are written and read there, so
``jlgcli runs`` from a sub-directory sees the project's runs (F-006).
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from jlgcli.errors import ExitCode, JlgError

PROJECT_FILE_NAME = ".jlgcli.json"  # the name jlgcli.config.paths reads (kept in sync by a test)


def project_root(cwd: Path | None = None) -> Path:
    """The project file's directory, else the git work tree's root, else ``cwd``."""
    start = (Path.cwd() if cwd is None else cwd).resolve()
    chain = (start, *start.parents)
    for directory in chain:
        if (directory / PROJECT_FILE_NAME).is_file():
            return directory
    for directory in chain:
        if (directory / ".git").exists():  # a directory, or a file in worktrees and submodules
            return directory
    return start


def under_project(path: Path, cwd: Path | None = None) -> Path:
    """``path`` itself when absolute, else relative to the project root of ``cwd``."""
    return path if path.is_absolute() else project_root(cwd) / path


def require_own_folder(path: Path, *, owner: int | None = None) -> None:
    """Exit 73 when ``path`` (or a folder of it from ``.jlgcli`` down) is a symlink or not ours.

    A cloned repository can hold ``.jlgcli``, ``ledger`` or ``.jlgcli/worktrees``
    as a symlink to anywhere, or a folder another user made: jlgcli would then
    write its run records, its ledger or its worktrees there (issue 46). What
    does not exist yet is fine (jlgcli makes it). ``owner``: the uid expected
    (default: this process's; none on Windows).
    """
    chain = [path]
    if ".jlgcli" in path.parts[:-1]:
        for parent in path.parents:
            chain.append(parent)
            if parent.name == ".jlgcli":
                break
    uid = owner if owner is not None else _euid()
    for folder in chain:
        try:
            info = folder.lstat()
        except OSError:  # not there yet: jlgcli makes it
            continue
        if stat.S_ISLNK(info.st_mode):
            reason = "is a symlink (jlgcli writes only into a folder of its own)"
        elif uid is not None and info.st_uid != uid:
            reason = f"belongs to another user (uid {info.st_uid}), not to you (uid {uid})"
        else:
            continue
        raise JlgError(
            ExitCode.CANT_CREATE,
            f"{folder} {reason}",
            hint=f"remove or rename {folder} (a repository may hold one), then run again",
        )


def _euid() -> int | None:
    if sys.platform == "win32":  # no uids: owners are ACLs there
        return None
    return os.geteuid()
